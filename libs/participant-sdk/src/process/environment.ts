/**
 * What every participant process reads from its environment the same way: its id, Kafka (brokers, security, topics),
 * tracing, the heartbeat and the record signing key. An invalid value throws an error that names the variable.
 */
import { DEFAULT_TOPICS } from '@acm/contracts';
import type { ParticipantTopics } from '@acm/contracts';
import { MIN_SIGNING_SECRET_LENGTH, readKafkaSecurity, readTracingSettings } from '@acm/messaging';
import type { KafkaSecurity, RecordSigningKey, TracingSettings } from '@acm/messaging';

/** Environment variables by name, as `process.env` holds them. */
export type Environment = Readonly<Record<string, string | undefined>>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A variable's value without its surrounding blanks; undefined when it is unset or blank.
 *
 * @publicApi Reads a participant process's own variables as the SDK reads the common ones.
 */
export function envText(env: Environment, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/**
 * A variable's whole number from `min` to `max`; undefined when it is unset or blank. Anything else (a sign, a
 * fraction, a number out of range) throws an error that names the variable, the range and the value.
 *
 * @publicApi Reads a participant process's own variables as the SDK reads the common ones.
 */
export function envInteger(env: Environment, name: string, min: number, max: number): number | undefined {
  const value = envText(env, name);
  if (value === undefined) {
    return undefined;
  }
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
    throw new Error(`${name}: expected an integer from ${min} to ${max}, got "${value}"`);
  }
  return parsed;
}

/** The settings every participant process reads the same way. */
export interface ParticipantEnvironment {
  /** PARTICIPANT_ID, a UUID. */
  readonly participantId: string;
  /** KAFKA_BOOTSTRAP_SERVERS, comma-separated (default 127.0.0.1:9092). */
  readonly kafkaBrokers: string[];
  /** KAFKA_SECURITY_PROTOCOL, KAFKA_SASL_*, KAFKA_SSL_*: as the runtime reads them (docs/messaging.md). */
  readonly kafkaSecurity: KafkaSecurity;
  /** OPERATION_TOPIC and SYNC_TOPIC (ONAP's topics by default). */
  readonly topics: ParticipantTopics;
  /** OTEL_*: OpenTelemetry tracing as the runtime reads it, under the process's service name; null when off. */
  readonly tracing: TracingSettings | null;
  /** HEARTBEAT_MS; absent: the SDK's default. */
  readonly heartbeatMs?: number;
  /** PARTICIPANT_PRINCIPAL and PARTICIPANT_SIGNING_SECRET, both or neither; absent: records go unsigned. */
  readonly signing?: RecordSigningKey;
}

/**
 * Reads the settings every participant process shares. Kafka's and tracing's problems are reported together, each
 * naming its variable.
 *
 * @publicApi The common part of a participant process's configuration.
 */
export function readParticipantEnvironment(
  env: Environment,
  defaults: { readonly participantId: string; readonly serviceName: string },
): ParticipantEnvironment {
  const participantId = envText(env, 'PARTICIPANT_ID') ?? defaults.participantId;
  if (!UUID.test(participantId)) {
    throw new Error(`PARTICIPANT_ID: expected a UUID, got "${participantId}"`);
  }
  const kafka = readKafkaSecurity(env);
  const tracing = readTracingSettings(env, defaults.serviceName);
  const problems = [...kafka.problems, ...tracing.problems];
  if (problems.length > 0) {
    throw new Error(`Invalid environment variables:\n  ${problems.join('\n  ')}`);
  }
  const principal = envText(env, 'PARTICIPANT_PRINCIPAL');
  const secret = env['PARTICIPANT_SIGNING_SECRET'];
  if ((principal === undefined) !== (secret === undefined || secret === '')) {
    throw new Error('PARTICIPANT_PRINCIPAL and PARTICIPANT_SIGNING_SECRET: set both to sign records, or neither');
  }
  if (secret !== undefined && secret !== '' && secret.length < MIN_SIGNING_SECRET_LENGTH) {
    throw new Error(`PARTICIPANT_SIGNING_SECRET: must hold at least ${MIN_SIGNING_SECRET_LENGTH} characters`);
  }
  const heartbeatMs = envInteger(env, 'HEARTBEAT_MS', 1, 2_147_483_647);
  return {
    participantId,
    kafkaBrokers: (envText(env, 'KAFKA_BOOTSTRAP_SERVERS') ?? '127.0.0.1:9092')
      .split(',')
      .map((broker) => broker.trim())
      .filter((broker) => broker !== ''),
    kafkaSecurity: kafka.security,
    topics: {
      operation: envText(env, 'OPERATION_TOPIC') ?? DEFAULT_TOPICS.operation,
      sync: envText(env, 'SYNC_TOPIC') ?? DEFAULT_TOPICS.sync,
    },
    tracing: tracing.settings,
    ...(heartbeatMs === undefined ? {} : { heartbeatMs }),
    ...(principal !== undefined && secret !== undefined ? { signing: { principal, secret } } : {}),
  };
}
