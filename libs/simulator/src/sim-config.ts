/**
 * The simulator's behaviour settings: ONAP's SimConfig, field for field (`GET|PUT /parameters`).
 * For each operation there is a success flag, a delay, and optionally the outProperties to report
 * on success.
 */
import type { PropertyMap } from '@acm/contracts';

/** The operations the simulator can delay or fail. Names used by `SIM_FAIL_OPERATIONS`. */
export const SIM_OPERATIONS = [
  'deploy',
  'undeploy',
  'lock',
  'unlock',
  'delete',
  'update',
  'migrate',
  'migratePrecheck',
  'prepare',
  'review',
  'prime',
  'deprime',
  'rollback',
] as const;
export type SimOperation = (typeof SIM_OPERATIONS)[number];

/** ONAP's names for the success flags: three of them do not end in "Success". */
export const SUCCESS_FLAGS = {
  deploy: 'deploySuccess',
  undeploy: 'undeploySuccess',
  lock: 'lockSuccess',
  unlock: 'unlockSuccess',
  delete: 'deleteSuccess',
  update: 'updateSuccess',
  migrate: 'migrateSuccess',
  migratePrecheck: 'migratePrecheck',
  prepare: 'prepare',
  review: 'review',
  prime: 'primeSuccess',
  deprime: 'deprimeSuccess',
  rollback: 'rollback',
} as const satisfies Record<SimOperation, string>;

type SuccessFlag = (typeof SUCCESS_FLAGS)[SimOperation];
type TimerField = `${SimOperation}TimerMs`;
type PropsField = `${Exclude<SimOperation, 'delete'>}Props`;

/** ONAP's SimConfig. */
export type SimConfig = Record<SuccessFlag, boolean> &
  Record<TimerField, number> &
  Partial<Record<PropsField, PropertyMap>>;

const timerField = (operation: SimOperation): TimerField => `${operation}TimerMs`;
const propsFields: PropsField[] = SIM_OPERATIONS.filter((operation) => operation !== 'delete').map(
  (operation) => `${operation}Props` as const,
);

/** ONAP's defaults: every operation succeeds; deploy and undeploy take 1000 ms, everything else 100 ms. */
export function defaultSimConfig(): SimConfig {
  const config = {} as SimConfig;
  for (const operation of SIM_OPERATIONS) {
    config[SUCCESS_FLAGS[operation]] = true;
    config[timerField(operation)] = operation === 'deploy' || operation === 'undeploy' ? 1000 : 100;
  }
  return config;
}

/** Options that change the start-up configuration (from `SIM_TIMERS_MS` and `SIM_FAIL_OPERATIONS`). */
export interface StartupConfigOptions {
  /** Used for every `*TimerMs` not given in `config`. */
  timersMs?: number;
  /** Operations whose success flag starts false. */
  failOperations?: readonly SimOperation[];
  /** Explicit fields; these win over the other two options. */
  config?: Partial<SimConfig>;
}

/** The configuration the simulator starts with. A `PUT /parameters` body that leaves a field out gets the start-up value of that field. */
export function startupSimConfig(options: StartupConfigOptions = {}): SimConfig {
  const config = defaultSimConfig();
  for (const operation of SIM_OPERATIONS) {
    if (options.timersMs !== undefined) {
      config[timerField(operation)] = options.timersMs;
    }
  }
  for (const operation of options.failOperations ?? []) {
    config[SUCCESS_FLAGS[operation]] = false;
  }
  return { ...config, ...options.config };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The outcome of {@link parseSimConfig}. */
export type SimConfigParseResult = { ok: true; config: SimConfig } | { ok: false; problems: string[] };

/**
 * Validates a `PUT /parameters` body. Like ONAP, the body replaces the whole configuration: a field it
 * leaves out gets the start-up value. Unknown fields are ignored, as Jackson ignores them. Wrongly typed
 * fields are refused, and every problem is listed.
 */
export function parseSimConfig(body: unknown, base: SimConfig): SimConfigParseResult {
  if (!isObject(body)) {
    return { ok: false, problems: ['body: must be a JSON object'] };
  }
  const config: SimConfig = { ...base };
  for (const field of propsFields) {
    delete config[field];
  }
  const problems: string[] = [];
  for (const operation of SIM_OPERATIONS) {
    const flag = SUCCESS_FLAGS[operation];
    const flagValue = body[flag];
    if (flagValue !== undefined && flagValue !== null) {
      if (typeof flagValue === 'boolean') {
        config[flag] = flagValue;
      } else {
        problems.push(`${flag}: must be a boolean`);
      }
    }
    const timer = timerField(operation);
    const timerValue = body[timer];
    if (timerValue !== undefined && timerValue !== null) {
      if (
        typeof timerValue === 'number' &&
        Number.isInteger(timerValue) &&
        timerValue >= 0 &&
        timerValue <= 2_147_483_647
      ) {
        config[timer] = timerValue;
      } else {
        problems.push(`${timer}: must be an integer from 0 to 2147483647`);
      }
    }
  }
  for (const field of propsFields) {
    const value = body[field];
    if (value !== undefined && value !== null) {
      if (isObject(value)) {
        config[field] = value;
      } else {
        problems.push(`${field}: must be an object`);
      }
    } else if (base[field] !== undefined && !(field in body)) {
      config[field] = base[field];
    }
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, config };
}

/** Parses `SIM_FAIL_OPERATIONS` (`deploy,undeploy`). Unknown names throw, so a typo is seen at start-up. */
export function parseFailOperations(text: string | undefined): SimOperation[] {
  if (text === undefined || text.trim() === '') {
    return [];
  }
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')
    .map((item) => {
      const operation = SIM_OPERATIONS.find((candidate) => candidate.toLowerCase() === item.toLowerCase());
      if (operation === undefined) {
        throw new Error(`SIM_FAIL_OPERATIONS: unknown operation "${item}" (use ${SIM_OPERATIONS.join(', ')})`);
      }
      return operation;
    });
}
