import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tracing across Kafka: each outbox row keeps the W3C trace context (`traceparent`, `tracestate`) of the transaction
 * that wrote it, so the relay sends it as record headers however late the row leaves. Null when tracing is off, and
 * for rows written before.
 */
export class OutboxTraceContext1764710000000 implements MigrationInterface {
  name = 'OutboxTraceContext1764710000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE acm_outbox ADD COLUMN trace_context jsonb`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE acm_outbox DROP COLUMN trace_context`);
  }
}
