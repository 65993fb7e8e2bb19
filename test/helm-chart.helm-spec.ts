import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import { loadAll } from 'js-yaml';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { loadSimulatorConfig } from '@acm/simulator';
import { CONTEXT_PATH } from '../apps/runtime-acm/src/bootstrap';
import { HealthController } from '../apps/runtime-acm/src/http/health.controller';
import { RUNTIME_VARIABLES, SIMULATOR_VARIABLES } from '../apps/runtime-acm/src/config/deployment-variables';
import { loadRuntimeConfig } from '../apps/runtime-acm/src/config/runtime.config';
import { loadHttpParticipantConfig } from '../apps/participant-http/src/config';

/**
 * The Helm chart, rendered by a real helm (scripts/check-helm.sh builds it and sets ACM_HELM) and checked
 * against Kubernetes' schemas (kubernetes-models) and against what the processes read.
 */
const ROOT = join(__dirname, '..');
const CHART = join(ROOT, 'helm', 'acm-runtime');
const HELM = process.env['ACM_HELM'] ?? '';

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  [key: string]: unknown;
}

interface Container {
  name: string;
  command?: string[];
  env?: {
    name: string;
    value?: string;
    valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } };
  }[];
  volumeMounts?: { name: string; mountPath: string }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  securityContext?: Record<string, unknown>;
}

interface Probe {
  httpGet?: { path: string; port: string | number };
}

/** One constructor per kind the chart renders; a kind without one fails the test. */
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'apps/v1/Deployment': Deployment,
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'monitoring.coreos.com/v1/ServiceMonitor': ServiceMonitor,
};

