/**
 * Kafka TLS and SASL against a real broker of the suite's own (the shared one on 9092 stays PLAINTEXT):
 * scripts/services-up.sh starts it with an extra SASL_SSL listener, its certificates made with openssl and
 * keytool and its SCRAM users created by Kafka's storage tool. The runtime (SCRAM-SHA-512 through ONAP's
 * JAAS variable, with a client certificate) and the simulator (SCRAM-SHA-256 through a user name and
 * password, CA only) deploy over it; the bus speaks SASL PLAIN; wrong credentials end a process at start.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Client } from 'pg';
import request from 'supertest';
import { KafkaMessageBus, readKafkaSecurity } from '@acm/messaging';
import type { IncomingRecord } from '@acm/messaging';
import { FaultBroker, SASL_USER } from '../support/fault-broker';
import type { ProductProcess } from '../support/processes';
import { E2E_LOG_DIR, freePort, runtimeProcess, simulatorProcess } from '../support/processes';
import { PASSWORD, USER, readRepoFile } from '../support/runtime-harness';
import { eventually } from '../support/scripted-participant';
import { testDatabaseUrl } from '../support/services';

const API = '/onap/policy/clamp/acm/v2';
const SIM_TYPE = 'org.onap.policy.clamp.acm.SimAutomationCompositionElement:1.0.0';
const TOPICS = { op: 'policy-acruntime-participant', sync: 'acm-ppnt-sync' };

/** Is `port` free on 127.0.0.1 now? */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Three consecutive free ports below the ephemeral range: PLAINTEXT, controller (+1), SASL_SSL (+2). */
async function brokerPorts(): Promise<number> {
  for (;;) {
    const base = 20_000 + Math.floor(Math.random() * 9_000);
    if ((await Promise.all([base, base + 1, base + 2].map(portFree))).every(Boolean)) {
      return base;
    }
  }
}

const scram = (mechanism: string, password: string): Record<string, string> => ({
  KAFKA_SECURITY_PROTOCOL: 'SASL_SSL',
  KAFKA_SASL_MECHANISM: mechanism,
  KAFKA_SASL_JAAS_CONFIG: `org.apache.kafka.common.security.scram.ScramLoginModule required username="${SASL_USER.username}" password="${password}";`,
});

