import { EventFeed } from '@acm/domain';
import type { FeedEvent } from '@acm/domain';
import type { DataSource } from 'typeorm';
import type { EventRow } from './engine-repositories';
import { storedEvent } from './engine-repositories';

type FeedRow = EventRow & {
  feed_position: string;
  composition_id: string | null;
  project: string | null;
  instance_metadata: Record<string, unknown> | null;
};

/** Rows numbered per stamping transaction: bounds its length when a backlog waits (the next pass takes the rest). */
const STAMP_BATCH = 5000;

/** The event feed on PostgreSQL: `acm_event.feed_position`, numbered after commit (see the EventFeed migration). */
export class TypeOrmEventFeed extends EventFeed {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  override async stamp(): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      // The head's row lock makes stampers take turns; each statement below reads with a snapshot taken after the
      // lock was granted, so it sees every row the previous stamper numbered (READ COMMITTED).
      const [head] = await manager.query<Array<{ position: string }>>(
        `SELECT position FROM acm_event_feed_head FOR UPDATE`,
      );
      const from = Number(head?.position ?? 0);
      const stamped = await manager.query<[unknown[], number] | unknown[]>(
        `UPDATE acm_event e SET feed_position = $1::bigint + numbered.n
         FROM (SELECT sequence, row_number() OVER (ORDER BY sequence) AS n FROM acm_event
               WHERE feed_position IS NULL ORDER BY sequence LIMIT ${STAMP_BATCH}) numbered
         WHERE e.sequence = numbered.sequence
         RETURNING e.feed_position`,
        [from],
      );
      const count = countOf(stamped);
      if (count > 0) {
        await manager.query(`UPDATE acm_event_feed_head SET position = position + $1`, [count]);
      }
      return count;
    });
  }

  override async after(position: number, limit: number): Promise<FeedEvent[]> {
    const rows = await this.dataSource.query<FeedRow[]>(
      `SELECT e.feed_position, e.sequence, e.subject_id, e.operation_id, e.event, e.detail, e.actor, e.at,
              COALESCE(ac.composition_id, cd.composition_id) AS composition_id, pd.project,
              ac.metadata AS instance_metadata
       FROM acm_event e
       LEFT JOIN automation_composition ac ON ac.instance_id = e.subject_id
       LEFT JOIN composition_definition cd ON cd.composition_id = e.subject_id
       LEFT JOIN composition_definition pd ON pd.composition_id = COALESCE(ac.composition_id, cd.composition_id)
       WHERE e.feed_position > $1 ORDER BY e.feed_position LIMIT $2`,
      [position, limit],
    );
    return rows.map((row) => ({
      ...storedEvent(row),
      position: Number(row.feed_position),
      compositionId: row.composition_id,
      project: row.project,
      instanceMetadata: row.instance_metadata,
    }));
  }

  override async head(): Promise<number> {
    const [row] = await this.dataSource.query<Array<{ position: string }>>(`SELECT position FROM acm_event_feed_head`);
    return Number(row?.position ?? 0);
  }
}

/** TypeORM answers an UPDATE ... RETURNING as [rows, count] on PostgreSQL. */
function countOf(result: [unknown[], number] | unknown[]): number {
  if (result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') {
    return result[1];
  }
  return result.length;
}
