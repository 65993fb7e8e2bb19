/**
 * Where the integration/e2e tests find their services (started by `npm run services:up`,
 * see docs/services.md). Override with TEST_DATABASE_URL / TEST_KAFKA_BOOTSTRAP_SERVERS.
 */

/** PostgreSQL connection URL; default follows ACM_PG_PORT like scripts/services-up.sh. */
export function testDatabaseUrl(): string {
  const fromEnv = process.env.TEST_DATABASE_URL;
  if (fromEnv) {
    return fromEnv;
  }
  return `postgres://acm:acm@127.0.0.1:${process.env.ACM_PG_PORT ?? '55432'}/acm`;
}

/** Kafka bootstrap servers as a list, e.g. ['127.0.0.1:9092']; default follows ACM_KAFKA_PORT. */
export function testKafkaBrokers(): string[] {
  const raw = process.env.TEST_KAFKA_BOOTSTRAP_SERVERS || `127.0.0.1:${process.env.ACM_KAFKA_PORT ?? '9092'}`;
  return raw
    .split(',')
    .map((broker) => broker.trim())
    .filter((broker) => broker.length > 0);
}
