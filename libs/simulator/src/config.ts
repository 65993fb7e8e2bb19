/**
 * The simulator process's configuration, read once from environment variables (all documented in
 * docs/participant-sdk.md). Invalid values stop the start-up with a message that names the variable.
 */
import { DEFAULT_TOPICS } from '@acm/contracts';
import { MIN_SIGNING_SECRET_LENGTH, readKafkaSecurity, readTracingSettings } from '@acm/messaging';
import type { KafkaSecurity, RecordSigningKey, TracingSettings } from '@acm/messaging';
import type { ParticipantTopics } from '@acm/contracts';
import type { SupportedElementType } from '@acm/participant-sdk';

import { DEFAULT_SIM_PASSWORD, DEFAULT_SIM_USER } from './control-api';
import { parseFailOperations } from './sim-config';
import type { SimOperation } from './sim-config';
import { DEFAULT_SIM_ELEMENT_TYPES, DEFAULT_SIM_PARTICIPANT_ID } from './simulator';

export interface SimulatorProcessConfig {
  port: number;
  host: string;
  participantId: string;
  supportedElementTypes: SupportedElementType[];
  kafkaBrokers: string[];
  /** KAFKA_SECURITY_PROTOCOL, KAFKA_SASL_*, KAFKA_SSL_*: as the runtime reads them (docs/messaging.md). */
  kafkaSecurity: KafkaSecurity;
  topics: ParticipantTopics;
  groupId?: string;
  heartbeatMs?: number;
  timersMs?: number;
  failOperations: SimOperation[];
  /** OTEL_*: OpenTelemetry tracing as the runtime reads it (service name acm-participant-simulator); null when off. */
  tracing: TracingSettings | null;
  user: string;
  password: string;
  /** PARTICIPANT_PRINCIPAL and PARTICIPANT_SIGNING_SECRET: sign every record sent (docs/messaging.md); absent: unsigned. */
  signing?: RecordSigningKey;
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

/** Parses `type:version[,type:version…]`. The version follows the last colon. */
export function parseSupportedElementTypes(value: string): SupportedElementType[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')
    .map((item) => {
      const colon = item.lastIndexOf(':');
      if (colon <= 0 || colon === item.length - 1) {
        throw new Error(`PARTICIPANT_SUPPORTED_ELEMENT_TYPES: expected "type:version", got "${item}"`);
      }
      return { typeName: item.slice(0, colon), typeVersion: item.slice(colon + 1) };
    });
}

export function loadSimulatorConfig(env: Env = process.env): SimulatorProcessConfig {
  const participantId = text(env, 'PARTICIPANT_ID') ?? DEFAULT_SIM_PARTICIPANT_ID;
  if (!UUID.test(participantId)) {
    throw new Error(`PARTICIPANT_ID: expected a UUID, got "${participantId}"`);
  }
  const types = text(env, 'PARTICIPANT_SUPPORTED_ELEMENT_TYPES');
  const supportedElementTypes =
    types === undefined ? [...DEFAULT_SIM_ELEMENT_TYPES] : parseSupportedElementTypes(types);
  if (supportedElementTypes.length === 0) {
    throw new Error('PARTICIPANT_SUPPORTED_ELEMENT_TYPES: at least one "type:version" is required');
  }
  const kafka = readKafkaSecurity(env);
  const tracing = readTracingSettings(env, 'acm-participant-simulator');
  const problems = [...kafka.problems, ...tracing.problems];
  if (problems.length > 0) {
    throw new Error(`Invalid environment variables:\n  ${problems.join('\n  ')}`);
  }
  const config: SimulatorProcessConfig = {
    port: integer(env, 'SIM_PORT', 0, 65535) ?? 8085,
    host: text(env, 'SIM_HOST') ?? '0.0.0.0',
    participantId,
    supportedElementTypes,
    kafkaBrokers: (text(env, 'KAFKA_BOOTSTRAP_SERVERS') ?? '127.0.0.1:9092')
      .split(',')
      .map((broker) => broker.trim())
      .filter((broker) => broker !== ''),
    kafkaSecurity: kafka.security,
    topics: {
      operation: text(env, 'OPERATION_TOPIC') ?? DEFAULT_TOPICS.operation,
      sync: text(env, 'SYNC_TOPIC') ?? DEFAULT_TOPICS.sync,
    },
    failOperations: parseFailOperations(text(env, 'SIM_FAIL_OPERATIONS')),
    tracing: tracing.settings,
    user: text(env, 'SIM_USER') ?? DEFAULT_SIM_USER,
    password: env['SIM_PASSWORD'] ?? DEFAULT_SIM_PASSWORD,
  };
  const groupId = text(env, 'PARTICIPANT_GROUP_ID');
  if (groupId !== undefined) {
    config.groupId = groupId;
  }
  const heartbeatMs = integer(env, 'HEARTBEAT_MS', 1, 2_147_483_647);
  if (heartbeatMs !== undefined) {
    config.heartbeatMs = heartbeatMs;
  }
  const principal = text(env, 'PARTICIPANT_PRINCIPAL');
  const secret = env['PARTICIPANT_SIGNING_SECRET'];
  if ((principal === undefined) !== (secret === undefined || secret === '')) {
    throw new Error('PARTICIPANT_PRINCIPAL and PARTICIPANT_SIGNING_SECRET: set both to sign records, or neither');
  }
  if (principal !== undefined && secret !== undefined) {
    if (secret.length < MIN_SIGNING_SECRET_LENGTH) {
      throw new Error(`PARTICIPANT_SIGNING_SECRET: must hold at least ${MIN_SIGNING_SECRET_LENGTH} characters`);
    }
    config.signing = { principal, secret };
  }
  const timersMs = integer(env, 'SIM_TIMERS_MS', 0, 2_147_483_647);
  if (timersMs !== undefined) {
    config.timersMs = timersMs;
  }
  return config;
}
