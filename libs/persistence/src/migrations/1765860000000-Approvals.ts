import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Orders waiting for approvals: each a jsonb document, with the columns its queries use. The partial unique index
 * keeps an instance to one PENDING approval even when two orders arrive at once.
 */
export class Approvals1765860000000 implements MigrationInterface {
  name = 'Approvals1765860000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE acm_approval (
        approval_id uuid PRIMARY KEY,
        instance_id uuid NOT NULL,
        project text NOT NULL,
        state text NOT NULL,
        version integer NOT NULL,
        ordered_at bigint NOT NULL,
        body jsonb NOT NULL
      )`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX acm_approval_one_pending ON acm_approval (instance_id) WHERE state = 'PENDING'`,
    );
    await queryRunner.query(`CREATE INDEX acm_approval_ordered ON acm_approval (ordered_at DESC)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE acm_approval`);
  }
}
