import { RolloutStore } from '@acm/domain';
import type {
  OperationState,
  Rollout,
  RolloutConflict,
  RolloutEvent,
  RolloutInstance,
  RolloutOperation,
  RolloutTracking,
  StoredRollout,
} from '@acm/domain';
import { randomUUID } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import { isRolloutFinished } from '@acm/domain';

/** The rollout's document (its own fields, without its instances) and its instances' rows, in their order. */
interface RolloutRow {
  /** `revision`: new at each save (absent from documents written before instances had rows). */
  body: { rollout: Omit<Rollout, 'instances'>; revision?: string };
  instances: Array<{ body: RolloutInstance; tracking: RolloutTracking | null }> | null;
}

/** One statement, so one snapshot: the document and the instance rows of one save. */
const SELECT_ROLLOUT = `SELECT body, (
    SELECT jsonb_agg(jsonb_build_object('body', item.body, 'tracking', item.tracking) ORDER BY item.position)
    FROM acm_rollout_instance item WHERE item.rollout_id = acm_rollout.rollout_id
  ) AS instances FROM acm_rollout`;

function storedOf(row: RolloutRow): StoredRollout {
  const rows = row.instances ?? [];
  const tracking: Record<string, RolloutTracking> = {};
  for (const item of rows) {
    if (item.tracking !== null) {
      tracking[item.body.instanceId] = item.tracking;
    }
  }
  return { rollout: { ...row.body.rollout, instances: rows.map((item) => item.body) }, tracking };
}

/** The rollout's document: everything but its instances, which live in rows, and the save's revision. */
function documentOf(rollout: Rollout, revision: string): string {
  const { instances: _instances, ...own } = rollout;
  return JSON.stringify({ rollout: own, revision });
}

/** An instance's row as written: its state, its record in the rollout and the driver's tracking. */
interface InstanceRowInput {
  instanceId: string;
  position: number;
  state: string;
  body: RolloutInstance;
  tracking: RolloutTracking | null;
}

function instanceRows(stored: StoredRollout, previous: StoredRollout | undefined): InstanceRowInput[] {
  const before = new Map((previous?.rollout.instances ?? []).map((item) => [item.instanceId, item]));
  return stored.rollout.instances.flatMap((item, position) => {
    const tracking = stored.tracking[item.instanceId] ?? null;
    if (previous !== undefined) {
      const was = before.get(item.instanceId);
      const trackingWas = previous.tracking[item.instanceId] ?? null;
      const same = (a: unknown, b: unknown): boolean => a === b || JSON.stringify(a) === JSON.stringify(b);
      if (was !== undefined && same(was, item) && same(trackingWas, tracking)) {
        return [];
      }
    }
    return [{ instanceId: item.instanceId, position, state: item.state, body: item, tracking }];
  });
}

/** Writes these instance rows (inserted, or updated where they exist), in one statement. */
async function writeInstances(
  manager: EntityManager,
  rolloutId: string,
  rows: readonly InstanceRowInput[],
): Promise<void> {
  if (rows.length === 0) {
    return;
  }
  await manager.query(
    `INSERT INTO acm_rollout_instance (rollout_id, instance_id, position, state, body, tracking)
     SELECT $1, item."instanceId", item.position, item.state, item.body, item.tracking
     FROM jsonb_to_recordset($2::jsonb)
       AS item ("instanceId" uuid, position integer, state text, body jsonb, tracking jsonb)
     ON CONFLICT (rollout_id, instance_id)
     DO UPDATE SET state = excluded.state, body = excluded.body, tracking = excluded.tracking`,
    [rolloutId, JSON.stringify(rows)],
  );
}

interface OperationRow {
  operation_id: string;
  target_id: string;
  state: OperationState;
  timed_out: boolean;
}

const UNIQUE_VIOLATION = '23505';

function operationOf(row: OperationRow): RolloutOperation {
  return { operationId: row.operation_id, targetId: row.target_id, state: row.state, timedOut: row.timed_out };
}

function isUniqueViolation(error: unknown): boolean {
  const driverError = (error as { driverError?: { code?: unknown } }).driverError;
  return driverError?.code === UNIQUE_VIOLATION || (error as { code?: unknown }).code === UNIQUE_VIOLATION;
}

/** Appends events in their order, in one statement (a bigserial assigned in the order of the rows inserted). */
async function appendEvents(manager: EntityManager, rolloutId: string, events: readonly RolloutEvent[]): Promise<void> {
  if (events.length === 0) {
    return;
  }
  await manager.query(
    `INSERT INTO acm_rollout_event (rollout_id, body)
     SELECT $1, event FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS item (event, position) ORDER BY position`,
    [rolloutId, JSON.stringify(events)],
  );
  // The same events on the history feed (subject: the rollout), so the live stream and subscriptions carry them.
  await manager.query(
    `INSERT INTO acm_event (subject_id, operation_id, event, detail, actor, at)
     SELECT $1::uuid, NULL, 'ROLLOUT',
            jsonb_build_object('kind', event->'kind', 'batch', event->'batch', 'instanceId', event->'instanceId',
                               'state', event->'state', 'reason', event->'reason'),
            event->'actor', to_timestamp((event->>'at')::double precision / 1000)
     FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS item (event, position) ORDER BY position`,
    [rolloutId, JSON.stringify(events)],
  );
}

