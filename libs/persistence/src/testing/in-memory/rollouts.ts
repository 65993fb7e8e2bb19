import { RolloutStore, isRolloutFinished } from '@acm/domain';
import type { Rollout, RolloutConflict, RolloutEvent, RolloutOperation, StoredRollout } from '@acm/domain';
import type { Database } from './database';
import { AutocommitSession, copy } from './database';

interface RolloutRow {
  stored: StoredRollout;
  driverId: string | null;
  leaseUntil: number | null;
}

function operationOf(row: {
  operationId: string;
  targetId: string;
  state: RolloutOperation['state'];
  timedOut: boolean;
}): RolloutOperation {
  return { operationId: row.operationId, targetId: row.targetId, state: row.state, timedOut: row.timedOut };
}

/** The rollout port in memory; each method commits on its own, as on PostgreSQL. Operations are the twin's own. */
export class InMemoryRolloutStore extends RolloutStore {
  private readonly rollouts = new Map<string, RolloutRow>();
  private readonly claims = new Map<string, string>();
  private readonly events = new Map<string, RolloutEvent[]>();
  private readonly session: AutocommitSession;

  constructor(private readonly db: Database) {
    super();
    this.session = new AutocommitSession(db);
  }

  override create(stored: StoredRollout, events: readonly RolloutEvent[] = []): Promise<RolloutConflict | null> {
    const instanceIds = stored.rollout.instances.map((item) => item.instanceId);
    const held = instanceIds.filter((id) => this.claims.has(id)).sort();
    if (held.length > 0) {
      const holders = held.map((id) => this.claims.get(id)!).sort();
      const rolloutId = holders[0]!;
      return Promise.resolve({ rolloutId, instanceIds: held.filter((id) => this.claims.get(id) === rolloutId) });
    }
    this.rollouts.set(stored.rollout.rolloutId, { stored: copy(stored), driverId: null, leaseUntil: null });
    this.events.set(stored.rollout.rolloutId, copy([...events]));
    for (const id of instanceIds) {
      this.claims.set(id, stored.rollout.rolloutId);
    }
    return Promise.resolve(null);
  }

  override find(rolloutId: string): Promise<StoredRollout | null> {
    const row = this.rollouts.get(rolloutId);
    return Promise.resolve(row === undefined ? null : copy(row.stored));
  }

  override list(limit: number): Promise<Rollout[]> {
    const rollouts = [...this.rollouts.values()].map((row) => copy(row.stored.rollout));
    rollouts.sort((a, b) => b.createdAt - a.createdAt || (a.rolloutId < b.rolloutId ? 1 : -1));
    return Promise.resolve(rollouts.slice(0, limit));
  }

  override unfinished(limit: number): Promise<string[]> {
    const rollouts = [...this.rollouts.values()]
      .map((row) => row.stored.rollout)
      .filter((rollout) => !isRolloutFinished(rollout.state));
    rollouts.sort((a, b) => a.createdAt - b.createdAt || (a.rolloutId < b.rolloutId ? -1 : 1));
    return Promise.resolve(rollouts.slice(0, limit).map((rollout) => rollout.rolloutId));
  }

  override holding(instanceIds: readonly string[]): Promise<string[]> {
    const holders = new Set(instanceIds.flatMap((id) => this.claims.get(id) ?? []));
    return Promise.resolve([...holders].sort());
  }

  override lease(rolloutId: string, driverId: string, now: number, until: number): Promise<StoredRollout | null> {
    const row = this.rollouts.get(rolloutId);
    if (row === undefined || !(row.driverId === null || row.driverId === driverId || (row.leaseUntil ?? 0) < now)) {
      return Promise.resolve(null);
    }
    row.driverId = driverId;
    row.leaseUntil = until;
    return Promise.resolve(copy(row.stored));
  }

  override history(rolloutId: string): Promise<RolloutEvent[]> {
    return Promise.resolve(copy(this.events.get(rolloutId) ?? []));
  }

  override save(stored: StoredRollout, driverId: string, events: readonly RolloutEvent[] = []): Promise<boolean> {
    const row = this.rollouts.get(stored.rollout.rolloutId);
    if (row === undefined || row.driverId !== driverId) {
      return Promise.resolve(false);
    }
    row.stored = copy(stored);
    this.events.set(stored.rollout.rolloutId, [
      ...(this.events.get(stored.rollout.rolloutId) ?? []),
      ...copy([...events]),
    ]);
    if (isRolloutFinished(stored.rollout.state)) {
      for (const [instanceId, rolloutId] of [...this.claims]) {
        if (rolloutId === stored.rollout.rolloutId) {
          this.claims.delete(instanceId);
        }
      }
    }
    return Promise.resolve(true);
  }

  override release(rolloutId: string, driverId: string): Promise<void> {
    const row = this.rollouts.get(rolloutId);
    if (row !== undefined && row.driverId === driverId) {
      row.driverId = null;
      row.leaseUntil = null;
    }
    return Promise.resolve();
  }

  override latestOperations(instanceIds: readonly string[]): Promise<Map<string, RolloutOperation>> {
    const wanted = new Set(instanceIds);
    return this.session.run((tx) => {
      const latest = new Map<string, RolloutOperation & { startedAt: number }>();
      for (const [, row] of this.db.scan(tx, 'operation')) {
        if (!wanted.has(row.targetId)) {
          continue;
        }
        const known = latest.get(row.targetId);
        if (
          known === undefined ||
          row.startedAt > known.startedAt ||
          (row.startedAt === known.startedAt && row.operationId > known.operationId)
        ) {
          latest.set(row.targetId, { ...operationOf(row), startedAt: row.startedAt });
        }
      }
      return new Map([...latest].map(([id, { startedAt: _startedAt, ...operation }]) => [id, operation]));
    });
  }

  override operations(operationIds: readonly string[]): Promise<Map<string, RolloutOperation>> {
    const wanted = new Set(operationIds);
    return this.session.run(
      (tx) =>
        new Map(
          this.db
            .scan(tx, 'operation')
            .filter(([, row]) => wanted.has(row.operationId))
            .map(([, row]) => [row.operationId, operationOf(row)]),
        ),
    );
  }
}
