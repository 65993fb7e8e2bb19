import { KAFKA_SECURITY_VARIABLES, TRACING_VARIABLES } from '@acm/messaging';
import { DEFAULTS } from './runtime.config';

/**
 * The environment variables each process reads, for the checks of the deployment files (docker-compose.yml,
 * the Helm chart): a variable the code does not read is a setting that silently does nothing.
 */
export const RUNTIME_VARIABLES: ReadonlySet<string> = new Set([
  ...Object.keys(DEFAULTS),
  // Read without a default.
  'DATABASE_URL',
  'DATABASE_SCHEMA',
  'KAFKA_BOOTSTRAP_SERVERS',
  'MSG_ENCRYPTION_KEY',
  'SIGNAL_KEY',
  ...KAFKA_SECURITY_VARIABLES,
  'MAX_PARALLEL_ELEMENTS',
  'LOG_FORMAT',
  ...TRACING_VARIABLES,
]);

export const SIMULATOR_VARIABLES: ReadonlySet<string> = new Set([
  'SIM_PORT',
  'SIM_HOST',
  'SIM_USER',
  'SIM_PASSWORD',
  'PARTICIPANT_ID',
  'PARTICIPANT_SUPPORTED_ELEMENT_TYPES',
  'KAFKA_BOOTSTRAP_SERVERS',
  'OPERATION_TOPIC',
  'SYNC_TOPIC',
  'PARTICIPANT_GROUP_ID',
  'HEARTBEAT_MS',
  'SIM_TIMERS_MS',
  'SIM_FAIL_OPERATIONS',
  ...KAFKA_SECURITY_VARIABLES,
  ...TRACING_VARIABLES,
]);
