import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Maintenance windows: each a jsonb document under a unique name (orders read them all, they are few). */
export class MaintenanceWindows1765820000000 implements MigrationInterface {
  name = 'MaintenanceWindows1765820000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE acm_window (
        window_id uuid PRIMARY KEY,
        name text NOT NULL UNIQUE,
        created_at bigint NOT NULL,
        body jsonb NOT NULL
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE acm_window`);
  }
}
