import { eventually } from '../support/scripted-participant';
import { FaultWorld } from './fault-harness';

const API = '/onap/policy/clamp/acm/v2';
const INSTANCES = 30;
const BATCH_SIZE = 5;
const BATCHES = INSTANCES / BATCH_SIZE;
const ELEMENT_MS = 300;
const RUNTIME_ENV = { HEART_BEAT: '500', MAX_OPERATION_WAIT: '600000' };

interface RolloutView {
  state: string;
  counts: Record<string, number>;
  batches: Array<{ state: string }>;
}

interface RolloutHistoryEvent {
  kind: string;
  batch: number | null;
  instanceId: string | null;
}

interface InstanceHistoryEvent {
  event: string;
}

/** A rollout of 30 instances of the three-phase composition, DEPLOY in batches of 5; answers its id. */
async function startRollout(world: FaultWorld, compositionId: string, instanceIds: readonly string[]): Promise<string> {
  const created = await world.call(
    world
      .api()
      .post(`${API}/rollouts`)
      .send({
        order: 'DEPLOY',
        compositionId,
        instanceIds,
        strategy: { batchSize: BATCH_SIZE },
      }),
  );
  if (created.status !== 201) {
    throw new Error(`Rollout not created: ${created.status} ${JSON.stringify(created.body)}`);
  }
  return (created.body as { rolloutId: string }).rolloutId;
}

/** The rollout once `test` holds; a runtime that does not answer yet (just restarted) is polled again. */
function rolloutWhere(
  world: FaultWorld,
  rolloutId: string,
  what: string,
  test: (rollout: RolloutView) => boolean,
): Promise<RolloutView> {
  return eventually(
    what,
    async () => {
      const response = await world.call(world.api().get(`${API}/rollouts/${rolloutId}`));
      const rollout = response.body as RolloutView;
      return response.status === 200 && test(rollout) ? rollout : undefined;
    },
    3000,
  );
}

/** The batch (from 1) the rollout runs now, once one after the first is RUNNING: where a kill lands. */
const batchRunning =
  (batch: number) =>
  (rollout: RolloutView): boolean =>
    rollout.batches[batch - 1]?.state === 'RUNNING';

/**
 * What proves that no instance was ordered twice, from three sources: the simulator's own log (each element of
 * each instance run exactly once, every instance run: fault figures), each instance's history (one ORDERED), and
 * the rollout's history (one INSTANCE_ORDERED per instance, each batch started once and in order).
 */
async function expectEachInstanceOrderedOnce(
  world: FaultWorld,
  compositionId: string,
  rolloutId: string,
  instanceIds: readonly string[],
  simulatorUrl: string,
  label: string,
): Promise<void> {
  const figures = await world.figures(compositionId, instanceIds, [await world.runsOf(simulatorUrl)], new Set());
  const ordersPerInstance = await Promise.all(
    instanceIds.map(async (instanceId) => {
      const response = await world.call(
        world.api().get(`${API}/compositions/${compositionId}/instances/${instanceId}/history`),
      );
      return (response.body as { events: InstanceHistoryEvent[] }).events.filter((event) => event.event === 'ORDERED')
        .length;
    }),
  );
  const history = (
    (await world.call(world.api().get(`${API}/rollouts/${rolloutId}/history`))).body as {
      events: RolloutHistoryEvent[];
    }
  ).events;
  const rolloutOrders = new Map<string, number>();
  for (const event of history.filter((item) => item.kind === 'INSTANCE_ORDERED')) {
    rolloutOrders.set(event.instanceId!, (rolloutOrders.get(event.instanceId!) ?? 0) + 1);
  }
  process.stdout.write(`${label} figures: ${JSON.stringify(figures)}\n`);
  expect(figures).toMatchObject({ lost: 0, stuck: 0, duplicated: 0, serverErrors: 0 });
  expect(figures.elementRuns).toBe(INSTANCES * 6);
  expect(ordersPerInstance).toEqual(instanceIds.map(() => 1));
  expect(instanceIds.map((instanceId) => rolloutOrders.get(instanceId) ?? 0)).toEqual(instanceIds.map(() => 1));
  expect(history.filter((event) => event.kind === 'BATCH_STARTED').map((event) => event.batch)).toEqual(
    Array.from({ length: BATCHES }, (_, index) => index + 1),
  );
}

