import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Rollouts: one order given to many instances in batches. The rollout (its rules' record and the driver's tracking)
 * is one jsonb document, written whole by the one driver holding its lease (`driver_id`, `lease_until`). The claims
 * table holds each instance of an unfinished rollout once, so two rollouts can never select the same instance, on
 * any number of replicas: the primary key refuses the second claim.
 */
export class Rollouts1765500000000 implements MigrationInterface {
  name = 'Rollouts1765500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE acm_rollout (
        rollout_id uuid PRIMARY KEY,
        state text NOT NULL,
        created_at bigint NOT NULL,
        body jsonb NOT NULL,
        driver_id text NULL,
        lease_until bigint NULL
      )`);
    await queryRunner.query(
      `CREATE INDEX acm_rollout_unfinished ON acm_rollout (created_at, rollout_id) WHERE state IN ('RUNNING', 'PAUSED')`,
    );
    await queryRunner.query(`
      CREATE TABLE acm_rollout_claim (
        instance_id uuid PRIMARY KEY,
        rollout_id uuid NOT NULL REFERENCES acm_rollout (rollout_id) ON DELETE CASCADE
      )`);
    await queryRunner.query(`CREATE INDEX acm_rollout_claim_rollout ON acm_rollout_claim (rollout_id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE acm_rollout_claim`);
    await queryRunner.query(`DROP TABLE acm_rollout`);
  }
}
