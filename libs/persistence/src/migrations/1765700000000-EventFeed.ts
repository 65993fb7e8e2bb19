import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One event feed across replicas, and the subscriptions it delivers to.
 *
 * `acm_event.sequence` is a bigserial: taken at insert, so two concurrent transactions can commit in the opposite
 * order of their sequences, and a reader following `sequence > last` would skip the row that commits late. The feed
 * position is therefore given after commit: a stamper (any replica, one at a time: it holds the row lock of
 * `acm_event_feed_head` until it commits) numbers the committed rows that have none, from the head on. A row committed
 * later is stamped by a later stamper, with higher positions, so a reader following `feed_position > last` never
 * misses one and never sees one twice; rows retention deletes leave holes the reader steps over.
 *
 * An insert into `acm_event` notifies the channel `acm_event_feed` (payload: the schema), so the replicas listening
 * stamp and read at once instead of at their next poll.
 */
export class EventFeed1765700000000 implements MigrationInterface {
  name = 'EventFeed1765700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE acm_event ADD COLUMN feed_position bigint NULL`);
    await queryRunner.query(`CREATE UNIQUE INDEX acm_event_feed ON acm_event (feed_position)`);
    await queryRunner.query(`CREATE INDEX acm_event_unstamped ON acm_event (sequence) WHERE feed_position IS NULL`);
    await queryRunner.query(`CREATE TABLE acm_event_feed_head (one boolean PRIMARY KEY, position bigint NOT NULL)`);
    // Events written before the feed existed are history, not news: they start the feed stamped in sequence order.
    await queryRunner.query(`UPDATE acm_event SET feed_position = sequence`);
    await queryRunner.query(
      `INSERT INTO acm_event_feed_head (one, position) SELECT true, COALESCE(MAX(sequence), 0) FROM acm_event`,
    );
    await queryRunner.query(`
      CREATE FUNCTION acm_event_written() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('acm_event_feed', current_schema());
        RETURN NULL;
      END $$`);
    await queryRunner.query(
      `CREATE TRIGGER acm_event_written AFTER INSERT ON acm_event FOR EACH STATEMENT EXECUTE FUNCTION acm_event_written()`,
    );
    await queryRunner.query(`
      CREATE TABLE acm_subscription (
        subscription_id uuid PRIMARY KEY,
        created_at bigint NOT NULL,
        body jsonb NOT NULL,
        secret text NULL,
        delivery jsonb NOT NULL,
        next_attempt_at bigint NOT NULL,
        lease_owner text NULL,
        lease_until bigint NULL
      )`);
    await queryRunner.query(`CREATE INDEX acm_subscription_due ON acm_subscription (next_attempt_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE acm_subscription`);
    await queryRunner.query(`DROP TRIGGER acm_event_written ON acm_event`);
    await queryRunner.query(`DROP FUNCTION acm_event_written()`);
    await queryRunner.query(`DROP TABLE acm_event_feed_head`);
    await queryRunner.query(`DROP INDEX acm_event_unstamped`);
    await queryRunner.query(`DROP INDEX acm_event_feed`);
    await queryRunner.query(`ALTER TABLE acm_event DROP COLUMN feed_position`);
  }
}
