import { WindowStore } from '@acm/domain';
import type { MaintenanceWindow } from '@acm/domain';
import type { DataSource } from 'typeorm';

/** TypeORM answers an UPDATE/DELETE ... RETURNING as [rows, count] on PostgreSQL. */
function rowsOf<T>(result: unknown): T[] {
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') {
    return result[0] as T[];
  }
  return result as T[];
}

/** The window port on PostgreSQL: `acm_window`, each window a jsonb document. */
export class TypeOrmWindowStore extends WindowStore {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  override async create(window: MaintenanceWindow): Promise<boolean> {
    const rows = await this.dataSource.query<Array<{ window_id: string }>>(
      `INSERT INTO acm_window (window_id, name, created_at, body) VALUES ($1, $2, $3, $4::jsonb)
       ON CONFLICT (name) DO NOTHING RETURNING window_id`,
      [window.windowId, window.name, window.createdAt, JSON.stringify(window)],
    );
    return rows.length > 0;
  }

  override async find(windowId: string): Promise<MaintenanceWindow | null> {
    const rows = await this.dataSource.query<Array<{ body: MaintenanceWindow }>>(
      `SELECT body FROM acm_window WHERE window_id = $1`,
      [windowId],
    );
    return rows[0]?.body ?? null;
  }

  override async list(): Promise<MaintenanceWindow[]> {
    const rows = await this.dataSource.query<Array<{ body: MaintenanceWindow }>>(
      `SELECT body FROM acm_window ORDER BY created_at, window_id`,
    );
    return rows.map((row) => row.body);
  }

  override async delete(windowId: string): Promise<boolean> {
    const rows = rowsOf<unknown>(
      await this.dataSource.query(`DELETE FROM acm_window WHERE window_id = $1 RETURNING window_id`, [windowId]),
    );
    return rows.length > 0;
  }
}
