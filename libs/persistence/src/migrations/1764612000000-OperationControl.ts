import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Control of running work: the clocks and counters supervision needs to resend a silent phase, retry
 * failed elements after a backoff and pause an operation without its pause counting against its deadline.
 * Existing operations get their start as their last progress and nothing resent, retried or paused.
 */
export class OperationControl1764612000000 implements MigrationInterface {
  name = 'OperationControl1764612000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE acm_operation
        ADD COLUMN progress_at timestamptz,
        ADD COLUMN resent integer NOT NULL DEFAULT 0,
        ADD COLUMN paused_at timestamptz,
        ADD COLUMN paused_ms bigint NOT NULL DEFAULT 0,
        ADD COLUMN retried integer NOT NULL DEFAULT 0,
        ADD COLUMN retry_at timestamptz`);
    await queryRunner.query(`UPDATE acm_operation SET progress_at = started_at`);
    await queryRunner.query(`ALTER TABLE acm_operation ALTER COLUMN progress_at SET NOT NULL`);
    // Supervision walks the running operations by their last progress.
    await queryRunner.query(
      `CREATE INDEX acm_operation_running_progress ON acm_operation (progress_at) WHERE state = 'RUNNING'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX acm_operation_running_progress`);
    await queryRunner.query(`
      ALTER TABLE acm_operation
        DROP COLUMN progress_at, DROP COLUMN resent, DROP COLUMN paused_at, DROP COLUMN paused_ms,
        DROP COLUMN retried, DROP COLUMN retry_at`);
  }
}
