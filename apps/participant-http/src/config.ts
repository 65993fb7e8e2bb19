/**
 * The HTTP participant process's configuration, read once from environment variables (docs/participant-http.md).
 * The defaults are ONAP's http participant's (application.yaml of participant-impl-http): its participant id,
 * consumer group, port 6969, the health route's Basic credentials. An invalid value stops the start-up with a
 * message that names the variable.
 */
import { DEFAULT_TOPICS } from '@acm/contracts';
import type { ParticipantTopics } from '@acm/contracts';
import { MIN_SIGNING_SECRET_LENGTH, readKafkaSecurity, readTracingSettings } from '@acm/messaging';
import type { KafkaSecurity, RecordSigningKey, TracingSettings } from '@acm/messaging';

import { HTTP_PARTICIPANT_GROUP, HTTP_PARTICIPANT_ID } from './http-element-handler';

/** ONAP's `spring.security.user` of the http participant (`HTTP_USER` / `HTTP_PASSWORD`). */
export const DEFAULT_HTTP_USER = 'participantUser';
export const DEFAULT_HTTP_PASSWORD = 'zb!XztG34';
/** ONAP's servlet context path; the health route is `<context>/health`. */
export const HTTP_CONTEXT_PATH = '/onap/policy/clamp/acm/httpparticipant';
export const HTTP_SERVICE_NAME = 'acm-participant-http';

export interface HttpParticipantConfig {
  readonly port: number;
  readonly host: string;
  readonly participantId: string;
  readonly groupId: string;
  readonly kafkaBrokers: string[];
  readonly kafkaSecurity: KafkaSecurity;
  readonly topics: ParticipantTopics;
  readonly heartbeatMs?: number;
  readonly tracing: TracingSettings | null;
  readonly user: string;
  readonly password: string;
  /** HTTP_SECRETS_DIR: the only directory `httpHeadersFrom` and `tls` files are read from. */
  readonly secretsDir?: string;
  readonly signing?: RecordSigningKey;
}

type Env = Record<string, string | undefined>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function text(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function integer(env: Env, name: string, min: number, max: number): number | undefined {
  const value = text(env, name);
  if (value === undefined) {
    return undefined;
  }
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
    throw new Error(`${name}: expected an integer from ${min} to ${max}, got "${value}"`);
  }
  return parsed;
}

export function loadHttpParticipantConfig(env: Env = process.env): HttpParticipantConfig {
  const participantId = text(env, 'PARTICIPANT_ID') ?? HTTP_PARTICIPANT_ID;
  if (!UUID.test(participantId)) {
    throw new Error(`PARTICIPANT_ID: expected a UUID, got "${participantId}"`);
  }
  const kafka = readKafkaSecurity(env);
  const tracing = readTracingSettings(env, HTTP_SERVICE_NAME);
  const problems = [...kafka.problems, ...tracing.problems];
  if (problems.length > 0) {
    throw new Error(`Invalid environment variables:\n  ${problems.join('\n  ')}`);
  }
  const principal = text(env, 'PARTICIPANT_PRINCIPAL');
  const secret = env['PARTICIPANT_SIGNING_SECRET'];
  if ((principal === undefined) !== (secret === undefined || secret === '')) {
    throw new Error('PARTICIPANT_PRINCIPAL and PARTICIPANT_SIGNING_SECRET: set both to sign records, or neither');
  }
  if (secret !== undefined && secret !== '' && secret.length < MIN_SIGNING_SECRET_LENGTH) {
    throw new Error(`PARTICIPANT_SIGNING_SECRET: must hold at least ${MIN_SIGNING_SECRET_LENGTH} characters`);
  }
  const heartbeatMs = integer(env, 'HEARTBEAT_MS', 1, 2_147_483_647);
  const secretsDir = text(env, 'HTTP_SECRETS_DIR');
  return {
    port: integer(env, 'HTTP_PORT', 0, 65535) ?? 6969,
    host: text(env, 'HTTP_HOST') ?? '0.0.0.0',
    participantId,
    groupId: text(env, 'PARTICIPANT_GROUP_ID') ?? HTTP_PARTICIPANT_GROUP,
    kafkaBrokers: (text(env, 'KAFKA_BOOTSTRAP_SERVERS') ?? '127.0.0.1:9092')
      .split(',')
      .map((broker) => broker.trim())
      .filter((broker) => broker !== ''),
    kafkaSecurity: kafka.security,
    topics: {
      operation: text(env, 'OPERATION_TOPIC') ?? DEFAULT_TOPICS.operation,
      sync: text(env, 'SYNC_TOPIC') ?? DEFAULT_TOPICS.sync,
    },
    tracing: tracing.settings,
    user: text(env, 'HTTP_USER') ?? DEFAULT_HTTP_USER,
    password: env['HTTP_PASSWORD'] ?? DEFAULT_HTTP_PASSWORD,
    ...(heartbeatMs === undefined ? {} : { heartbeatMs }),
    ...(secretsDir === undefined ? {} : { secretsDir }),
    ...(principal !== undefined && secret !== undefined ? { signing: { principal, secret } } : {}),
  };
}
