import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The audit ledger reads events across subjects in (time, sequence) order, whole or by actor ("what did this user
 * do between two times"): an index on (at, sequence), and one on the actor's name (the text of `TypeOrmAuditLedger`'s
 * expression, which must stay identical for PostgreSQL to use it) then time. A query by instance reads the subject's
 * index, which already exists.
 */
export class AuditIndexes1764900000000 implements MigrationInterface {
  name = 'AuditIndexes1764900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX acm_event_at ON acm_event (at, sequence)`);
    await queryRunner.query(
      `CREATE INDEX acm_event_actor_at ON acm_event ((CASE actor->>'kind' WHEN 'request' THEN actor->>'user' WHEN 'participant' THEN actor->>'participantId' WHEN 'runtime' THEN 'runtime' END), at, sequence)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX acm_event_actor_at`);
    await queryRunner.query(`DROP INDEX acm_event_at`);
  }
}
