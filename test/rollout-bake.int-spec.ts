import { randomUUID } from 'node:crypto';
import { MessageBus } from '@acm/messaging';
import type { Simulator } from '@acm/simulator';
import { DEFAULT_SIM_PASSWORD, DEFAULT_SIM_USER, SIM_API_PATH, createSimulator } from '@acm/simulator';
import request from 'supertest';
import type { RuntimeHarness } from './support/runtime-harness';
import {
  BASE,
  commissionAndPrime,
  createInstanceFrom,
  instanceOf,
  orderInstance,
  participantRegistered,
  readRepoFile,
  startRuntime,
} from './support/runtime-harness';
import { eventually } from './support/scripted-participant';

const silent = (): void => undefined;
/** Seconds each batch bakes: long enough for a report asked for at once to arrive within it. */
const BAKE_SECONDS = 4;
/** Instances per rollout, in three batches of two. */
const FLEET_SIZE = 6;

interface RolloutBody {
  rolloutId: string;
  state: string;
  reason: string | null;
  batches: Array<{
    batch: number;
    state: string;
    bakingUntil: string | null;
    bakeRemainingMs: number | null;
    instances: Array<{ instanceId: string; state: string; reason: string | null }>;
  }>;
}

interface RolloutEventBody {
  kind: string;
  batch: number | null;
  instanceId: string | null;
  state: string | null;
  reason: string | null;
}

/**
 * A rollout's bake time end to end on PostgreSQL: the SDK's simulator (on the runtime's bus) deploys the instances
 * and, through its control API (`PUT /observations`), reports an instance of batch 2 unhealthy while that batch
 * bakes. The sweep never runs (HEART_BEAT of an hour): the recorded health change and the bake's due time alone
 * drive the rollout.
 */
