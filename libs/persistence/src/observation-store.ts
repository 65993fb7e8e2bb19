import { HEALTH_STATES, ObservationStore } from '@acm/domain';
import type { ElementObservationRow, HealthState, ObservedElement, OperationEvent, StoredEvent } from '@acm/domain';
import type { DataSource } from 'typeorm';

import { SqlEventRepository, storedEvent } from './engine-repositories';
import type { EventRow } from './engine-repositories';

interface ObservationRow {
  element_id: string;
  health: HealthState;
  reason: string | null;
  since: string;
  drift: string[];
}

const observedOf = (row: ObservationRow): ObservedElement => ({
  health: { state: row.health, reason: row.reason, since: Number(row.since) },
  drift: row.drift,
});

/** The observation port on PostgreSQL: `acm_element_observation`, its events in `acm_event` in the same transaction. */
export class TypeOrmObservationStore extends ObservationStore {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  override async findMany(elementIds: readonly string[]): Promise<Map<string, ObservedElement>> {
    if (elementIds.length === 0) {
      return new Map();
    }
    const rows = await this.dataSource.query<ObservationRow[]>(
      `SELECT element_id, health, reason, since, drift FROM acm_element_observation WHERE element_id = ANY($1::uuid[])`,
      [elementIds],
    );
    return new Map(rows.map((row) => [row.element_id, observedOf(row)]));
  }

  override async ofInstance(instanceId: string): Promise<Record<string, ObservedElement>> {
    const rows = await this.dataSource.query<ObservationRow[]>(
      `SELECT element_id, health, reason, since, drift FROM acm_element_observation WHERE instance_id = $1`,
      [instanceId],
    );
    return Object.fromEntries(rows.map((row) => [row.element_id, observedOf(row)]));
  }

  override async record(rows: readonly ElementObservationRow[], events: readonly OperationEvent[]): Promise<void> {
    if (rows.length === 0 && events.length === 0) {
      return;
    }
    await this.dataSource.transaction(async (manager) => {
      if (rows.length > 0) {
        await manager.query(
          `INSERT INTO acm_element_observation (element_id, instance_id, health, reason, since, drift)
           SELECT element_id, instance_id, health, reason, since, drift
           FROM jsonb_to_recordset($1::jsonb)
             AS x(element_id uuid, instance_id uuid, health text, reason text, since bigint, drift jsonb)
           ON CONFLICT (element_id) DO UPDATE
             SET health = excluded.health, reason = excluded.reason, since = excluded.since, drift = excluded.drift`,
          [
            JSON.stringify(
              rows.map(({ instanceId, elementId, observed }) => ({
                element_id: elementId,
                instance_id: instanceId,
                health: observed.health.state,
                reason: observed.health.reason,
                since: observed.health.since,
                drift: observed.drift,
              })),
            ),
          ],
        );
      }
      await new SqlEventRepository(manager).append(events);
    });
  }

  override async countByHealth(): Promise<Record<HealthState, number>> {
    const rows = await this.dataSource.query<Array<{ health: HealthState; count: string }>>(
      `SELECT health, count(*) AS count FROM acm_element_observation GROUP BY health`,
    );
    const counts = Object.fromEntries(HEALTH_STATES.map((state) => [state, 0])) as Record<HealthState, number>;
    for (const row of rows) {
      counts[row.health] = Number(row.count);
    }
    return counts;
  }

  override async healingSince(instanceId: string, since: number): Promise<StoredEvent[]> {
    const rows: EventRow[] = await this.dataSource.query(
      `SELECT sequence, subject_id, operation_id, event, detail, actor, at FROM acm_event
       WHERE subject_id = $1 AND event IN ('HEAL', 'HEALING_STOPPED') AND at >= $2 ORDER BY sequence`,
      [instanceId, new Date(since)],
    );
    return rows.map(storedEvent);
  }

  override async forgetInstance(instanceId: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM acm_element_observation WHERE instance_id = $1`, [instanceId]);
  }
}