function helm(args: string[]): string {
  return execFileSync(HELM, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function render(valuesFile: string, ...extra: string[]): Manifest[] {
  const text = helm(['template', 'acm', CHART, '--values', join(CHART, 'ci', valuesFile), ...extra]);
  return (loadAll(text) as (Manifest | null)[]).filter((doc): doc is Manifest => doc !== null);
}

function find(manifests: Manifest[], kind: string, name: string): Manifest {
  const found = manifests.find((manifest) => manifest.kind === kind && manifest.metadata.name === name);
  if (found === undefined) {
    throw new Error(`no ${kind} ${name} in ${manifests.map((m) => `${m.kind}/${m.metadata.name}`).join(', ')}`);
  }
  return found;
}

/**
 * Writes the Secret volumes `container` mounts into a temporary directory, as the kubelet would, and returns
 * the environment with each mount path replaced by its directory, so the processes' loaders read the files.
 */
function withMountedSecrets(
  manifests: Manifest[],
  deployment: Manifest,
  container: Container,
  env: Record<string, string>,
): Record<string, string> {
  const volumes = (
    deployment['spec'] as { template: { spec: { volumes?: { name: string; secret?: { secretName: string } }[] } } }
  ).template.spec.volumes;
  const root = mkdtempSync(join(tmpdir(), 'acm-helm-'));
  let result = { ...env };
  for (const mount of container.volumeMounts ?? []) {
    const secretName = volumes?.find((volume) => volume.name === mount.name)?.secret?.secretName;
    if (secretName === undefined) {
      continue;
    }
    const dir = join(root, mount.name);
    mkdirSync(dir);
    for (const [file, content] of Object.entries(find(manifests, 'Secret', secretName)['stringData'] as object)) {
      writeFileSync(join(dir, file), String(content));
    }
    result = Object.fromEntries(
      Object.entries(result).map(([name, value]) => [
        name,
        value.startsWith(`${mount.mountPath}/`) ? dir + value.slice(mount.mountPath.length) : value,
      ]),
    );
  }
  return result;
}

function containerOf(deployment: Manifest): Container {
  const spec = deployment['spec'] as { template: { spec: { containers: Container[] } } };
  const [container] = spec.template.spec.containers;
  if (container === undefined) {
    throw new Error(`${deployment.metadata.name} has no container`);
  }
  return container;
}

/** The environment a container gets, resolving envFrom and secretKeyRef against the rendered objects. */
function environmentOf(manifests: Manifest[], container: Container): Record<string, string> {
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    if (source.configMapRef) {
      Object.assign(env, find(manifests, 'ConfigMap', source.configMapRef.name)['data']);
    }
    if (source.secretRef) {
      Object.assign(env, find(manifests, 'Secret', source.secretRef.name)['stringData']);
    }
  }
  for (const variable of container.env ?? []) {
    const ref = variable.valueFrom?.secretKeyRef;
    const secretData = ref ? (find(manifests, 'Secret', ref.name)['stringData'] as Record<string, string>) : {};
    const value = ref ? secretData[ref.key] : variable.value;
    if (value === undefined && ref?.optional === true) {
      continue;
    }
    if (value === undefined) {
      throw new Error(`${variable.name} has no value`);
    }
    env[variable.name] = value;
  }
  return env;
}

/** The actuator paths the runtime serves, read from the controller's routes. */
function servedPaths(method: keyof HealthController): string[] {
  const paths = Reflect.getMetadata('path', HealthController.prototype[method]) as string | string[];
  return (Array.isArray(paths) ? paths : [paths]).map((path) => `/${CONTEXT_PATH}/${path}`);
}

function probePath(probe: Probe | undefined): string {
  if (probe?.httpGet === undefined) {
    throw new Error(`not an HTTP GET probe: ${JSON.stringify(probe)}`);
  }
  return probe.httpGet.path;
}

describe('helm/acm-runtime', () => {
  beforeAll(() => {
    if (HELM === '') {
      throw new Error('ACM_HELM is not set: run this suite with npm run check:helm');
    }
  });

  it('passes helm lint with every values file', () => {
    for (const values of ['minimal-values.yaml', 'full-values.yaml']) {
      const lint = spawnSync(HELM, ['lint', '--strict', CHART, '--values', join(CHART, 'ci', values)], {
        encoding: 'utf8',
      });
      expect({ values, status: lint.status, output: lint.status === 0 ? '' : lint.stdout + lint.stderr }).toEqual({
        values,
        status: 0,
        output: '',
      });
    }
  });

  it.each(['minimal-values.yaml', 'full-values.yaml'])('renders objects valid for Kubernetes (%s)', (values) => {
    const manifests = render(values);
    expect(manifests.length).toBeGreaterThan(0);
    for (const manifest of manifests) {
      const Model = MODELS[`${manifest.apiVersion}/${manifest.kind}`];
      expect({ kind: manifest.kind, known: Model !== undefined }).toEqual({ kind: manifest.kind, known: true });
      expect(() => new Model!(manifest as never).validate()).not.toThrow();
    }
  });

  it('gives the runtime only variables it reads, with values it accepts (minimal values)', () => {
    const manifests = render('minimal-values.yaml');
    const runtime = containerOf(find(manifests, 'Deployment', 'acm-acm-runtime'));
    expect(runtime.command).toEqual(['node', 'dist/apps/runtime-acm/src/main.js']);
    const env = environmentOf(manifests, runtime);
    expect(Object.keys(env).filter((name) => !RUNTIME_VARIABLES.has(name))).toEqual([]);
    const config = loadRuntimeConfig(env);
    expect(config.kafkaBrokers).toEqual(['kafka-0.kafka:9092', 'kafka-1.kafka:9092']);
    expect(config.password).toBe('change-me');
    expect(config.simulator).toBe(false);
    // The password is URL-encoded, so pg reads it back whole.
    const url = new URL(config.databaseUrl ?? '');
    expect([url.hostname, url.port, decodeURIComponent(url.password), url.pathname]).toEqual([
      'postgres.example.svc',
      '5432',
      'p@ss/word:1',
      '/acm',
    ]);
    expect(manifests.map((manifest) => manifest.kind).sort()).toEqual(['ConfigMap', 'Deployment', 'Secret', 'Service']);
  });

  it('gives the runtime every tunable and the simulator only variables it reads (full values)', () => {
    const manifests = render('full-values.yaml');
    const runtimeDeployment = find(manifests, 'Deployment', 'acm-acm-runtime');
    const runtimeContainer = containerOf(runtimeDeployment);
    const config = loadRuntimeConfig(
      withMountedSecrets(manifests, runtimeDeployment, runtimeContainer, environmentOf(manifests, runtimeContainer)),
    );
    expect(config).toMatchObject({
      basicAuth: false,
      logLevel: 'debug',
      heartBeatMs: 2000,
      maxStatusWaitMs: 60000,
      maxOperationWaitMs: 120000,
      maxBodyBytes: 1048576,
      maxParticipants: 50,
      maxParticipantReplicas: 4,
      registrationRateLimit: 100,
      registrationRateWindowMs: 30000,
      databaseSchema: 'acm',
      databasePoolSize: 20,
      kafkaGroupId: 'acm-runtime-prod',
      databaseUrl: 'postgres://acm_runtime:secret@postgres.example.svc:6432/acm_prod',
    });
    const simulatorDeployment = find(manifests, 'Deployment', 'acm-acm-runtime-simulator');
    const simulator = containerOf(simulatorDeployment);
    expect(simulator.command).toEqual(['node', 'dist/apps/participant-simulator/src/main.js']);
    const env = environmentOf(manifests, simulator);
    expect(Object.keys(env).filter((name) => !SIMULATOR_VARIABLES.has(name))).toEqual([]);
    const simulatorConfig = loadSimulatorConfig(withMountedSecrets(manifests, simulatorDeployment, simulator, env));
    expect(simulatorConfig).toMatchObject({
      kafkaBrokers: ['kafka:9093'],
      password: 'sim-secret',
      port: 8085,
    });
    // Both processes join the secured Kafka with the same TLS files and SASL credentials.
    const pem = (label: string): RegExp => new RegExp(`^-----BEGIN ${label}-----\n[\\s\\S]+-----END ${label}-----\n$`);
    for (const security of [config.kafkaSecurity, simulatorConfig.kafkaSecurity]) {
      expect(security).toEqual({
        protocol: 'SASL_SSL',
        sasl: { mechanism: 'scram-sha-512', username: 'acm', password: 'kafka-secret' },
        ssl: {
          ca: expect.stringMatching(pem('CERTIFICATE')),
          cert: expect.stringMatching(pem('CERTIFICATE')),
          key: expect.stringMatching(pem('PRIVATE KEY')),
          passphrase: 'key-secret',
        },
      });
    }
    expect(config).toMatchObject({ encryptionEnabled: true, encryptionKey: 'encryption-secret' });
  });

  it('runs the HTTP participant with only variables it reads, its password in the Secret, its secrets mounted', () => {
    const manifests = render('full-values.yaml');
    const deployment = find(manifests, 'Deployment', 'acm-acm-runtime-participant-http');
    const container = containerOf(deployment);
    expect(container.command).toEqual(['node', 'dist/apps/participant-http/src/main.js']);
    const env = environmentOf(manifests, container);
    const read = new Set([
      ...['HTTP_PORT', 'HTTP_USER', 'HTTP_PASSWORD', 'HTTP_SECRETS_DIR', 'PARTICIPANT_ID', 'PARTICIPANT_GROUP_ID'],
      ...['KAFKA_BOOTSTRAP_SERVERS', 'OPERATION_TOPIC', 'SYNC_TOPIC', 'HEARTBEAT_MS'],
    ]);
    expect(
      Object.keys(env).filter((name) => !read.has(name) && !/^(KAFKA_(SECURITY|SASL|SSL)_|OTEL_)/.test(name)),
    ).toEqual([]);
    // The Kafka TLS files as the kubelet writes them; the call secrets are a Secret of the operator's, not the chart's.
    const chartMounts = {
      ...container,
      volumeMounts: (container.volumeMounts ?? []).filter((mount) => mount.name !== 'http-secrets'),
    };
    const config = loadHttpParticipantConfig(withMountedSecrets(manifests, deployment, chartMounts, env));
    expect(config).toMatchObject({
      participantId: '101c62b3-8918-41b9-a747-d21eb79c6c01',
      groupId: 'policy-clamp-ac-http-ppnt',
      kafkaBrokers: ['kafka:9093'],
      port: 6969,
      user: 'participantUser',
      password: 'http-secret',
      secretsDir: '/etc/acm/http-secrets',
    });
    expect(config.kafkaSecurity.protocol).toBe('SASL_SSL');
    expect(container.volumeMounts).toContainEqual(
      expect.objectContaining({ name: 'http-secrets', mountPath: '/etc/acm/http-secrets' }),
    );
    const data = JSON.stringify(find(manifests, 'ConfigMap', 'acm-acm-runtime')['data']);
    expect(data.includes('http-secret')).toBe(false);
    expect(render('minimal-values.yaml').some((manifest) => manifest.metadata.name.endsWith('participant-http'))).toBe(
      false,
    );
  });

  it('keeps the Kafka credentials, the TLS key and the encryption key in Secrets, never in the ConfigMap', () => {
    const manifests = render('full-values.yaml');
    const data = JSON.stringify(find(manifests, 'ConfigMap', 'acm-acm-runtime')['data']);
    for (const secret of ['kafka-secret', 'key-secret', 'encryption-secret', 'PRIVATE KEY']) {
      expect({ secret, inConfigMap: data.includes(secret) }).toEqual({ secret, inConfigMap: false });
    }
    expect(find(manifests, 'Secret', 'acm-acm-runtime')['stringData']).toMatchObject({
      KAFKA_SASL_JAAS_CONFIG: expect.stringContaining('password="kafka-secret"'),
      KAFKA_SSL_KEY_PASSWORD: 'key-secret',
      MSG_ENCRYPTION_KEY: 'encryption-secret',
    });
    expect(Object.keys(find(manifests, 'Secret', 'acm-acm-runtime-kafka-tls')['stringData'] as object).sort()).toEqual([
      'ca.crt',
      'tls.crt',
      'tls.key',
    ]);
  });

  it('mounts a Kafka TLS Secret of your own, and lets your Secret hold the SASL credentials', () => {
    const manifests = render(
      'full-values.yaml',
      '--set',
      'existingSecret=acm-credentials',
      '--set',
      'kafka.tls.existingSecret=kafka-client-tls',
      '--set',
      'kafka.tls.clientCertificate=true',
    );
    expect(manifests.filter((manifest) => manifest.kind === 'Secret')).toEqual([]);
    for (const name of ['acm-acm-runtime', 'acm-acm-runtime-simulator']) {
      const deployment = find(manifests, 'Deployment', name);
      const volumes = (deployment['spec'] as { template: { spec: { volumes: unknown[] } } }).template.spec.volumes;
      expect(volumes).toContainEqual({ name: 'kafka-tls', secret: { secretName: 'kafka-client-tls' } });
    }
    const simulator = containerOf(find(manifests, 'Deployment', 'acm-acm-runtime-simulator'));
    const refs = (simulator.env ?? []).filter(
      (variable) => variable.name.startsWith('KAFKA_SASL_') && variable.valueFrom !== undefined,
    );
    expect(refs.map((variable) => variable.valueFrom?.secretKeyRef)).toEqual(
      ['KAFKA_SASL_JAAS_CONFIG', 'KAFKA_SASL_USERNAME', 'KAFKA_SASL_PASSWORD'].map((key) => ({
        name: 'acm-credentials',
        key,
        optional: true,
      })),
    );
  });

  it('probes the actuator paths the runtime serves with plain HTTP GETs, Basic auth on or off', () => {
    const withAuth = containerOf(find(render('minimal-values.yaml'), 'Deployment', 'acm-acm-runtime'));
    const open = containerOf(find(render('full-values.yaml'), 'Deployment', 'acm-acm-runtime'));
    for (const container of [withAuth, open]) {
      expect(servedPaths('liveness')).toContain(probePath(container.livenessProbe));
      expect(servedPaths('readiness')).toContain(probePath(container.readinessProbe));
      expect(container.livenessProbe?.httpGet?.port).toBe('http');
      expect(container.readinessProbe?.httpGet?.port).toBe('http');
    }
  });

  it('keeps the metrics behind the credentials unless metrics.auth is false', () => {
    const configOf = (values: string): Record<string, string> =>
      find(render(values), 'ConfigMap', 'acm-acm-runtime')['data'] as Record<string, string>;
    expect(configOf('minimal-values.yaml')['METRICS_AUTH']).toBe('true');
    expect(configOf('full-values.yaml')['METRICS_AUTH']).toBe('false');
    const monitor = find(render('full-values.yaml'), 'ServiceMonitor', 'acm-acm-runtime')['spec'] as {
      endpoints: Array<{ basicAuth?: unknown }>;
    };
    expect(monitor.endpoints[0]?.basicAuth).toBeUndefined();
  });

  it('runs as a non-root user on a read-only root file system', () => {
    const container = containerOf(find(render('minimal-values.yaml'), 'Deployment', 'acm-acm-runtime'));
    expect(container.securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
    });
  });

  it('ships the dashboard and scrapes /actuator/prometheus when asked', () => {
    const manifests = render('full-values.yaml');
    const dashboard = find(manifests, 'ConfigMap', 'acm-acm-runtime-dashboard');
    expect(dashboard.metadata.labels?.['grafana_dashboard']).toBe('1');
    const data = dashboard['data'] as Record<string, string>;
    expect(JSON.parse(data['acm-runtime.json'] ?? '')).toEqual(
      JSON.parse(readFileSync(join(CHART, 'files', 'dashboard.json'), 'utf8')),
    );
    const monitor = find(manifests, 'ServiceMonitor', 'acm-acm-runtime')['spec'] as { endpoints: { path: string }[] };
    expect(servedPaths('prometheus').map((path) => path)).toContain(monitor.endpoints[0]?.path);
  });

  it.each([
    ['runtime.password', ['--set', 'runtime.password=']],
    ['postgresql.host', ['--set', 'postgresql.host=']],
    ['kafka.bootstrapServers', ['--set', 'kafka.bootstrapServers=']],
    ['encryption.key', ['--set', 'encryption.enabled=true']],
    ['kafka.tls.key', ['--set', 'kafka.tls.cert=-----BEGIN CERTIFICATE-----']],
    ['httpParticipant.password', ['--set', 'httpParticipant.enabled=true']],
  ])('refuses to render without %s', (field, extra) => {
    expect(() => render('minimal-values.yaml', ...extra)).toThrow(
      new RegExp(`${field.replace('.', '\\.')} is required`),
    );
  });

  it('uses an existing Secret instead of its own when told', () => {
    const manifests = render(
      'minimal-values.yaml',
      '--set',
      'existingSecret=acm-credentials',
      '--set',
      'runtime.password=',
    );
    expect(manifests.filter((manifest) => manifest.kind === 'Secret')).toEqual([]);
    const runtime = containerOf(find(manifests, 'Deployment', 'acm-acm-runtime'));
    expect(runtime.envFrom).toContainEqual({ secretRef: { name: 'acm-credentials' } });
  });
});
