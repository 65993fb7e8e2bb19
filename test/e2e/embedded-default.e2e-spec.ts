import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { freePort } from '../support/processes';
import { AcmClient, RuntimeUnderTest, SIM_PARTICIPANT_ID, waitFor } from '../support/runtime-load';
import { testDatabaseUrl, testKafkaBrokers } from '../support/services';

const DEFINITION = 'tosca/examples/sim-single-element.yaml';
const INSTANCE = 'tosca/examples/instances/sim-single-element.json';
/** Generous bounds for a loaded machine; SIGTERM's promise (10 s) is measured and printed, not asserted. */
const START_DEADLINE_MS = 60_000;
const EXIT_DEADLINE_MS = 20_000;
const SETTLE_DEADLINE_MS = 90_000;

/** Deploys then undeploys every instance concurrently while `pollers` readers list instances and participants. */
async function cycles(client: AcmClient, compositionId: string, instanceIds: string[], pollers: number): Promise<void> {
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const reading = client.poll(compositionId, pollers, finished);
  try {
    await Promise.all(
      instanceIds.map(async (instanceId) => {
        await client.order(compositionId, instanceId, 'DEPLOY', SETTLE_DEADLINE_MS);
        await client.settled(compositionId, instanceId, 'DEPLOYED', SETTLE_DEADLINE_MS);
        await client.order(compositionId, instanceId, 'UNDEPLOY', SETTLE_DEADLINE_MS);
        await client.settled(compositionId, instanceId, 'UNDEPLOYED', SETTLE_DEADLINE_MS);
      }),
    );
  } finally {
    done();
    await reading;
  }
}

/** Orders DEPLOY on every instance and sends SIGTERM once at least `inFlight` of them are deploying. */
async function terminateUnderLoad(
  runtime: RuntimeUnderTest,
  client: AcmClient,
  compositionId: string,
  instanceIds: string[],
  inFlight: number,
): Promise<number> {
  let done!: () => void;
  const stopReading = new Promise<void>((resolve) => (done = resolve));
  const reading = client.poll(compositionId, 3, stopReading);
  let ordered = 0;
  const ordering = Promise.all(
    instanceIds.map(async (instanceId) => {
      const reply = await client.call('PUT', `/compositions/${compositionId}/instances/${instanceId}`, {
        deployOrder: 'DEPLOY',
      });
      if (reply.status === 202) {
        ordered += 1;
      }
    }),
  );
  await waitFor('deploys to be in flight', () => Promise.resolve(ordered >= inFlight ? true : undefined), 30_000, 5);
  const exitMs = await runtime.signal('SIGTERM', EXIT_DEADLINE_MS);
  await ordering;
  done();
  await reading;
  return exitMs;
}

describe('the embedded default (npm start with no configuration)', () => {
  let dataDir: string;
  let port: number;
  let runtime: RuntimeUnderTest;
  let client: AcmClient;

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'acm-embedded-'));
    port = await freePort();
    runtime = new RuntimeUnderTest({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
    client = new AcmClient(port);
    runtime.start();
    await client.waitUntilServing(START_DEADLINE_MS);
  }, START_DEADLINE_MS + 5_000);

  afterEach(async () => {
    await runtime.kill();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves 24 concurrent deploy/undeploy cycles with pollers: no 5xx, no false 404, none stuck', async () => {
    const compositionId = await client.commissionAndPrime(DEFINITION, SETTLE_DEADLINE_MS);
    const instanceIds = await client.createInstances(compositionId, INSTANCE, 24);

    await cycles(client, compositionId, instanceIds, 4);

    expect(client.counts.errorSamples).toEqual([]);
    expect(client.counts.serverErrors).toBe(0);
    expect(client.counts.falseNotFound).toBe(0);
    expect(await client.replicaStates(SIM_PARTICIPANT_ID)).toEqual(['ON_LINE']);
  }, 240_000);

  it('stops on SIGTERM under load without losing the DEREGISTER; after a restart one replica serves and every deploy completes', async () => {
    const compositionId = await client.commissionAndPrime(DEFINITION, SETTLE_DEADLINE_MS);
    const instanceIds = await client.createInstances(compositionId, INSTANCE, 16);

    const exitMs = await terminateUnderLoad(runtime, client, compositionId, instanceIds, 8);
    console.log(`embedded default: SIGTERM under load → exit in ${Math.round(exitMs)} ms`);
    expect(runtime.log).not.toContain('Failed to publish');

    runtime.start();
    await client.waitUntilServing(START_DEADLINE_MS);
    for (const instanceId of instanceIds) {
      const current = await client.instance(compositionId, instanceId);
      if (current?.deployState === 'UNDEPLOYED' && current.phase === undefined) {
        await client.order(compositionId, instanceId, 'DEPLOY', SETTLE_DEADLINE_MS);
      }
      await client.settled(compositionId, instanceId, 'DEPLOYED', SETTLE_DEADLINE_MS);
    }
    expect(await client.replicaStates(SIM_PARTICIPANT_ID)).toEqual(['ON_LINE']);
    expect(client.counts.serverErrors).toBe(0);
  }, 300_000);
});

describe('the runtime with its built-in simulator on the real Kafka and PostgreSQL', () => {
  const schema = `e2e_stop_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const suffix = randomUUID().slice(0, 8);
  let runtime: RuntimeUnderTest;
  let client: AcmClient;

  beforeAll(async () => {
    const port = await freePort();
    runtime = new RuntimeUnderTest({
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: testDatabaseUrl(),
      DATABASE_SCHEMA: schema,
      KAFKA_BOOTSTRAP_SERVERS: testKafkaBrokers().join(','),
      KAFKA_GROUP_ID: `e2e-stop-${suffix}`,
      RUNTIME_OPERATION_TOPIC: `e2e-stop-op-${suffix}`,
      RUNTIME_SYNC_TOPIC: `e2e-stop-sync-${suffix}`,
      SIMULATOR: 'true',
      LOG_LEVEL: 'warn',
    });
    client = new AcmClient(port);
    runtime.start();
    await client.waitUntilServing(START_DEADLINE_MS);
    await waitFor(
      'the built-in simulator to register',
      async () => ((await client.replicaStates(SIM_PARTICIPANT_ID)).length === 1 ? true : undefined),
      START_DEADLINE_MS,
    );
  }, START_DEADLINE_MS * 2);

  afterAll(async () => {
    await runtime?.kill();
    const database = new Client({ connectionString: testDatabaseUrl() });
    await database.connect();
    await database.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await database.end();
  });

  it('stops on SIGTERM under load without "Failed to publish"; after a restart exactly one replica is ON_LINE', async () => {
    const compositionId = await client.commissionAndPrime(DEFINITION, SETTLE_DEADLINE_MS);
    const instanceIds = await client.createInstances(compositionId, INSTANCE, 16);

    const exitMs = await terminateUnderLoad(runtime, client, compositionId, instanceIds, 8);
    console.log(`Kafka + PostgreSQL: SIGTERM under load → exit in ${Math.round(exitMs)} ms`);
    expect(runtime.log).not.toContain('Failed to publish');

    runtime.start();
    await client.waitUntilServing(START_DEADLINE_MS);
    await waitFor(
      'exactly one ON_LINE replica of the built-in simulator',
      async () => {
        const states = await client.replicaStates(SIM_PARTICIPANT_ID);
        return states.length === 1 && states[0] === 'ON_LINE' ? true : undefined;
      },
      SETTLE_DEADLINE_MS,
    );
    expect(client.counts.serverErrors).toBe(0);
  }, 300_000);
});
