import { eventually } from '../support/scripted-participant';
import { FaultWorld } from './fault-harness';

const INSTANCES = 8;
const ELEMENT_MS = 800;

/**
 * Scenario 4 of the fault suite: of two replicas of one participant, the idle one is frozen (SIGSTOP)
 * while the other works. The frozen one goes OFF_LINE (MAX_STATUS_WAIT 3 s); that must not make the
 * runtime hand the working replica's orders to anyone else, so nothing runs twice and every deploy ends.
 * The frozen process is killed at the end, never resumed.
 */
describe('fault: a participant replica goes silent while another works', () => {
  const world = new FaultWorld();

  beforeAll(async () => {
    await world.startRuntime({ HEART_BEAT: '500', MAX_STATUS_WAIT: '3000', MAX_OPERATION_WAIT: '600000' });
  });

  afterAll(async () => {
    await world.stopAll();
  });

  it('finishes every deploy on the working replica, nothing lost, stuck or run twice', async () => {
    const replicas = [await world.startSimulator('sim-a', ELEMENT_MS), await world.startSimulator('sim-b', ELEMENT_MS)];
    await eventually(
      'two replicas ON_LINE',
      async () => ((await world.onlineReplicas()) >= 2 ? true : undefined),
      1500,
    );
    const compositionId = await world.primedComposition();
    const instanceIds = await world.deployInstances(compositionId, INSTANCES);
    const working = await eventually(
      'a replica to be working',
      async () => {
        for (const replica of replicas) {
          if ((await world.runsOf(replica.url)).size > 0) {
            return replica;
          }
        }
        return undefined;
      },
      1500,
    );
    const silent = replicas.find((replica) => replica !== working)!;
    const silentRuns = await world.runsOf(silent.url);
    silent.process.signal('SIGSTOP');
    try {
      await world.allDeployed(compositionId, instanceIds, 3000);
      // The frozen replica is OFF_LINE long before the deploys end (MAX_STATUS_WAIT 3 s).
      await eventually(
        'the frozen replica OFF_LINE',
        async () => ((await world.onlineReplicas()) === 1 ? true : undefined),
        1500,
      );
    } finally {
      await silent.process.stop('SIGKILL');
    }
    const figures = await world.figures(
      compositionId,
      instanceIds,
      [silentRuns, await world.runsOf(working.url)],
      new Set(),
    );
    process.stdout.write(`silent-replica figures: ${JSON.stringify(figures)}\n`);
    expect(figures).toMatchObject({ lost: 0, stuck: 0, duplicated: 0, serverErrors: 0 });
    expect(figures.elementResults).toBe(figures.orders * 6);
  });
});
