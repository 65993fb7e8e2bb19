import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { ProductProcess } from '../support/processes';
import { freePort, runtimeProcess, simulatorProcess } from '../support/processes';
import { PASSWORD, USER, simSingleElementNextRevision } from '../support/runtime-harness';
import { commissionedAndPrimed, dropSchema, participantKnown, runtimeAnswering } from '../support/e2e-stack';
import { eventually } from '../support/scripted-participant';
import { repoFile } from './lifecycle.scenarios';

const SIM_PARTICIPANT = '101c62b3-8918-41b9-a747-d21eb79c6c91';
const API = '/onap/policy/clamp/acm/v2';
const SIM_API = '/onap/policy/simparticipant/v2';
const FIXTURE_ELEMENT = '5e1f0000-0000-4000-8000-000000001001';
const FLEET_SIZE = 100;
const BATCH_SIZE = 10;
const BAKE_SECONDS = 2;
/** Polls of a rollout's state, 20 ms apart at least: room for a hundred migrations on a loaded machine. */
const ROLLOUT_POLLS = 6000;

interface RolloutBody {
  rolloutId: string;
  state: string;
  reason: string | null;
  counts: Record<string, number>;
  batches: Array<{ batch: number; state: string; instances: Array<{ instanceId: string; state: string }> }>;
}

interface RolloutEventBody {
  at: string;
  kind: string;
  batch: number | null;
  instanceId: string | null;
}

interface FleetInstance {
  instanceId: string;
  elementId: string;
}

/**
 * A fleet changed in batches over real Kafka and PostgreSQL, runtime and simulator as processes: a hundred instances
 * migrated to a new revision of their composition in batches of ten, each batch baking two seconds. The simulator's
 * control API makes the third batch's element unhealthy; the bake finds it (the runtime asks the simulator for a
 * status as the bake starts). With `onFailure: pause` the rollout waits for `resume`; with `onFailure: rollback` the
 * third batch migrates back and the rollout ends FAILED. The other batches are untouched, and the rollout's history
 * shows each batch's timing.
 */
