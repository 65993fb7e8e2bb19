import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The elements a heal re-applies (a DEPLOY the runtime started under `drift: correct`), stored with its operation so
 * its completion records HEALED, after a restart too. NULL: not a heal (every operation written before).
 */
export class OperationHeal1765850000000 implements MigrationInterface {
  name = 'OperationHeal1765850000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE acm_operation ADD COLUMN heal jsonb NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE acm_operation DROP COLUMN heal`);
  }
}