describe('Kafka over SASL_SSL (own broker; runtime and simulator as processes)', () => {
  const suffix = randomUUID().slice(0, 8);
  const schema = `kafka_sec_${suffix}`;
  let broker: FaultBroker;
  const processes: ProductProcess[] = [];
  let runtimeUrl = '';

  const api = (): request.Agent => request.agent(runtimeUrl).auth(USER, PASSWORD);
  const tls = (file: string): string => join(broker.tlsDir, file);

  function started(process: ProductProcess): ProductProcess {
    process.start();
    processes.push(process);
    return process;
  }

  beforeAll(async () => {
    const base = await brokerPorts();
    broker = new FaultBroker(`secure-${suffix}`, base, base + 2);
    await broker.start();
  }, 240_000);

  afterAll(async () => {
    await Promise.all(processes.map((process) => process.stop()));
    await broker?.destroy();
    const client = new Client({ connectionString: testDatabaseUrl() });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  }, 120_000);

  it('deploys with the runtime on SCRAM-SHA-512 and mutual TLS, the simulator on SCRAM-SHA-256', async () => {
    const [runtimePort, simPort] = await Promise.all([freePort(), freePort()]);
    runtimeUrl = `http://127.0.0.1:${runtimePort}`;
    const participantId = randomUUID();
    started(
      runtimeProcess(`secure-runtime-${suffix}`, {
        port: runtimePort,
        schema,
        groupId: 'acm-runtime',
        topics: TOPICS,
        env: {
          KAFKA_BOOTSTRAP_SERVERS: broker.secureBootstrap,
          ...scram('SCRAM-SHA-512', SASL_USER.password),
          KAFKA_SSL_CA_FILE: tls('ca.crt'),
          KAFKA_SSL_CERT_FILE: tls('client.crt'),
          KAFKA_SSL_KEY_FILE: tls('client.key'),
        },
      }),
    );
    started(
      simulatorProcess(`secure-sim-${suffix}`, {
        port: simPort,
        participantId,
        types: SIM_TYPE,
        topics: TOPICS,
        env: {
          KAFKA_BOOTSTRAP_SERVERS: broker.secureBootstrap,
          KAFKA_SECURITY_PROTOCOL: 'SASL_SSL',
          KAFKA_SASL_MECHANISM: 'SCRAM-SHA-256',
          KAFKA_SASL_USERNAME: SASL_USER.username,
          KAFKA_SASL_PASSWORD: SASL_USER.password,
          KAFKA_SSL_CA_FILE: tls('ca.crt'),
        },
      }),
    );
    await eventually(
      `participant ${participantId} to register over SASL_SSL`,
      async () => {
        const response = await api()
          .get(`${API}/participants/${participantId}`)
          .catch(() => undefined);
        return response?.status === 200 ? true : undefined;
      },
      3_000,
    );
    const created = await api()
      .post(`${API}/compositions`)
      .set('Content-Type', 'application/yaml')
      .send(readRepoFile('tosca/examples/sim-single-element.yaml'));
    expect(created.status).toBe(201);
    const compositionId = (created.body as { compositionId: string }).compositionId;
    expect((await api().put(`${API}/compositions/${compositionId}`).send({ primeOrder: 'PRIME' })).status).toBe(202);
    await eventually(
      'PRIMED',
      async () =>
        ((await api().get(`${API}/compositions/${compositionId}`)).body as { state?: string }).state === 'PRIMED'
          ? true
          : undefined,
      3_000,
    );
    const instance = await api()
      .post(`${API}/compositions/${compositionId}/instances`)
      .send(
        JSON.parse(
          readRepoFile('tosca/examples/instances/sim-single-element.json').replace(
            /COMPOSITIONIDPLACEHOLDER/g,
            compositionId,
          ),
        ),
      );
    expect(instance.status).toBe(201);
    const instanceId = (instance.body as { instanceId: string }).instanceId;
    const path = `${API}/compositions/${compositionId}/instances/${instanceId}`;
    expect((await api().put(path).send({ deployOrder: 'DEPLOY' })).status).toBe(202);
    const deployed = await eventually(
      'DEPLOYED',
      async () => {
        const body = (await api().get(path)).body as { deployState?: string; stateChangeResult?: string };
        return body.deployState === 'DEPLOYED' || body.stateChangeResult === 'FAILED' ? body : undefined;
      },
      3_000,
    );
    expect(deployed).toMatchObject({ deployState: 'DEPLOYED', stateChangeResult: 'NO_ERROR' });
  }, 180_000);

  it('publishes and delivers a record over SASL PLAIN, configured as the processes read it', async () => {
    const { security, problems } = readKafkaSecurity({
      KAFKA_SECURITY_PROTOCOL: 'SASL_SSL',
      KAFKA_SASL_MECHANISM: 'PLAIN',
      KAFKA_SASL_JAAS_CONFIG: `org.apache.kafka.common.security.plain.PlainLoginModule required username="${SASL_USER.username}" password="${SASL_USER.password}";`,
      KAFKA_SSL_CA_FILE: tls('ca.crt'),
    });
    expect(problems).toEqual([]);
    const bus = new KafkaMessageBus({
      brokers: [broker.secureBootstrap],
      clientId: `plain-${suffix}`,
      ...(security.ssl ? { ssl: security.ssl } : {}),
      ...(security.sasl ? { sasl: security.sasl } : {}),
      logger: () => undefined,
    });
    try {
      const topic = `plain-${suffix}`;
      const received: IncomingRecord[] = [];
      await bus.subscribe({
        topic,
        groupId: `plain-${suffix}`,
        handler: (record) => {
          received.push(record);
          return Promise.resolve();
        },
      });
      await bus.publish(topic, [{ key: 'k', value: 'over SASL PLAIN' }]);
      await eventually('the record', () => (received.length > 0 ? true : undefined), 1_500);
      expect(received.map((record) => record.value)).toEqual(['over SASL PLAIN']);
    } finally {
      await bus.close();
    }
  }, 60_000);

  it.each([
    ['runtime', 'SCRAM-SHA-512'],
    ['simulator', 'SCRAM-SHA-256'],
  ])(
    'stops the %s at start with a clear message when the %s password is wrong',
    async (which, mechanism) => {
      const name = `secure-wrong-${which}-${suffix}`;
      const env = {
        KAFKA_BOOTSTRAP_SERVERS: broker.secureBootstrap,
        ...scram(mechanism, 'not-the-password'),
        KAFKA_SSL_CA_FILE: tls('ca.crt'),
      };
      const process =
        which === 'runtime'
          ? runtimeProcess(name, {
              port: await freePort(),
              schema,
              groupId: `acm-runtime-${suffix}`,
              topics: TOPICS,
              env,
            })
          : simulatorProcess(name, {
              port: await freePort(),
              participantId: randomUUID(),
              types: SIM_TYPE,
              topics: TOPICS,
              env,
            });
      started(process);

      // The test's own timeout is the bound: a process that retried for ever would fail it.
      const code = await process.exit();

      expect(code).not.toBe(0);
      const log = readFileSync(join(E2E_LOG_DIR, `${name}.log`), 'utf8');
      expect(log).toMatch(/authentication failed.*invalid credentials with SASL mechanism/i);
      expect(log).not.toContain('not-the-password');
    },
    60_000,
  );
});
