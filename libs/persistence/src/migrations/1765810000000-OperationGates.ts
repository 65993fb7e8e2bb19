import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The health gates an operation waits on (element id → gate state: when the element answered DEPLOYED, since when its
 * condition holds, what it observed, when its participant was last asked for a report), stored with the operation so
 * a restarted runtime resumes each gate where it was. NULL: no gate waits (every operation written before).
 */
export class OperationGates1765810000000 implements MigrationInterface {
  name = 'OperationGates1765810000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE acm_operation ADD COLUMN gates jsonb NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE acm_operation DROP COLUMN gates`);
  }
}
