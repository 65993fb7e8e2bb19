import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Retention: the events of the operations a prune removes are found by operation (through the subject's index a
 * prune read every event of each subject it touched: 0.7 s for 200 operations of 200 subjects in a 600,000-row
 * table, 2 ms a batch with this index); events that belong to no operation (property problems reported outside an
 * order) are pruned by age through a partial index that holds only those rare rows. The other pruning queries run on
 * indexes that already exist (operations by target, messages by operation, answers by message).
 */
export class RetentionIndexes1764805000000 implements MigrationInterface {
  name = 'RetentionIndexes1764805000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX acm_event_operation ON acm_event (operation_id) WHERE operation_id IS NOT NULL`,
    );
    await queryRunner.query(`CREATE INDEX acm_event_loose_at ON acm_event (at) WHERE operation_id IS NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX acm_event_loose_at`);
    await queryRunner.query(`DROP INDEX acm_event_operation`);
  }
}
