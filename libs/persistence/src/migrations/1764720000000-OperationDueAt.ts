import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Timers that fire on time: each running operation keeps when supervision must next look at it (a deadline, a
 * resend, a retry, a no-progress report), so the runtime arms a timer for the earliest one, and another replica or a
 * restarted runtime finds it with one indexed read. Operations running before get "now": the first timer pass
 * decides them and stores their real due times.
 */
export class OperationDueAt1764720000000 implements MigrationInterface {
  name = 'OperationDueAt1764720000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE acm_operation ADD COLUMN due_at timestamptz NULL`);
    await queryRunner.query(`UPDATE acm_operation SET due_at = now() WHERE state = 'RUNNING'`);
    await queryRunner.query(
      `CREATE INDEX acm_operation_due ON acm_operation (due_at, operation_id)
       WHERE state = 'RUNNING' AND due_at IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX acm_operation_due`);
    await queryRunner.query(`ALTER TABLE acm_operation DROP COLUMN due_at`);
  }
}
