import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The runtime-wide parallelism limit (MAX_PARALLEL_ELEMENTS): each running operation keeps how many of its elements
 * are in flight and what it waits for a slot to send, so the slots in use are one sum over the running operations
 * (shared by every replica on the database) and waiting operations are found in the order they take their turn.
 * Existing operations count nothing and wait for nothing, as they ran before the limit was kept.
 */
export class ParallelSlots1764700000000 implements MigrationInterface {
  name = 'ParallelSlots1764700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE acm_operation
        ADD COLUMN in_flight integer NOT NULL DEFAULT 0,
        ADD COLUMN slot_wait text NULL`);
    await queryRunner.query(
      `CREATE INDEX acm_operation_slot_wait ON acm_operation (started_at, operation_id)
       WHERE state = 'RUNNING' AND slot_wait IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX acm_operation_slot_wait`);
    await queryRunner.query(`ALTER TABLE acm_operation DROP COLUMN in_flight, DROP COLUMN slot_wait`);
  }
}
