import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Rollouts gained states that are not finished (WAITING_PROMOTION after a canary batch, ROLLING_BACK): the index of
 * unfinished rollouts the sweep reads now names the finished states it leaves out, so a new unfinished state needs
 * no new migration.
 */
export class RolloutStates1765600000000 implements MigrationInterface {
  name = 'RolloutStates1765600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX acm_rollout_unfinished`);
    await queryRunner.query(
      `CREATE INDEX acm_rollout_unfinished ON acm_rollout (created_at, rollout_id)
       WHERE state NOT IN ('COMPLETED', 'FAILED', 'CANCELLED')`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX acm_rollout_unfinished`);
    await queryRunner.query(
      `CREATE INDEX acm_rollout_unfinished ON acm_rollout (created_at, rollout_id) WHERE state IN ('RUNNING', 'PAUSED')`,
    );
  }
}