/**
 * Scenario of the fault suite for rollouts: a rollout is durable. The runtime driving it is killed with SIGKILL
 * while a batch runs (twice), or one of two replicas is; the runtime that remains takes the rollout over once the
 * dead driver's lease ends, resumes it where it was and finishes it, and no instance is ordered twice.
 */
describe('fault: the runtime killed in the middle of a rollout', () => {
  describe('one runtime, killed twice and restarted', () => {
    const world = new FaultWorld();

    beforeAll(async () => {
      await world.startRuntime(RUNTIME_ENV);
    });

    afterAll(async () => {
      await world.stopAll();
    });

    it('resumes the rollout where it was and finishes it, each instance ordered once', async () => {
      const simulator = await world.startSimulator('sim', ELEMENT_MS);
      await eventually('the participant', async () => ((await world.onlineReplicas()) >= 1 ? true : undefined), 1500);
      const compositionId = await world.primedComposition();
      const instanceIds = await world.createInstances(compositionId, INSTANCES);
      const rolloutId = await startRollout(world, compositionId, instanceIds);

      await rolloutWhere(world, rolloutId, 'batch 2 running', batchRunning(2));
      await world.restartRuntime();
      const resumed = await rolloutWhere(world, rolloutId, 'batch 4 running', batchRunning(4));
      // Batches before the one running ended before the second kill: the restarted runtime moved on from them.
      expect(resumed.batches.slice(0, 3).map((batch) => batch.state)).toEqual(['ENDED', 'ENDED', 'ENDED']);
      await world.restartRuntime();

      const done = await rolloutWhere(world, rolloutId, 'COMPLETED', (rollout) => rollout.state === 'COMPLETED');
      expect(done.counts).toMatchObject({ DONE: INSTANCES, FAILED: 0, REFUSED: 0, PENDING: 0 });
      await expectEachInstanceOrderedOnce(world, compositionId, rolloutId, instanceIds, simulator.url, 'rollout-kill');
    });
  });

  describe('two runtime replicas, the first killed', () => {
    const world = new FaultWorld();

    beforeAll(async () => {
      await world.startRuntime(RUNTIME_ENV);
      await world.startRuntimeReplica(RUNTIME_ENV);
    });

    afterAll(async () => {
      await world.stopAll();
    });

    it('both replicas sweep the rollout, one drives it at a time; the survivor finishes it, each instance ordered once', async () => {
      const simulator = await world.startSimulator('sim', ELEMENT_MS);
      await eventually('the participant', async () => ((await world.onlineReplicas()) >= 1 ? true : undefined), 1500);
      const compositionId = await world.primedComposition();
      const instanceIds = await world.createInstances(compositionId, INSTANCES);
      const rolloutId = await startRollout(world, compositionId, instanceIds);

      // Both replicas consume the participant's answers and sweep every 500 ms: each would step the rollout.
      await rolloutWhere(world, rolloutId, 'batch 3 running', batchRunning(3));
      await world.killFirstRuntime();

      const done = await rolloutWhere(world, rolloutId, 'COMPLETED', (rollout) => rollout.state === 'COMPLETED');
      expect(done.counts).toMatchObject({ DONE: INSTANCES, FAILED: 0, REFUSED: 0, PENDING: 0 });
      await expectEachInstanceOrderedOnce(
        world,
        compositionId,
        rolloutId,
        instanceIds,
        simulator.url,
        'rollout-replicas',
      );
    });
  });
});
