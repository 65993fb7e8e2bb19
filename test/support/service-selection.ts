/**
 * Which test services the integration, e2e and conformance suites use (docs/services.md):
 * - `scripts` (default): the local processes of scripts/services-up.sh, found by testDatabaseUrl() and
 *   testKafkaBrokers();
 * - `containers`: PostgreSQL and Kafka in throwaway containers started by testcontainers, for machines with a
 *   Docker engine and without the scripts' packages.
 */
export type TestServices = 'scripts' | 'containers';

export const TEST_SERVICES_VARIABLE = 'ACM_TEST_SERVICES';

/** The images the containers run: the PostgreSQL major and Kafka version the scripts run. */
export const POSTGRES_IMAGE = 'postgres:15';
export const DEFAULT_KAFKA_VERSION = '4.4.0';

type Env = Readonly<Record<string, string | undefined>>;

export function selectTestServices(env: Env): TestServices {
  const value = (env[TEST_SERVICES_VARIABLE] ?? '').trim().toLowerCase();
  if (value === '' || value === 'scripts') {
    return 'scripts';
  }
  if (value === 'containers') {
    return 'containers';
  }
  throw new Error(`${TEST_SERVICES_VARIABLE}: must be scripts or containers, got "${env[TEST_SERVICES_VARIABLE]}"`);
}

/**
 * Whether the global setup must start containers: only when selected and when the run has not already been
 * pointed at services (TEST_DATABASE_URL / TEST_KAFKA_BOOTSTRAP_SERVERS set by hand or by an earlier setup).
 */
export function containersToStart(env: Env): { postgres: boolean; kafka: boolean } {
  if (selectTestServices(env) !== 'containers') {
    return { postgres: false, kafka: false };
  }
  return { postgres: !env['TEST_DATABASE_URL'], kafka: !env['TEST_KAFKA_BOOTSTRAP_SERVERS'] };
}

export function kafkaImage(env: Env): string {
  return `apache/kafka:${env['ACM_KAFKA_VERSION']?.trim() || DEFAULT_KAFKA_VERSION}`;
}
