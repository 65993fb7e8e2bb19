import { AuditLedger } from '@acm/domain';
import type { AuditCursor, AuditFilter, StoredEvent } from '@acm/domain';
import type { DataSource } from 'typeorm';
import type { EventRow } from './engine-repositories';
import { storedEvent } from './engine-repositories';

/**
 * The actor's name as `actorName` (domain) computes it; the same text as the expression index of migration
 * AuditIndexes1764900000000, so a query by actor reads that index.
 */
const ACTOR_NAME = `(CASE actor->>'kind' WHEN 'request' THEN actor->>'user' WHEN 'participant' THEN actor->>'participantId' WHEN 'runtime' THEN 'runtime' END)`;

/** The audit ledger on PostgreSQL: one statement per page, on the `(at, sequence)` or actor index. */
export class TypeOrmAuditLedger extends AuditLedger {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async events(filter: AuditFilter, after: AuditCursor | null, offset: number, limit: number): Promise<StoredEvent[]> {
    const conditions: string[] = [];
    const parameters: unknown[] = [];
    const parameter = (value: unknown): string => {
      parameters.push(value);
      return `$${parameters.length}`;
    };
    if (filter.actor !== undefined) {
      conditions.push(`${ACTOR_NAME} = ${parameter(filter.actor)}`);
    }
    if (filter.instanceId !== undefined) {
      conditions.push(`subject_id = ${parameter(filter.instanceId)}::uuid`);
    }
    if (filter.compositionId !== undefined) {
      const id = parameter(filter.compositionId);
      conditions.push(
        `(subject_id = ${id}::uuid OR subject_id IN
           (SELECT instance_id FROM automation_composition WHERE composition_id = ${id}::uuid))`,
      );
    }
    if (filter.projects !== undefined) {
      const projects = parameter(filter.projects);
      conditions.push(
        `(subject_id IN (SELECT composition_id FROM composition_definition WHERE project = ANY(${projects}::text[]))
          OR subject_id IN (SELECT ac.instance_id FROM automation_composition ac
            JOIN composition_definition d ON d.composition_id = ac.composition_id
            WHERE d.project = ANY(${projects}::text[])))`,
      );
    }
    if (filter.from !== undefined) {
      conditions.push(`at >= ${parameter(new Date(filter.from).toISOString())}::timestamptz`);
    }
    if (filter.to !== undefined) {
      conditions.push(`at < ${parameter(new Date(filter.to).toISOString())}::timestamptz`);
    }
    const kinds = filter.kinds ?? [];
    const orders = filter.orders ?? [];
    if (kinds.length > 0 || orders.length > 0) {
      conditions.push(
        `(event = ANY(${parameter(kinds)}::text[])
          OR (event = 'ORDERED' AND detail->>'order' = ANY(${parameter(orders)}::text[])))`,
      );
    }
    if (after !== null) {
      conditions.push(
        `(at, sequence) > (${parameter(new Date(after.at).toISOString())}::timestamptz, ${parameter(after.sequence)}::bigint)`,
      );
    }
    const where = conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`;
    const rows: EventRow[] = await this.dataSource.query(
      `SELECT sequence, subject_id, operation_id, event, detail, actor, at FROM acm_event ${where}
       ORDER BY at, sequence OFFSET ${parameter(offset)} LIMIT ${parameter(limit)}`,
      parameters,
    );
    return rows.map(storedEvent);
  }
}