/**
 * The rollout port on PostgreSQL: `acm_rollout` (the rollout's own fields as one jsonb document, its lease),
 * `acm_rollout_instance` (a row per selected instance), `acm_rollout_claim` and `acm_rollout_event`.
 */
export class TypeOrmRolloutStore extends RolloutStore {
  /**
   * By rollout: what this store last saved or read under a lease, with that save's revision. A lease that finds the
   * same revision (nobody saved since) reuses it instead of reading every instance row again: a step reads what its
   * batch changed, not the fleet. Rollouts leave it when they finish.
   */
  private readonly leased = new Map<string, { revision: string; stored: StoredRollout }>();

  constructor(private readonly dataSource: DataSource) {
    super();
  }

  override async create(stored: StoredRollout, events: readonly RolloutEvent[] = []): Promise<RolloutConflict | null> {
    const { rollout } = stored;
    const instanceIds = rollout.instances.map((item) => item.instanceId);
    const held = await this.holdersIn(this.dataSource.manager, instanceIds);
    if (held !== null) {
      return held;
    }
    try {
      const revision = randomUUID();
      await this.dataSource.transaction(async (manager) => {
        await manager.query(
          `INSERT INTO acm_rollout (rollout_id, state, created_at, body) VALUES ($1, $2, $3, $4::jsonb)`,
          [rollout.rolloutId, rollout.state, rollout.createdAt, documentOf(rollout, revision)],
        );
        await writeInstances(manager, rollout.rolloutId, instanceRows(stored, undefined));
        // A claim another rollout holds (committed, or in a concurrent creation) is a unique violation.
        await manager.query(`INSERT INTO acm_rollout_claim (instance_id, rollout_id) SELECT unnest($1::uuid[]), $2`, [
          instanceIds,
          rollout.rolloutId,
        ]);
        await appendEvents(manager, rollout.rolloutId, events);
      });
      this.leased.set(rollout.rolloutId, { revision, stored });
      return null;
    } catch (error) {
      if (!isUniqueViolation(error)) {
        throw error;
      }
      return (await this.holdersIn(this.dataSource.manager, instanceIds)) ?? { rolloutId: 'unknown', instanceIds: [] };
    }
  }

  private async holdersIn(manager: EntityManager, instanceIds: readonly string[]): Promise<RolloutConflict | null> {
    const rows: Array<{ rollout_id: string; instance_id: string }> = await manager.query(
      `SELECT rollout_id, instance_id FROM acm_rollout_claim WHERE instance_id = ANY($1::uuid[])
       ORDER BY rollout_id, instance_id`,
      [instanceIds],
    );
    const first = rows[0];
    if (first === undefined) {
      return null;
    }
    return {
      rolloutId: first.rollout_id,
      instanceIds: rows.filter((row) => row.rollout_id === first.rollout_id).map((row) => row.instance_id),
    };
  }

  override async find(rolloutId: string): Promise<StoredRollout | null> {
    const rows: RolloutRow[] = await this.dataSource.query(`${SELECT_ROLLOUT} WHERE rollout_id = $1`, [rolloutId]);
    const row = rows[0];
    return row === undefined ? null : storedOf(row);
  }

  override async list(limit: number): Promise<Rollout[]> {
    const rows: RolloutRow[] = await this.dataSource.query(
      `${SELECT_ROLLOUT} ORDER BY created_at DESC, rollout_id DESC LIMIT $1`,
      [limit],
    );
    return rows.map((row) => storedOf(row).rollout);
  }

  override async unfinished(limit: number): Promise<string[]> {
    const rows: Array<{ rollout_id: string }> = await this.dataSource.query(
      `SELECT rollout_id FROM acm_rollout WHERE state NOT IN ('COMPLETED', 'FAILED', 'CANCELLED')
       ORDER BY created_at, rollout_id LIMIT $1`,
      [limit],
    );
    return rows.map((row) => row.rollout_id);
  }

  override async holding(instanceIds: readonly string[]): Promise<string[]> {
    const rows: Array<{ rollout_id: string }> = await this.dataSource.query(
      `SELECT DISTINCT rollout_id FROM acm_rollout_claim WHERE instance_id = ANY($1::uuid[]) ORDER BY rollout_id`,
      [instanceIds],
    );
    return rows.map((row) => row.rollout_id);
  }

