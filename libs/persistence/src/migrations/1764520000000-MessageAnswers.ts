import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Which replica of which participant answered each phase message, so a lost replica's work is handed
 * over only when nobody alive took it; and the participants whose replicas are being asked for a STATUS
 * because a new replica registered (the others that do not answer are silent).
 */
export class MessageAnswers1764520000000 implements MigrationInterface {
  name = 'MessageAnswers1764520000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE acm_message_answer (
        message_id uuid NOT NULL REFERENCES acm_operation_message (message_id) ON DELETE CASCADE,
        participant_id text NOT NULL,
        replica_id text NOT NULL,
        PRIMARY KEY (message_id, participant_id, replica_id)
      )`);
    await queryRunner.query(`CREATE INDEX acm_message_answer_replica ON acm_message_answer (replica_id)`);
    await queryRunner.query(`
      CREATE TABLE acm_participant_probe (
        participant_id text PRIMARY KEY,
        probed_at timestamptz NOT NULL
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE acm_participant_probe`);
    await queryRunner.query(`DROP TABLE acm_message_answer`);
  }
}
