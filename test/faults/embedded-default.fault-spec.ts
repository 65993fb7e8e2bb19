import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../support/processes';
import { AcmClient, RuntimeUnderTest, SIM_PARTICIPANT_ID, waitFor } from '../support/runtime-load';

/**
 * The embedded default exactly as `npm start` runs it (built dist, no DATABASE_URL, no Kafka, DATA_DIR in a
 * temp dir, the built-in simulator): 200 concurrent deploy/undeploy cycles with pollers, then deploys cut by
 * three SIGKILLs with restarts on the same DATA_DIR. Figures are printed for the performance notes.
 */
const DEFINITION = 'tosca/examples/sim-single-element.yaml';
const INSTANCE = 'tosca/examples/instances/sim-single-element.json';
const INSTANCES = 200;
const KILLED_DEPLOYS = 30;
const KILLS = 3;
const START_DEADLINE_MS = 60_000;
const SETTLE_DEADLINE_MS = 150_000;

describe('fault: the embedded default under load and SIGKILL', () => {
  let dataDir: string;
  let runtime: RuntimeUnderTest;
  let client: AcmClient;
  let compositionId: string;
  let instanceIds: string[];

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'acm-embedded-fault-'));
    const port = await freePort();
    runtime = new RuntimeUnderTest({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
    client = new AcmClient(port);
    runtime.start();
    await client.waitUntilServing(START_DEADLINE_MS);
    compositionId = await client.commissionAndPrime(DEFINITION, SETTLE_DEADLINE_MS);
    instanceIds = await client.createInstances(compositionId, INSTANCE, INSTANCES);
  }, 180_000);

  afterAll(async () => {
    await runtime?.kill();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it(`runs ${INSTANCES} concurrent deploy→undeploy cycles with pollers: 0 5xx, 0 false 404, 0 stuck, each element run once per order`, async () => {
    const started = performance.now();
    const stuck: string[] = [];
    let done!: () => void;
    const finished = new Promise<void>((resolve) => (done = resolve));
    const reading = client.poll(compositionId, 4, finished);
    await Promise.all(
      instanceIds.map(async (instanceId) => {
        try {
          await client.order(compositionId, instanceId, 'DEPLOY', SETTLE_DEADLINE_MS);
          await client.settled(compositionId, instanceId, 'DEPLOYED', SETTLE_DEADLINE_MS);
          await client.order(compositionId, instanceId, 'UNDEPLOY', SETTLE_DEADLINE_MS);
          await client.settled(compositionId, instanceId, 'UNDEPLOYED', SETTLE_DEADLINE_MS);
        } catch (error) {
          stuck.push(`${instanceId}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }),
    );
    done();
    await reading;
    const seconds = (performance.now() - started) / 1000;
    // Every run but the composition's prime is an element's.
    const runs = (await client.simulatorInvocations()).filter((entry) => entry.targetId !== compositionId);
    const elementRuns = runs.reduce((sum, entry) => sum + entry.invocations, 0);
    const duplicated = runs.filter((entry) => entry.invocations > 1).length;
    console.log(
      `embedded default, ${INSTANCES} cycles: orders ${2 * INSTANCES}, element runs ${elementRuns}, stuck ${stuck.length}, ` +
        `duplicated ${duplicated}, 5xx ${client.counts.serverErrors}, false 404 ${client.counts.falseNotFound}, ` +
        `requests ${client.counts.requests}, ${seconds.toFixed(1)} s (${((2 * INSTANCES) / seconds).toFixed(1)} orders/s)`,
    );

    expect(stuck).toEqual([]);
    expect(client.counts.errorSamples).toEqual([]);
    expect(client.counts.falseNotFound).toBe(0);
    expect(duplicated).toBe(0);
    expect(elementRuns).toBe(2 * INSTANCES);
    expect(await client.replicaStates(SIM_PARTICIPANT_ID)).toEqual(['ON_LINE']);
  }, 240_000);

  it(`completes every deploy cut by ${KILLS} SIGKILLs, restarting on the same DATA_DIR: 0 lost, 0 stuck`, async () => {
    const started = performance.now();
    const targets = instanceIds.slice(0, KILLED_DEPLOYS);
    const perKill = Math.ceil(targets.length / KILLS);
    let accepted = 0;
    for (let kill = 0; kill < KILLS; kill += 1) {
      const batch = targets.slice(kill * perKill, (kill + 1) * perKill);
      let ordered = 0;
      const ordering = Promise.all(
        batch.map(async (instanceId) => {
          const reply = await client.call('PUT', `/compositions/${compositionId}/instances/${instanceId}`, {
            deployOrder: 'DEPLOY',
          });
          if (reply.status === 202) {
            ordered += 1;
          }
        }),
      );
      // Kill once half the batch was accepted: the rest are in flight, refused or never answered.
      await waitFor(
        'deploys to be accepted',
        () => Promise.resolve(ordered >= batch.length / 2 ? true : undefined),
        60_000,
        5,
      );
      await runtime.signal('SIGKILL', 20_000);
      await ordering;
      accepted += ordered;
      runtime.start();
      await client.waitUntilServing(START_DEADLINE_MS);
    }
    // Deploys whose order never reached the database are ordered again; the others must finish by themselves.
    const lost: string[] = [];
    const stuck: string[] = [];
    await Promise.all(
      targets.map(async (instanceId) => {
        const current = await client.instance(compositionId, instanceId);
        if (current?.deployState === 'UNDEPLOYED' && current.phase === undefined) {
          await client.order(compositionId, instanceId, 'DEPLOY', SETTLE_DEADLINE_MS);
        }
        try {
          await client.settled(compositionId, instanceId, 'DEPLOYED', SETTLE_DEADLINE_MS);
        } catch {
          stuck.push(instanceId);
        }
        const settled = await client.instance(compositionId, instanceId);
        if (settled?.stateChangeResult !== 'NO_ERROR') {
          lost.push(`${instanceId}: ${JSON.stringify(settled)}`);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `embedded default, ${KILLS} SIGKILLs: deploys ${targets.length} (accepted before a kill ${accepted}), lost ${lost.length}, ` +
        `stuck ${stuck.length}, 5xx ${client.counts.serverErrors}, ${seconds.toFixed(1)} s`,
    );

    expect(stuck).toEqual([]);
    expect(lost).toEqual([]);
    expect(client.counts.errorSamples).toEqual([]);
    expect(await client.replicaStates(SIM_PARTICIPANT_ID)).toEqual(['ON_LINE']);
  }, 240_000);
});
