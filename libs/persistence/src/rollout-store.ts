import { RolloutStore } from '@acm/domain';
import type {
  OperationState,
  Rollout,
  RolloutConflict,
  RolloutEvent,
  RolloutOperation,
  StoredRollout,
} from '@acm/domain';
import type { DataSource, EntityManager } from 'typeorm';
import { isRolloutFinished } from '@acm/domain';

interface RolloutRow {
  body: StoredRollout;
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

/** The rollout port on PostgreSQL: `acm_rollout` (one jsonb document each) and `acm_rollout_claim`. */
export class TypeOrmRolloutStore extends RolloutStore {
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
      await this.dataSource.transaction(async (manager) => {
        await manager.query(
          `INSERT INTO acm_rollout (rollout_id, state, created_at, body) VALUES ($1, $2, $3, $4::jsonb)`,
          [rollout.rolloutId, rollout.state, rollout.createdAt, JSON.stringify(stored)],
        );
        // A claim another rollout holds (committed, or in a concurrent creation) is a unique violation.
        await manager.query(`INSERT INTO acm_rollout_claim (instance_id, rollout_id) SELECT unnest($1::uuid[]), $2`, [
          instanceIds,
          rollout.rolloutId,
        ]);
        await appendEvents(manager, rollout.rolloutId, events);
      });
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
    const rows: RolloutRow[] = await this.dataSource.query(`SELECT body FROM acm_rollout WHERE rollout_id = $1`, [
      rolloutId,
    ]);
    return rows[0]?.body ?? null;
  }

  override async list(limit: number): Promise<Rollout[]> {
    const rows: RolloutRow[] = await this.dataSource.query(
      `SELECT body FROM acm_rollout ORDER BY created_at DESC, rollout_id DESC LIMIT $1`,
      [limit],
    );
    return rows.map((row) => row.body.rollout);
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
    const [rows]: [RolloutRow[], number] = await this.dataSource.query(
      `UPDATE acm_rollout SET driver_id = $2, lease_until = $4
       WHERE rollout_id = $1 AND (driver_id IS NULL OR driver_id = $2 OR lease_until < $3)
       RETURNING body`,
      [rolloutId, driverId, now, until],
    );
    return rows[0]?.body ?? null;
  }

  override async history(rolloutId: string): Promise<RolloutEvent[]> {
    const rows: Array<{ body: RolloutEvent }> = await this.dataSource.query(
      `SELECT body FROM acm_rollout_event WHERE rollout_id = $1 ORDER BY sequence`,
      [rolloutId],
    );
    return rows.map((row) => row.body);
  }

  override save(stored: StoredRollout, driverId: string, events: readonly RolloutEvent[] = []): Promise<boolean> {
    const { rollout } = stored;
    return this.dataSource.transaction(async (manager) => {
      const finished = isRolloutFinished(rollout.state);
      const [rows]: [unknown[], number] = await manager.query(
        `UPDATE acm_rollout SET state = $3, body = $4::jsonb
         WHERE rollout_id = $1 AND driver_id = $2 RETURNING rollout_id`,
        [rollout.rolloutId, driverId, rollout.state, JSON.stringify(stored)],
      );
      if (rows.length === 0) {
        return false;
      }
      if (finished) {
        await manager.query(`DELETE FROM acm_rollout_claim WHERE rollout_id = $1`, [rollout.rolloutId]);
      }
      await appendEvents(manager, rollout.rolloutId, events);
      return true;
    });
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
    `SELECT item->>'state' AS state, count(*) AS count
     FROM acm_rollout, jsonb_array_elements(body->'rollout'->'instances') AS item
     WHERE acm_rollout.state NOT IN ('COMPLETED', 'FAILED', 'CANCELLED')
     GROUP BY item->>'state'`,
  );
  const counted = (rows: Array<{ state: string; count: string }>) =>
    rows.map((row) => ({ state: row.state, count: Number(row.count) }));
  return { rollouts: counted(rollouts), instances: counted(instances) };
}
