import { eventually } from '../support/scripted-participant';
import { FaultWorld } from './fault-harness';

const INSTANCES = 8;
const ELEMENT_MS = 1500;

/**
 * Scenario 3 of the fault suite: a participant is killed with SIGKILL mid-phase and started again as a
 * new process (a new replica of the same participantId). Its unfinished work must be picked up at once —
 * long before the dead replica is OFF_LINE (MAX_STATUS_WAIT keeps its 150 s default) — with no element
 * lost, stuck or run twice.
 */
describe('fault: a participant killed mid-phase and restarted', () => {
  const world = new FaultWorld();

  beforeAll(async () => {
    await world.startRuntime({ HEART_BEAT: '500', MAX_OPERATION_WAIT: '600000' });
  });

  afterAll(async () => {
    await world.stopAll();
  });

  it('finishes the killed replica’s work at once on the restarted one, nothing lost, stuck or run twice', async () => {
    const first = await world.startSimulator('sim-first', ELEMENT_MS);
    await eventually(
      'the participant to register',
      async () => ((await world.onlineReplicas()) >= 1 ? true : undefined),
      1500,
    );
    const compositionId = await world.primedComposition();
    const instanceIds = await world.deployInstances(compositionId, INSTANCES);

    // Kill the participant while phase-0 elements are running (their handlers take ELEMENT_MS).
    await eventually(
      'the participant to be working',
      async () => ((await world.runsOf(first.url)).size >= INSTANCES ? true : undefined),
      1500,
    );
    await first.process.stop('SIGKILL');
    // What the killed replica had finished, as the runtime saw it: the restarted one must not redo it.
    const deployedBefore = await world.deployedElements(compositionId, instanceIds);
    const second = await world.startSimulator('sim-restarted', ELEMENT_MS);

    // 2,000 polls: far less than MAX_STATUS_WAIT (150 s) on an idle machine, and bounded on a loaded one.
    await world.allDeployed(compositionId, instanceIds, 2000);
    const figures = await world.figures(compositionId, instanceIds, [await world.runsOf(second.url)], deployedBefore);
    process.stdout.write(`participant-restart figures: ${JSON.stringify(figures)}\n`);
    expect(figures).toMatchObject({ lost: 0, stuck: 0, duplicated: 0, serverErrors: 0 });
    expect(figures.elementResults).toBe(figures.orders * 6);
  });
});
