/**
 * The simulator process's configuration, read once from environment variables (all documented in
 * docs/participant-sdk.md). Invalid values stop the start-up with a message that names the variable.
 */
import type { Environment, ParticipantEnvironment, SupportedElementType } from '@acm/participant-sdk';
import { envInteger, envText, readParticipantEnvironment } from '@acm/participant-sdk';

import { DEFAULT_SIM_PASSWORD, DEFAULT_SIM_USER } from './control-api';
import { parseFailOperations } from './sim-config';
import type { SimOperation } from './sim-config';
import { DEFAULT_SIM_ELEMENT_TYPES, DEFAULT_SIM_PARTICIPANT_ID } from './simulator';

/** The settings every participant reads (id, Kafka, topics, tracing, heartbeat, signing), and the simulator's. */
export interface SimulatorProcessConfig extends ParticipantEnvironment {
  readonly port: number;
  readonly host: string;
  readonly supportedElementTypes: SupportedElementType[];
  readonly groupId?: string;
  readonly timersMs?: number;
  readonly failOperations: SimOperation[];
  readonly user: string;
  readonly password: string;
  /** SIM_OBSERVE=true: observe every deployed element (the simulator's `observeAll`). */
  readonly observeAll: boolean;
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

export function loadSimulatorConfig(env: Environment = process.env): SimulatorProcessConfig {
  const common = readParticipantEnvironment(env, {
    participantId: DEFAULT_SIM_PARTICIPANT_ID,
    serviceName: 'acm-participant-simulator',
  });
  const types = envText(env, 'PARTICIPANT_SUPPORTED_ELEMENT_TYPES');
  const supportedElementTypes =
    types === undefined ? [...DEFAULT_SIM_ELEMENT_TYPES] : parseSupportedElementTypes(types);
  if (supportedElementTypes.length === 0) {
    throw new Error('PARTICIPANT_SUPPORTED_ELEMENT_TYPES: at least one "type:version" is required');
  }
  const groupId = envText(env, 'PARTICIPANT_GROUP_ID');
  const timersMs = envInteger(env, 'SIM_TIMERS_MS', 0, 2_147_483_647);
  return {
    ...common,
    port: envInteger(env, 'SIM_PORT', 0, 65535) ?? 8085,
    host: envText(env, 'SIM_HOST') ?? '0.0.0.0',
    supportedElementTypes,
    failOperations: parseFailOperations(envText(env, 'SIM_FAIL_OPERATIONS')),
    user: envText(env, 'SIM_USER') ?? DEFAULT_SIM_USER,
    password: env['SIM_PASSWORD'] ?? DEFAULT_SIM_PASSWORD,
    observeAll: envText(env, 'SIM_OBSERVE') === 'true',
    ...(groupId === undefined ? {} : { groupId }),
    ...(timersMs === undefined ? {} : { timersMs }),
  };
}
