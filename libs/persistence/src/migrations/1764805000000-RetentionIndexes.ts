import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Retention: history events that belong to no operation (property problems reported outside an order) are pruned by
 * age through this partial index; it holds only those rare rows, so the hot insert path of the other events pays
 * nothing for it. Every other pruning query runs on indexes that already exist (operations by target, messages by
 * operation, answers by message, events by subject).
 */
export class RetentionIndexes1764805000000 implements MigrationInterface {
  name = 'RetentionIndexes1764805000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX acm_event_loose_at ON acm_event (at) WHERE operation_id IS NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX acm_event_loose_at`);
  }
}