describe('rollout of a fleet: 100 instances migrated in batches of 10 with a bake, over Kafka', () => {
  const suffix = randomUUID().slice(0, 8);
  const schema = `e2e_fleet_${suffix}`;
  const topics = { op: `acm-e2e-op-${suffix}`, sync: `acm-e2e-sync-${suffix}` };
  let runtimeUrl = '';
  let simUrl = '';
  let runtime: ProductProcess;
  let simulator: ProductProcess;
  let sourceId = '';
  let targetId = '';
  let fleet: FleetInstance[] = [];

  const api = (): request.Agent => request.agent(runtimeUrl).auth(USER, PASSWORD);
  const sim = (): request.Agent => request.agent(simUrl).auth('participantUser', 'zb!XztG34');

  const readRollout = async (rolloutId: string): Promise<RolloutBody> =>
    (await api().get(`${API}/rollouts/${rolloutId}`).expect(200)).body as RolloutBody;

  const rolloutWhere = (rolloutId: string, what: string, test: (rollout: RolloutBody) => boolean) =>
    eventually(
      what,
      async () => {
        const rollout = await readRollout(rolloutId);
        return test(rollout) ? rollout : undefined;
      },
      ROLLOUT_POLLS,
    );

  const rolloutHistory = async (rolloutId: string): Promise<RolloutEventBody[]> =>
    ((await api().get(`${API}/rollouts/${rolloutId}/history`).expect(200)).body as { events: RolloutEventBody[] })
      .events;

  /** Which composition each instance now belongs to, and its deploy state there. */
  async function placeOf(instanceId: string): Promise<string> {
    for (const compositionId of [sourceId, targetId]) {
      const response = await api().get(`${API}/compositions/${compositionId}/instances/${instanceId}`);
      if (response.status === 200) {
        return `${compositionId === sourceId ? 'source' : 'target'}/${(response.body as { deployState: string }).deployState}`;
      }
    }
    return 'nowhere';
  }

  const placesOf = (instances: readonly FleetInstance[]): Promise<string[]> =>
    Promise.all(instances.map((item) => placeOf(item.instanceId)));

  /**
   * The simulator finds the element of each instance (in `compositionId`) healthy or not whenever it observes it; a
   * status request makes it report at once, and the runtime has recorded it when this returns.
   */
  async function observeHealth(
    compositionId: string,
    instances: readonly FleetInstance[],
    healthy: boolean,
  ): Promise<void> {
    for (const { instanceId, elementId } of instances) {
      await sim()
        .put(`${SIM_API}/observations`)
        .send({ instanceId, elementId, healthy, reason: healthy ? 'recovered' : 'probe failed' })
        .expect(200);
    }
    await api().put(`${API}/participants`).expect(202);
    const wanted = healthy ? 'Healthy' : 'Degraded';
    await eventually(`${instances.length} elements observed ${wanted}`, async () => {
      const healths = await Promise.all(
        instances.map(async ({ instanceId, elementId }) => {
          const response = await api().get(`${API}/compositions/${compositionId}/instances/${instanceId}`).expect(200);
          const body = response.body as { observedHealth?: { elements: Record<string, { health: string }> } };
          return body.observedHealth?.elements[elementId]?.health;
        }),
      );
      return healths.every((health) => health === wanted) ? true : undefined;
    });
  }

  async function migrate(from: string, to: string, onFailure: string): Promise<string> {
    const created = await api()
      .post(`${API}/rollouts`)
      .send({
        order: 'MIGRATE',
        compositionId: from,
        compositionTargetId: to,
        instanceIds: fleet.map((item) => item.instanceId),
        strategy: { batchSize: BATCH_SIZE, bakeTime: BAKE_SECONDS, onFailure },
      })
      .expect(201);
    return (created.body as RolloutBody).rolloutId;
  }

  /** Each batch started after the one before it baked, and baked at least the bake time. */
  function expectBatchTimings(events: readonly RolloutEventBody[], batches: readonly number[]): void {
    const atOf = (kind: string, batch: number): number => {
      const found = events.filter((event) => event.kind === kind && event.batch === batch);
      expect(found.length).toBeGreaterThan(0);
      return Date.parse(found[found.length - 1]!.at);
    };
    for (const batch of batches) {
      expect(atOf('BAKE_ENDED', batch) - atOf('BAKE_STARTED', batch)).toBeGreaterThanOrEqual(BAKE_SECONDS * 1000);
      if (batch > 1) {
        expect(atOf('BATCH_STARTED', batch)).toBeGreaterThanOrEqual(atOf('BAKE_ENDED', batch - 1));
      }
    }
  }

  beforeAll(async () => {
    const [runtimePort, simPort] = await Promise.all([freePort(), freePort()]);
    runtimeUrl = `http://127.0.0.1:${runtimePort}`;
    simUrl = `http://127.0.0.1:${simPort}`;
    runtime = runtimeProcess(`runtime-fleet-${suffix}`, {
      port: runtimePort,
      schema,
      groupId: `acm-runtime-${suffix}`,
      topics,
      env: { HEART_BEAT: '200' },
    });
    runtime.start();
    await runtimeAnswering(api);
    simulator = simulatorProcess(`sim-fleet-${suffix}`, {
      port: simPort,
      participantId: SIM_PARTICIPANT,
      types: 'org.onap.policy.clamp.acm.SimAutomationCompositionElement:1.0.0',
      topics,
    });
    simulator.start();
    await participantKnown(api, SIM_PARTICIPANT);
    const sourceYaml = repoFile('tosca/examples/sim-single-element.yaml');
    sourceId = await commissionedAndPrimed(api, sourceYaml);
    targetId = await commissionedAndPrimed(api, simSingleElementNextRevision());

    for (let index = 0; index < FLEET_SIZE; index += 1) {
      const elementId = randomUUID();
      const body = repoFile('tosca/examples/instances/sim-single-element.json')
        .replace(/COMPOSITIONIDPLACEHOLDER/g, sourceId)
        .replace(new RegExp(FIXTURE_ELEMENT, 'g'), elementId)
        .replace('SimSingleElementInstance', `Site-${String(index).padStart(3, '0')}-${suffix}`);
      const response = await api()
        .post(`${API}/compositions/${sourceId}/instances`)
        .set('Content-Type', 'application/json')
        .send(body)
        .expect(201);
      fleet.push({ instanceId: (response.body as { instanceId: string }).instanceId, elementId });
    }
    const deploy = await api()
      .post(`${API}/rollouts`)
      .send({
        order: 'DEPLOY',
        compositionId: sourceId,
        instanceIds: fleet.map((item) => item.instanceId),
        strategy: { batchSize: FLEET_SIZE },
      })
      .expect(201);
    const deployed = await rolloutWhere(
      (deploy.body as RolloutBody).rolloutId,
      'the fleet deployed',
      (rollout) => rollout.state !== 'RUNNING',
    );
    expect(deployed.state).toBe('COMPLETED');
  }, 600_000);

  afterAll(async () => {
    fleet = [];
    await simulator?.stop();
    await runtime?.stop();
    await dropSchema(schema);
  });

  const batchOf = (batch: number): FleetInstance[] => fleet.slice((batch - 1) * BATCH_SIZE, batch * BATCH_SIZE);
  const after = (batch: number): FleetInstance[] => fleet.slice(batch * BATCH_SIZE);

  it('pauses when batch 3 turns unhealthy during its bake, leaves batches 4-10 untouched, finishes on resume', async () => {
    await observeHealth(sourceId, batchOf(3), false);
    const rolloutId = await migrate(sourceId, targetId, 'pause');

    const paused = await rolloutWhere(rolloutId, 'PAUSED', (rollout) => rollout.state !== 'RUNNING');
    expect(paused.state).toBe('PAUSED');
    // The first instance found unhealthy puts the batch over its threshold (0): the rollout pauses on it.
    expect(paused.reason).toMatch(/^batch 3 had \d+ failures, over the threshold 0$/);
    expect(paused.batches.slice(0, 2).map((batch) => batch.state)).toEqual(['ENDED', 'ENDED']);
    expect(paused.batches.slice(3).every((batch) => batch.state === 'PENDING')).toBe(true);
    const batchThree = paused.batches[2]!.instances.map((item) => item.state);
    expect(batchThree).toContain('UNHEALTHY');
    expect(batchThree.every((state) => state === 'UNHEALTHY' || state === 'DONE')).toBe(true);
    expect(new Set(await placesOf([...batchOf(1), ...batchOf(2), ...batchOf(3)]))).toEqual(
      new Set(['target/DEPLOYED']),
    );
    expect(new Set(await placesOf(after(3)))).toEqual(new Set(['source/DEPLOYED']));

    await observeHealth(targetId, batchOf(3), true);
    await api().post(`${API}/rollouts/${rolloutId}/resume`).expect(200);
    const done = await rolloutWhere(rolloutId, 'the rollout ended', (rollout) => rollout.state !== 'RUNNING');
    // Every batch ran; the batch that went over its threshold stays on the record of the rollout's end.
    expect({ state: done.state, reason: done.reason }).toEqual({
      state: 'FAILED',
      reason: 'batches over the failure threshold: 3',
    });
    expect(done.batches.every((batch) => batch.state === 'ENDED')).toBe(true);
    expect(done.counts).toMatchObject({ PENDING: 0, FAILED: 0 });
    expect(done.counts['DONE']! + done.counts['UNHEALTHY']!).toBe(FLEET_SIZE);
    expect(new Set(await placesOf(fleet))).toEqual(new Set(['target/DEPLOYED']));
    expectBatchTimings(await rolloutHistory(rolloutId), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  }, 600_000);

  it('rolls batch 3 back when it turns unhealthy during its bake, and ends FAILED with batches 4-10 untouched', async () => {
    await observeHealth(targetId, batchOf(3), false);
    const rolloutId = await migrate(targetId, sourceId, 'rollback');

    const failed = await rolloutWhere(
      rolloutId,
      'the rollout ended',
      (rollout) => !['RUNNING', 'ROLLING_BACK'].includes(rollout.state),
    );
    expect(failed.state).toBe('FAILED');
    expect(failed.reason).toMatch(/^batch 3 had \d+ failures, over the threshold 0; rolled back$/);
    expect(failed.batches.map((batch) => batch.instances.every((item) => item.state === 'DONE'))).toEqual([
      true,
      true,
      ...Array.from({ length: 8 }, () => false),
    ]);
    expect(failed.batches[2]!.instances.map((item) => item.state)).toEqual(
      Array.from({ length: BATCH_SIZE }, () => 'ROLLED_BACK'),
    );
    expect(failed.batches.slice(3).every((batch) => batch.instances.every((item) => item.state === 'PENDING'))).toBe(
      true,
    );
    // Batches 1 and 2 moved back to the source; batch 3 was migrated there and back again; the rest never moved.
    expect(new Set(await placesOf([...batchOf(1), ...batchOf(2)]))).toEqual(new Set(['source/DEPLOYED']));
    expect(new Set(await placesOf([...batchOf(3), ...after(3)]))).toEqual(new Set(['target/DEPLOYED']));
    const events = await rolloutHistory(rolloutId);
    expect(new Set(events.filter((event) => event.kind === 'ROLLBACK_ENDED').map((event) => event.instanceId))).toEqual(
      new Set(batchOf(3).map((item) => item.instanceId)),
    );
    expect(events.some((event) => event.kind === 'BATCH_STARTED' && event.batch === 4)).toBe(false);
    expectBatchTimings(events, [1, 2]);
  }, 600_000);
});
