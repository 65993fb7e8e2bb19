import type { RuntimeHarness } from './support/runtime-harness';
import { BASE, commissionAndPrime, createInstanceFrom, readRepoFile } from './support/runtime-harness';
import type { ScriptedParticipant } from './support/scripted-participant';
import { eventually } from './support/scripted-participant';
import { startWithScriptedParticipant } from './support/scripted-runtime';

const FLEET = 20;

interface RolloutBody {
  rolloutId: string;
  state: string;
  counts: Record<string, number>;
  batches: Array<{ state: string; instances: Array<{ instanceId: string }> }>;
}

/**
 * A rollout over every instance of a composition (no instanceIds), in a runtime of its own so the composition holds
 * only this fleet. Batches end faster than a step gives the next orders, so operations end while the rollout is
 * being stepped: each such ending must still step it (the sweep is an hour away here).
 */
describe('a rollout over every instance of a composition', () => {
  let runtime: RuntimeHarness;
  let participant: ScriptedParticipant;

  beforeAll(async () => {
    ({ runtime, participant } = await startWithScriptedParticipant({ HEART_BEAT: '3600000' }));
  });

  afterAll(async () => {
    await participant.stop();
    await runtime.close();
  });

  it(`deploys ${FLEET} instances in batches of 10%, in instance id order, every one once`, async () => {
    const compositionId = await commissionAndPrime(runtime, readRepoFile('tosca/examples/sim-single-element.yaml'));
    const json = readRepoFile('tosca/examples/instances/sim-single-element.json');
    const ids: string[] = [];
    for (let index = 0; index < FLEET; index += 1) {
      ids.push((await createInstanceFrom(runtime, compositionId, json)).instanceId);
    }
    const created = await runtime.http
      .post(`${BASE}/rollouts`)
      .send({ order: 'DEPLOY', compositionId, strategy: { batchSize: '10%' } })
      .expect(201);
    const rolloutId = (created.body as RolloutBody).rolloutId;
    const done = await eventually(
      'COMPLETED',
      async () => {
        const rollout = (await runtime.http.get(`${BASE}/rollouts/${rolloutId}`).expect(200)).body as RolloutBody;
        return rollout.state === 'COMPLETED' ? rollout : undefined;
      },
      1500,
    );
    expect(done.counts).toMatchObject({ PENDING: 0, ORDERED: 0, DONE: FLEET, FAILED: 0, REFUSED: 0, ROLLED_BACK: 0 });
    expect(done.batches).toHaveLength(10);
    expect(done.batches.flatMap((batch) => batch.instances.map((item) => item.instanceId))).toEqual([...ids].sort());
    for (const id of ids) {
      expect(participant.phaseMessages(id)).toHaveLength(1);
    }
  });
});
