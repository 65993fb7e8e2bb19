import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Who caused each history event (`acm_event.actor`, the history union's Actor as jsonb): a request's principal and
 * request id, a participant, or the runtime's rule. Rows written before say so (`{"kind": "unrecorded"}`); the column
 * then has no default, so every new row must name its actor.
 */
export class EventActor1764716000000 implements MigrationInterface {
  name = 'EventActor1764716000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE acm_event ADD COLUMN actor jsonb NOT NULL DEFAULT '{"kind":"unrecorded"}'`);
    await queryRunner.query(`ALTER TABLE acm_event ALTER COLUMN actor DROP DEFAULT`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE acm_event DROP COLUMN actor`);
  }
}
