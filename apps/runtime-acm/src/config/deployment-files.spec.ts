import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { loadSimulatorConfig } from '@acm/simulator';
import { DEFAULTS, loadRuntimeConfig } from './runtime.config';

const ROOT = join(__dirname, '..', '..', '..', '..');

interface ComposeService {
  command?: string[];
  environment?: Record<string, string | number>;
}

const compose = load(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8')) as {
  services: Record<string, ComposeService>;
};

function environmentOf(name: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(compose.services[name]?.environment ?? {}).map(([key, value]) => [key, String(value)]),
  );
}

/** Variables the runtime reads besides those with defaults. */
const RUNTIME_OPTIONAL = ['DATABASE_URL', 'DATABASE_SCHEMA', 'KAFKA_BOOTSTRAP_SERVERS', 'MSG_ENCRYPTION_KEY'];
const SIMULATOR_VARIABLES = [
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
];

describe('docker-compose.yml', () => {
  it('gives the runtime only variables it reads, with values it accepts', () => {
    const env = environmentOf('runtime');
    const known = new Set([...Object.keys(DEFAULTS), ...RUNTIME_OPTIONAL]);
    expect(Object.keys(env).filter((key) => !known.has(key))).toEqual([]);
    const config = loadRuntimeConfig(env);
    expect(config.kafkaBrokers).toEqual(['kafka:9092']);
    expect(config.databaseUrl).toBe('postgres://acm:acm@postgres:5432/acm');
    expect(config.simulator).toBe(false);
  });

  it('gives the simulator only variables it reads, with values it accepts', () => {
    const env = environmentOf('simulator');
    expect(Object.keys(env).filter((key) => !SIMULATOR_VARIABLES.includes(key))).toEqual([]);
    expect(loadSimulatorConfig(env).kafkaBrokers).toEqual(['kafka:9092']);
  });

  it('starts the built entry points', () => {
    expect(compose.services['runtime']?.command).toEqual(['node', 'dist/apps/runtime-acm/src/main.js']);
    expect(compose.services['simulator']?.command).toEqual(['node', 'dist/apps/participant-simulator/src/main.js']);
    for (const entry of ['apps/runtime-acm/src/main.ts', 'apps/participant-simulator/src/main.ts']) {
      expect(() => readFileSync(join(ROOT, entry))).not.toThrow();
    }
  });
});
