import type { MigrationInterface, QueryRunner } from 'typeorm';

/** ONAP's AutomationCompositionRollback: the elements before an update or migration, one row per instance. */
export class RollbackSnapshot1764500000000 implements MigrationInterface {
  name = 'RollbackSnapshot1764500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE automation_composition_rollback (
        instance_id uuid PRIMARY KEY REFERENCES automation_composition (instance_id) ON DELETE CASCADE,
        composition_id uuid NOT NULL,
        elements jsonb NOT NULL,
        created_at timestamptz NOT NULL
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE automation_composition_rollback`);
  }
}