  override async lease(rolloutId: string, driverId: string, now: number, until: number): Promise<StoredRollout | null> {
    // An UPDATE answers [rows, count] through TypeORM's PostgreSQL driver.
    const [rows]: [Array<{ revision: string | null }>, number] = await this.dataSource.query(
      `UPDATE acm_rollout SET driver_id = $2, lease_until = $4
       WHERE rollout_id = $1 AND (driver_id IS NULL OR driver_id = $2 OR lease_until < $3)
       RETURNING body->>'revision' AS revision`,
      [rolloutId, driverId, now, until],
    );
    const row = rows[0];
    if (row === undefined) {
      return null;
    }
    const known = this.leased.get(rolloutId);
    if (known !== undefined && row.revision !== null && known.revision === row.revision) {
      return known.stored;
    }
    // Read after the lease committed, in a statement of its own: it sees every save of a previous holder (a save
    // that held the rollout's row made the lease wait for its commit), and no one else saves while the lease holds.
    const read: RolloutRow[] = await this.dataSource.query(`${SELECT_ROLLOUT} WHERE rollout_id = $1`, [rolloutId]);
    const current = read[0];
    if (current === undefined) {
      return null;
    }
    const stored = storedOf(current);
    if (current.body.revision !== undefined) {
      this.leased.set(rolloutId, { revision: current.body.revision, stored });
    }
    return stored;
  }

  override async history(rolloutId: string): Promise<RolloutEvent[]> {
    const rows: Array<{ body: RolloutEvent }> = await this.dataSource.query(
      `SELECT body FROM acm_rollout_event WHERE rollout_id = $1 ORDER BY sequence`,
      [rolloutId],
    );
    return rows.map((row) => row.body);
  }

  override async save(
    stored: StoredRollout,
    driverId: string,
    events: readonly RolloutEvent[] = [],
    previous?: StoredRollout,
  ): Promise<boolean> {
    const { rollout } = stored;
    const changed = instanceRows(stored, previous);
    const revision = randomUUID();
    const saved = await this.dataSource.transaction(async (manager) => {
      const finished = isRolloutFinished(rollout.state);
      // The rollout's row first: it checks the lease and locks the rollout until this save commits.
      const [rows]: [unknown[], number] = await manager.query(
        `UPDATE acm_rollout SET state = $3, body = $4::jsonb
         WHERE rollout_id = $1 AND driver_id = $2 RETURNING rollout_id`,
        [rollout.rolloutId, driverId, rollout.state, documentOf(rollout, revision)],
      );
      if (rows.length === 0) {
        return false;
      }
      await writeInstances(manager, rollout.rolloutId, changed);
      if (finished) {
        await manager.query(`DELETE FROM acm_rollout_claim WHERE rollout_id = $1`, [rollout.rolloutId]);
      }
      await appendEvents(manager, rollout.rolloutId, events);
      return true;
    });
    if (saved && !isRolloutFinished(rollout.state)) {
      this.leased.set(rollout.rolloutId, { revision, stored });
    } else {
      this.leased.delete(rollout.rolloutId);
    }
    return saved;
  }

  override async release(rolloutId: string, driverId: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE acm_rollout SET driver_id = NULL, lease_until = NULL WHERE rollout_id = $1 AND driver_id = $2`,
      [rolloutId, driverId],
    );
  }

  override async latestOperations(instanceIds: readonly string[]): Promise<Map<string, RolloutOperation>> {
    const rows: OperationRow[] = await this.dataSource.query(
      `SELECT DISTINCT ON (target_id) operation_id, target_id, state, timed_out FROM acm_operation
       WHERE target_id = ANY($1::uuid[]) ORDER BY target_id, started_at DESC, operation_id DESC`,
      [instanceIds],
    );
    return new Map(rows.map((row) => [row.target_id, operationOf(row)]));
  }

  override async operations(operationIds: readonly string[]): Promise<Map<string, RolloutOperation>> {
    const rows: OperationRow[] = await this.dataSource.query(
      `SELECT operation_id, target_id, state, timed_out FROM acm_operation WHERE operation_id = ANY($1::uuid[])`,
      [operationIds],
    );
    return new Map(rows.map((row) => [row.operation_id, operationOf(row)]));
  }
}

/** Rollouts by state, and the instances of unfinished rollouts by their state in the rollout (for the gauges). */
export interface RolloutGauges {
  readonly rollouts: ReadonlyArray<{ readonly state: string; readonly count: number }>;
  readonly instances: ReadonlyArray<{ readonly state: string; readonly count: number }>;
}

/** Two aggregate queries; the instances are counted in unfinished rollouts only (read through their partial index). */
export async function readRolloutGauges(dataSource: DataSource): Promise<RolloutGauges> {
  const rollouts: Array<{ state: string; count: string }> = await dataSource.query(
    `SELECT state, count(*) AS count FROM acm_rollout GROUP BY state`,
  );
  const instances: Array<{ state: string; count: string }> = await dataSource.query(
    `SELECT item.state, count(*) AS count
     FROM acm_rollout JOIN acm_rollout_instance item ON item.rollout_id = acm_rollout.rollout_id
     WHERE acm_rollout.state NOT IN ('COMPLETED', 'FAILED', 'CANCELLED')
     GROUP BY item.state`,
  );
  const counted = (rows: Array<{ state: string; count: string }>) =>
    rows.map((row) => ({ state: row.state, count: Number(row.count) }));
  return { rollouts: counted(rollouts), instances: counted(instances) };
}
