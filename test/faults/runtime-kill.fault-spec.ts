import { eventually } from '../support/scripted-participant';
import { FaultWorld } from './fault-harness';

const INSTANCES = 6;
const ELEMENT_MS = 300;
const ROUNDS = 3;

/**
 * Scenarios 1 and 2 of the fault suite: the runtime killed with SIGKILL at random points of concurrent
 * deploys, restarted after each kill; and two runtime replicas (one schema, one consumer group) of which
 * one is killed mid-deploy. Every deploy must end, each element run and reported once.
 */
describe('fault: the runtime killed mid-deploy', () => {
  describe('one runtime, killed and restarted several times', () => {
    const world = new FaultWorld();

    beforeAll(async () => {
      await world.startRuntime({ HEART_BEAT: '500', MAX_OPERATION_WAIT: '600000' });
    });

    afterAll(async () => {
      await world.stopAll();
    });

    it('resumes every deploy after each restart, nothing lost, stuck or run twice', async () => {
      const simulator = await world.startSimulator('sim', ELEMENT_MS);
      await eventually('the participant', async () => ((await world.onlineReplicas()) >= 1 ? true : undefined), 1500);
      const compositionId = await world.primedComposition();
      const instanceIds: string[] = [];
      for (let round = 0; round < ROUNDS; round += 1) {
        instanceIds.push(...(await world.deployInstances(compositionId, INSTANCES)));
        // A random point of the deploys: after 0 to 2 more element runs.
        const before = (await world.runsOf(simulator.url)).size;
        const more = Math.floor(Math.random() * 3);
        await eventually(
          `${more} more element runs in round ${round}`,
          async () => ((await world.runsOf(simulator.url)).size >= before + more ? true : undefined),
          1500,
        );
        await world.restartRuntime();
      }
      await world.allDeployed(compositionId, instanceIds, 3000);
      const figures = await world.figures(compositionId, instanceIds, [await world.runsOf(simulator.url)], new Set());
      process.stdout.write(`runtime-kill figures: ${JSON.stringify({ ...figures, kills: ROUNDS })}\n`);
      expect(figures).toMatchObject({ lost: 0, stuck: 0, duplicated: 0, serverErrors: 0 });
      expect(figures.elementRuns).toBe(figures.orders * 6);
    });
  });

  describe('two runtime replicas, one killed', () => {
    const world = new FaultWorld();

    beforeAll(async () => {
      await world.startRuntime({ HEART_BEAT: '500', MAX_OPERATION_WAIT: '600000' });
      await world.startRuntimeReplica({ HEART_BEAT: '500', MAX_OPERATION_WAIT: '600000' });
    });

    afterAll(async () => {
      await world.stopAll();
    });

    it('the surviving replica finishes every deploy, nothing lost, stuck or run twice', async () => {
      const simulator = await world.startSimulator('sim', ELEMENT_MS);
      await eventually('the participant', async () => ((await world.onlineReplicas()) >= 1 ? true : undefined), 1500);
      const compositionId = await world.primedComposition();
      const instanceIds = await world.deployInstances(compositionId, 2 * INSTANCES);
      await eventually(
        'the deploys to be under way',
        async () => ((await world.runsOf(simulator.url)).size >= INSTANCES ? true : undefined),
        1500,
      );
      await world.killFirstRuntime();
      await world.allDeployed(compositionId, instanceIds, 3000);
      const figures = await world.figures(compositionId, instanceIds, [await world.runsOf(simulator.url)], new Set());
      process.stdout.write(`runtime-replicas figures: ${JSON.stringify(figures)}\n`);
      expect(figures).toMatchObject({ lost: 0, stuck: 0, duplicated: 0, serverErrors: 0 });
      expect(figures.elementRuns).toBe(figures.orders * 6);
    });
  });
});
