import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A rollout's own history, one row per event, appended in the transaction that saves the step it records: the
 * rollout's document is not rewritten with a history that grows with the fleet.
 */
export class RolloutEvents1765600001000 implements MigrationInterface {
  name = 'RolloutEvents1765600001000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE acm_rollout_event (
        sequence bigserial PRIMARY KEY,
        rollout_id uuid NOT NULL REFERENCES acm_rollout (rollout_id) ON DELETE CASCADE,
        body jsonb NOT NULL
      )`);
    await queryRunner.query(`CREATE INDEX acm_rollout_event_rollout ON acm_rollout_event (rollout_id, sequence)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE acm_rollout_event`);
  }
}
