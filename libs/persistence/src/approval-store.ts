import { ApprovalStore } from '@acm/domain';
import type { PendingApproval } from '@acm/domain';
import type { DataSource } from 'typeorm';

/** TypeORM answers an UPDATE ... RETURNING as [rows, count] on PostgreSQL. */
function rowsOf<T>(result: unknown): T[] {
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') {
    return result[0] as T[];
  }
  return result as T[];
}

/** The approval port on PostgreSQL: `acm_approval`, each approval a jsonb document. */
export class TypeOrmApprovalStore extends ApprovalStore {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  override async create(approval: PendingApproval): Promise<boolean> {
    const rows = await this.dataSource.query<Array<{ approval_id: string }>>(
      `INSERT INTO acm_approval (approval_id, instance_id, project, state, version, ordered_at, body)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb)
       ON CONFLICT (instance_id) WHERE state = 'PENDING' DO NOTHING RETURNING approval_id`,
      [
        approval.approvalId,
        approval.instanceId,
        approval.project,
        approval.state,
        approval.version,
        approval.orderedAt,
        JSON.stringify(approval),
      ],
    );
    return rows.length > 0;
  }

  override async find(approvalId: string): Promise<PendingApproval | null> {
    const rows = await this.dataSource.query<Array<{ body: PendingApproval }>>(
      `SELECT body FROM acm_approval WHERE approval_id = $1`,
      [approvalId],
    );
    return rows[0]?.body ?? null;
  }

  override async pendingOf(instanceId: string): Promise<PendingApproval | null> {
    const rows = await this.dataSource.query<Array<{ body: PendingApproval }>>(
      `SELECT body FROM acm_approval WHERE instance_id = $1 AND state = 'PENDING'`,
      [instanceId],
    );
    return rows[0]?.body ?? null;
  }

  override async list(query: {
    projects?: readonly string[];
    pendingOnly: boolean;
    limit: number;
  }): Promise<PendingApproval[]> {
    const rows = await this.dataSource.query<Array<{ body: PendingApproval }>>(
      `SELECT body FROM acm_approval
       WHERE ($1::text[] IS NULL OR project = ANY($1::text[])) AND (NOT $2 OR state = 'PENDING')
       ORDER BY ordered_at DESC, approval_id LIMIT $3`,
      [query.projects === undefined ? null : [...query.projects], query.pendingOnly, query.limit],
    );
    return rows.map((row) => row.body);
  }

  override async update(approval: PendingApproval): Promise<boolean> {
    const rows = rowsOf<unknown>(
      await this.dataSource.query(
        `UPDATE acm_approval SET state = $2, version = $3, body = $4::jsonb
         WHERE approval_id = $1 AND version = $3 - 1 RETURNING approval_id`,
        [approval.approvalId, approval.state, approval.version, JSON.stringify(approval)],
      ),
    );
    return rows.length > 0;
  }
}
