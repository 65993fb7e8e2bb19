import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The elements of its phase each message set going. With a parallelism limit, or dependencies, a phase goes
 * out in several messages; what is in flight, and what a hand-over must describe again, is read from here.
 * Null for messages written before this column (they described their whole phase).
 */
export class MessageElements1764530000000 implements MigrationInterface {
  name = 'MessageElements1764530000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE acm_operation_message ADD COLUMN element_ids jsonb NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE acm_operation_message DROP COLUMN element_ids`);
  }
}
