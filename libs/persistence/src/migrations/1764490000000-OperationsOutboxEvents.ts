import type { MigrationInterface, QueryRunner } from 'typeorm';

export class OperationsOutboxEvents1764490000000 implements MigrationInterface {
  name = 'OperationsOutboxEvents1764490000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE acm_operation (
        operation_id uuid PRIMARY KEY,
        target_kind text NOT NULL,
        target_id uuid NOT NULL,
        order_name text NOT NULL,
        state text NOT NULL,
        timed_out boolean NOT NULL DEFAULT false,
        phase integer,
        started_at timestamptz NOT NULL,
        deadline_at timestamptz NOT NULL,
        finished_at timestamptz
      )`);
    // Supervision reads only in-flight operations, through this partial index.
    await queryRunner.query(
      `CREATE INDEX acm_operation_running ON acm_operation (deadline_at) WHERE state = 'RUNNING' AND NOT timed_out`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX acm_operation_one_running ON acm_operation (target_id) WHERE state = 'RUNNING'`,
    );
    await queryRunner.query(`CREATE INDEX acm_operation_target ON acm_operation (target_id, started_at DESC)`);
    await queryRunner.query(`
      CREATE TABLE acm_operation_message (
        message_id uuid PRIMARY KEY,
        operation_id uuid NOT NULL REFERENCES acm_operation (operation_id) ON DELETE CASCADE,
        phase integer
      )`);
    await queryRunner.query(`CREATE INDEX acm_operation_message_operation ON acm_operation_message (operation_id)`);
    await queryRunner.query(`
      CREATE TABLE acm_outbox (
        id bigserial PRIMARY KEY,
        topic text NOT NULL,
        message_key text,
        payload text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE acm_event (
        sequence bigserial PRIMARY KEY,
        subject_id uuid NOT NULL,
        operation_id uuid,
        event text NOT NULL,
        detail jsonb NOT NULL,
        at timestamptz NOT NULL
      )`);
    await queryRunner.query(`CREATE INDEX acm_event_subject ON acm_event (subject_id, sequence)`);
    await queryRunner.query(
      `CREATE INDEX participant_replica_last_msg ON participant_replica (last_msg) WHERE participant_state = 'ON_LINE'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX participant_replica_last_msg`);
    await queryRunner.query(`DROP TABLE acm_event`);
    await queryRunner.query(`DROP TABLE acm_outbox`);
    await queryRunner.query(`DROP TABLE acm_operation_message`);
    await queryRunner.query(`DROP TABLE acm_operation`);
  }
}