describe('rollout bake time (PostgreSQL, in-process bus, SDK simulator)', () => {
  let runtime: RuntimeHarness;
  let simulator: Simulator;
  let compositionId: string;

  beforeAll(async () => {
    runtime = await startRuntime({ HEART_BEAT: '3600000', EVENT_FEED_POLL_MS: '200' });
    simulator = await createSimulator({
      bus: runtime.app.get(MessageBus),
      participantId: randomUUID(),
      timersMs: 0,
      logger: silent,
      observeTickMs: 100,
    });
    await participantRegistered(runtime, simulator.participant.participantId);
    compositionId = await commissionAndPrime(runtime, readRepoFile('tosca/examples/sim-single-element.yaml'));
  }, 120_000);

  afterAll(async () => {
    await simulator.close();
    await runtime.close();
  });

  async function fleet(count: number): Promise<Array<{ instanceId: string; elementIds: string[] }>> {
    const created = [];
    for (let index = 0; index < count; index += 1) {
      created.push(
        await createInstanceFrom(
          runtime,
          compositionId,
          readRepoFile('tosca/examples/instances/sim-single-element.json'),
        ),
      );
    }
    return created;
  }

  const readRollout = async (rolloutId: string): Promise<RolloutBody> =>
    (await runtime.http.get(`${BASE}/rollouts/${rolloutId}`).expect(200)).body as RolloutBody;

  const rolloutWhere = (rolloutId: string, what: string, test: (rollout: RolloutBody) => boolean) =>
    eventually(
      what,
      async () => {
        const rollout = await readRollout(rolloutId);
        return test(rollout) ? rollout : undefined;
      },
      1500,
    );

  /** The simulator reports the element healthy or not from now on; a status request makes it report at once. */
  async function observe(instanceId: string, elementId: string, healthy: boolean): Promise<void> {
    await request(simulator.controlHandler)
      .put(`${SIM_API_PATH}/observations`)
      .auth(DEFAULT_SIM_USER, DEFAULT_SIM_PASSWORD)
      .send({ instanceId, elementId, healthy, reason: healthy ? 'recovered' : 'probe failed' })
      .expect(200);
    await runtime.http.put(`${BASE}/participants`).expect(202);
  }

  async function startRollout(ids: readonly string[], onFailure: string): Promise<string> {
    const created = await runtime.http
      .post(`${BASE}/rollouts`)
      .send({
        order: 'DEPLOY',
        compositionId,
        instanceIds: ids,
        strategy: { batchSize: 2, onFailure, bakeTime: BAKE_SECONDS },
      })
      .expect(201);
    return (created.body as RolloutBody).rolloutId;
  }

  /** Batch 2 bakes: GET shows it BAKING with the time left, batch 1 ended, batch 3 not started. */
  async function batchTwoBaking(rolloutId: string): Promise<RolloutBody> {
    const baking = await rolloutWhere(rolloutId, 'batch 2 BAKING', (rollout) => rollout.batches[1]?.state === 'BAKING');
    expect(baking.state).toBe('RUNNING');
    expect(baking.batches.map((batch) => batch.state).slice(0, 3)).toEqual(['ENDED', 'BAKING', 'PENDING']);
    expect(baking.batches[1]!.bakeRemainingMs).toBeGreaterThan(0);
    expect(baking.batches[1]!.bakeRemainingMs).toBeLessThanOrEqual(BAKE_SECONDS * 1000);
    expect(Date.parse(baking.batches[1]!.bakingUntil!)).toBeGreaterThan(0);
    return baking;
  }

  const deployStateOf = async (instanceId: string): Promise<string> =>
    (await instanceOf<{ deployState: string }>(runtime, compositionId, instanceId)).deployState;

  it('refuses a bakeTime that is not a whole number of seconds up to a day, naming strategy.bakeTime (400)', async () => {
    const [instance] = await fleet(1);
    for (const bakeTime of [-1, 2.5, 86_401, '30']) {
      const refused = await runtime.http
        .post(`${BASE}/rollouts`)
        .send({
          order: 'DEPLOY',
          compositionId,
          instanceIds: [instance!.instanceId],
          strategy: { batchSize: 1, bakeTime },
        })
        .expect(400);
      expect((refused.body as { errorDetails: string }).errorDetails).toBe(
        `strategy.bakeTime: must be a whole number of seconds from 0 to 86400, got ${JSON.stringify(bakeTime)}`,
      );
    }
  });

  it('rolls back batch 2 when one of its instances turns unhealthy during its bake, and ends FAILED', async () => {
    const instances = await fleet(FLEET_SIZE);
    const ids = instances.map((item) => item.instanceId);
    const rolloutId = await startRollout(ids, 'rollback');
    await batchTwoBaking(rolloutId);
    await observe(ids[3]!, instances[3]!.elementIds[0]!, false);

    const failed = await rolloutWhere(rolloutId, 'FAILED', (rollout) => rollout.state === 'FAILED');
    expect(failed.reason).toBe('batch 2 had 1 failures, over the threshold 0; rolled back');
    expect(failed.batches[0]!.instances.map((item) => item.state)).toEqual(['DONE', 'DONE']);
    expect(failed.batches[1]!.instances.map((item) => item.state)).toEqual(['ROLLED_BACK', 'ROLLED_BACK']);
    expect(failed.batches.slice(2).every((batch) => batch.instances.every((item) => item.state === 'PENDING'))).toBe(
      true,
    );
    expect(await deployStateOf(ids[0]!)).toBe('DEPLOYED');
    expect(await deployStateOf(ids[2]!)).toBe('UNDEPLOYED');
    expect(await deployStateOf(ids[3]!)).toBe('UNDEPLOYED');
    expect(await deployStateOf(ids[4]!)).toBe('UNDEPLOYED');

    const events = (
      (await runtime.http.get(`${BASE}/rollouts/${rolloutId}/history`).expect(200)).body as {
        events: RolloutEventBody[];
      }
    ).events;
    expect(events.filter((event) => event.state === 'UNHEALTHY')).toEqual([
      expect.objectContaining({
        kind: 'INSTANCE_ENDED',
        batch: 2,
        instanceId: ids[3],
        reason: expect.stringMatching(/^unhealthy during the bake: .* is Degraded \(probe failed\)$/),
      }),
    ]);
    expect(events.some((event) => event.kind === 'BATCH_STARTED' && event.batch === 3)).toBe(false);
    // Batch 1's bake ended healthy; batch 2's started and never ended healthy.
    expect(events.filter((event) => event.kind.startsWith('BAKE_')).map((event) => [event.kind, event.batch])).toEqual([
      ['BAKE_STARTED', 1],
      ['BAKE_ENDED', 1],
      ['BAKE_STARTED', 2],
    ]);
  }, 60_000);

  it('pauses on an instance unhealthy during the bake; resume bakes batch 2 again, then batch 3 runs', async () => {
    const instances = await fleet(FLEET_SIZE);
    const ids = instances.map((item) => item.instanceId);
    const rolloutId = await startRollout(ids, 'pause');
    await batchTwoBaking(rolloutId);
    await observe(ids[2]!, instances[2]!.elementIds[0]!, false);

    const paused = await rolloutWhere(rolloutId, 'PAUSED', (rollout) => rollout.state === 'PAUSED');
    expect(paused.reason).toBe('batch 2 had 1 failures, over the threshold 0');
    expect(paused.batches[1]!.instances.map((item) => item.state)).toEqual(['UNHEALTHY', 'DONE']);
    expect(paused.batches[1]!.instances[0]!.reason).toMatch(/^unhealthy during the bake: /);
    expect(paused.batches[2]!.instances.map((item) => item.state)).toEqual(['PENDING', 'PENDING']);
    // Paused, it waits for resume: a status report now starts nothing.
    await observe(ids[2]!, instances[2]!.elementIds[0]!, true);
    expect((await readRollout(rolloutId)).state).toBe('PAUSED');
    expect(await deployStateOf(ids[4]!)).toBe('UNDEPLOYED');

    await runtime.http.post(`${BASE}/rollouts/${rolloutId}/resume`).expect(200);
    await batchTwoBaking(rolloutId);
    const ended = await rolloutWhere(rolloutId, 'FAILED', (rollout) => rollout.state === 'FAILED');
    expect(ended.reason).toBe('batches over the failure threshold: 2');
    expect(ended.batches[2]!.instances.map((item) => item.state)).toEqual(['DONE', 'DONE']);
    expect(await deployStateOf(ids[4]!)).toBe('DEPLOYED');
  }, 60_000);

  it('asks the batch for a report as its bake starts: an element that turned unhealthy unreported fails the bake', async () => {
    const instances = await fleet(4);
    const ids = instances.map((item) => item.instanceId);
    const sim = () => request(simulator.controlHandler).put(`${SIM_API_PATH}/observations`);
    const watched = { instanceId: ids[3], elementId: instances[3]!.elementIds[0] };
    // Observed from its deploy on: the simulator reports it then, and next only after its interval (60 s).
    await sim()
      .auth(DEFAULT_SIM_USER, DEFAULT_SIM_PASSWORD)
      .send({ ...watched, healthy: true })
      .expect(200);
    for (const id of ids) {
      await orderInstance(runtime, compositionId, id, { deployOrder: 'DEPLOY' });
    }
    await eventually('deployed, and the watched element observed Healthy', async () => {
      const states = await Promise.all(ids.map(deployStateOf));
      const watchedNow = await instanceOf<{ observedHealth?: { elements: Record<string, { health: string }> } }>(
        runtime,
        compositionId,
        ids[3]!,
      );
      const health = watchedNow.observedHealth?.elements[watched.elementId!]?.health;
      return states.every((state) => state === 'DEPLOYED') && health === 'Healthy' ? true : undefined;
    });
    // It turns unhealthy; the simulator would say so at its next scheduled observation, long after the bake.
    await sim()
      .auth(DEFAULT_SIM_USER, DEFAULT_SIM_PASSWORD)
      .send({ ...watched, healthy: false, reason: 'fell over' })
      .expect(200);
    const created = await runtime.http
      .post(`${BASE}/rollouts`)
      .send({
        order: 'UPDATE',
        compositionId,
        instanceIds: ids,
        update: { elements: { 'acm.example.single.SimElement': { baseUrl: 'http://sim.example:30801' } } },
        strategy: { batchSize: 2, onFailure: 'pause', bakeTime: BAKE_SECONDS },
      })
      .expect(201);
    const rolloutId = (created.body as RolloutBody).rolloutId;
    const paused = await rolloutWhere(rolloutId, 'PAUSED', (rollout) => rollout.state === 'PAUSED');
    expect(paused.batches.map((batch) => batch.instances.map((item) => item.state))).toEqual([
      ['DONE', 'DONE'],
      ['DONE', 'UNHEALTHY'],
    ]);
    expect(paused.batches[1]!.instances[1]!.reason).toMatch(
      /^unhealthy during the bake: .* is Degraded \(fell over\)$/,
    );
  }, 60_000);

  it("fails an instance whose element's health gate stops holding during the bake, judged at the bake's end", async () => {
    // Its element gated on `ready == true`, which every deploy at the simulator reports.
    const gated = await commissionAndPrime(
      runtime,
      readRepoFile('tosca/examples/sim-single-element.yaml')
        .replace(/name: (\S+)\n/, `name: $1Gated${randomUUID().slice(0, 8)}\n`)
        .replace(
          '      description: The only element of this composition.\n',
          '      description: The only element of this composition.\n' +
            '      metadata:\n        health_condition: "ready == true"\n',
        ),
    );
    const sim = () => request(simulator.controlHandler);
    await sim()
      .put(`${SIM_API_PATH}/parameters`)
      .auth(DEFAULT_SIM_USER, DEFAULT_SIM_PASSWORD)
      .send({ deployProps: { ready: true } })
      .expect(200);
    try {
      const instances = [];
      for (let index = 0; index < 4; index += 1) {
        instances.push(
          await createInstanceFrom(runtime, gated, readRepoFile('tosca/examples/instances/sim-single-element.json')),
        );
      }
      const ids = instances.map((item) => item.instanceId);
      const created = await runtime.http
        .post(`${BASE}/rollouts`)
        .send({
          order: 'DEPLOY',
          compositionId: gated,
          instanceIds: ids,
          strategy: { batchSize: 2, onFailure: 'pause', bakeTime: BAKE_SECONDS },
        })
        .expect(201);
      const rolloutId = (created.body as RolloutBody).rolloutId;
      await rolloutWhere(rolloutId, 'batch 2 BAKING', (rollout) => rollout.batches[1]?.state === 'BAKING');
      // ONAP's control API: the element's outProperties change (a STATUS is sent); no health is observed.
      await sim()
        .put(`${SIM_API_PATH}/datas`)
        .auth(DEFAULT_SIM_USER, DEFAULT_SIM_PASSWORD)
        .send({
          automationCompositionId: ids[3],
          automationCompositionElementId: instances[3]!.elementIds[0],
          outProperties: { ready: false },
        })
        .expect(200);
      const paused = await rolloutWhere(rolloutId, 'PAUSED', (rollout) => rollout.state === 'PAUSED');
      expect(paused.batches[0]!.instances.map((item) => item.state)).toEqual(['DONE', 'DONE']);
      expect(paused.batches[1]!.instances.map((item) => item.state)).toEqual(['DONE', 'UNHEALTHY']);
      expect(paused.batches[1]!.instances[1]!.reason).toMatch(
        /^unhealthy during the bake: the health gate of .* no longer holds$/,
      );
    } finally {
      await sim().put(`${SIM_API_PATH}/parameters`).auth(DEFAULT_SIM_USER, DEFAULT_SIM_PASSWORD).send({}).expect(200);
    }
  }, 60_000);
});
