import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { ProductProcess } from '../support/processes';
import { freePort, runtimeProcess, simulatorProcess } from '../support/processes';
import { PASSWORD, USER } from '../support/runtime-harness';
import { commissionedAndPrimed, dropSchema, participantKnown, runtimeAnswering } from '../support/e2e-stack';
import { eventually } from '../support/scripted-participant';
import { repoFile } from './lifecycle.scenarios';

const SIM_PARTICIPANT = '101c62b3-8918-41b9-a747-d21eb79c6c90';
const API = '/onap/policy/clamp/acm/v2';
const SIM_API = '/onap/policy/simparticipant/v2';
const FIXTURE_ELEMENT = '5e1f0000-0000-4000-8000-000000001001';

interface RolloutBody {
  rolloutId: string;
  state: string;
  counts: Record<string, number>;
  batches: Array<{ state: string; instances: Array<{ instanceId: string; state: string }> }>;
}

interface HistoryEvent {
  event: string;
  sequence: number;
}

/**
 * Rollouts over real Kafka and PostgreSQL, runtime and simulator as processes: six instances deployed in batches of
 * two, batches in order in the history, pause and resume; and a runtime killed with SIGKILL in the middle of a
 * rollout, which the restarted runtime finishes with no instance ordered twice.
 */
describe('rollouts: runtime + simulator as processes over Kafka', () => {
  const suffix = randomUUID().slice(0, 8);
  const schema = `e2e_rollouts_${suffix}`;
  const topics = { op: `acm-e2e-op-${suffix}`, sync: `acm-e2e-sync-${suffix}` };
  let runtimeUrl = '';
  let simUrl = '';
  let runtimePort = 0;
  let runtime: ProductProcess;
  let simulator: ProductProcess;
  let compositionId = '';

  const api = (): request.Agent => request.agent(runtimeUrl).auth(USER, PASSWORD);
  const sim = (): request.Agent => request.agent(simUrl).auth('participantUser', 'zb!XztG34');

  const newRuntime = (): ProductProcess =>
    runtimeProcess(`runtime-rollouts-${suffix}`, {
      port: runtimePort,
      schema,
      groupId: `acm-runtime-${suffix}`,
      topics,
      env: { HEART_BEAT: '200' },
    });

  beforeAll(async () => {
    let simPort: number;
    [runtimePort, simPort] = await Promise.all([freePort(), freePort()]);
    runtimeUrl = `http://127.0.0.1:${runtimePort}`;
    simUrl = `http://127.0.0.1:${simPort}`;
    runtime = newRuntime();
    runtime.start();
    await runtimeAnswering(api);
    simulator = simulatorProcess(`sim-rollouts-${suffix}`, {
      port: simPort,
      participantId: SIM_PARTICIPANT,
      types: 'org.onap.policy.clamp.acm.SimAutomationCompositionElement:1.0.0',
      topics,
    });
    simulator.start();
    await participantKnown(api, SIM_PARTICIPANT);
    compositionId = await commissionedAndPrimed(api, repoFile('tosca/examples/sim-single-element.yaml'));
  }, 120_000);

  afterAll(async () => {
    await simulator?.stop();
    await runtime?.stop();
    await dropSchema(schema);
  });

  async function instantiate(count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let index = 0; index < count; index += 1) {
      const body = repoFile('tosca/examples/instances/sim-single-element.json')
        .replace(/COMPOSITIONIDPLACEHOLDER/g, compositionId)
        .replace(new RegExp(FIXTURE_ELEMENT, 'g'), randomUUID())
        .replace('SimSingleElementInstance', `Rollout-${randomUUID().slice(0, 8)}`);
      const response = await api()
        .post(`${API}/compositions/${compositionId}/instances`)
        .set('Content-Type', 'application/json')
        .send(body)
        .expect(201);
      ids.push((response.body as { instanceId: string }).instanceId);
    }
    return ids;
  }

  const readRollout = async (rolloutId: string): Promise<RolloutBody> =>
    (await api().get(`${API}/rollouts/${rolloutId}`).expect(200)).body as RolloutBody;

  /** The rollout once `test` holds (each probe 20 ms apart, 30 s at most). */
  const rolloutWhere = (
    rolloutId: string,
    what: string,
    test: (rollout: RolloutBody) => boolean,
  ): Promise<RolloutBody> =>
    eventually(
      what,
      async () => {
        const rollout = await readRollout(rolloutId);
        return test(rollout) ? rollout : undefined;
      },
      1500,
    );

  async function history(instanceId: string): Promise<HistoryEvent[]> {
    return (
      (await api().get(`${API}/compositions/${compositionId}/instances/${instanceId}/history`).expect(200)).body as {
        events: HistoryEvent[];
      }
    ).events;
  }

  it('deploys 6 instances in batches of 2, in order, and holds the next batch while paused', async () => {
    const ids = await instantiate(6);
    // Deploys that take a while, so the pause below reaches the rollout while its first batch still runs.
    await sim().put(`${SIM_API}/parameters`).send({ deployTimerMs: 300 }).expect(200);
    const created = await api()
      .post(`${API}/rollouts`)
      .send({ order: 'DEPLOY', compositionId, instanceIds: ids, strategy: { batchSize: 2 } })
      .expect(201);
    const current = (created.body as RolloutBody).rolloutId;
    await api().post(`${API}/rollouts/${current}/pause`).expect(200);
    await sim().put(`${SIM_API}/parameters`).send({}).expect(200);
    // A pause lets the batch it found running end and starts no other: those not started then stay PENDING.
    const started = (await readRollout(current)).batches.filter((batch) => batch.state !== 'PENDING').length;
    expect(started).toBeLessThan(3);
    const held = await rolloutWhere(current, 'the batches started before the pause ended', (rollout) =>
      rollout.batches.slice(0, started).every((batch) => batch.state === 'ENDED'),
    );
    expect(held.state).toBe('PAUSED');
    expect(held.batches.slice(started).map((batch) => batch.state)).toEqual(
      Array.from({ length: 3 - started }, () => 'PENDING'),
    );
    await api().post(`${API}/rollouts/${current}/resume`).expect(200);
    const done = await rolloutWhere(current, 'COMPLETED', (rollout) => rollout.state === 'COMPLETED');
    expect(done.counts).toMatchObject({ DONE: 6, FAILED: 0, PENDING: 0 });

    const marks = await Promise.all(
      ids.map(async (id) => {
        const events = await history(id);
        return {
          ordered: events.find((event) => event.event === 'ORDERED')!.sequence,
          completed: events.find((event) => event.event === 'COMPLETED')!.sequence,
        };
      }),
    );
    for (const batch of [1, 2]) {
      const lastCompletion = Math.max(...marks.slice((batch - 1) * 2, batch * 2).map((mark) => mark.completed));
      const firstOrder = Math.min(...marks.slice(batch * 2, batch * 2 + 2).map((mark) => mark.ordered));
      expect(firstOrder).toBeGreaterThan(lastCompletion);
    }
  }, 120_000);

  it('finishes a rollout after a SIGKILL of the runtime in its middle, each instance ordered once', async () => {
    const ids = await instantiate(6);
    // Slow deploys, so the kill lands while a batch runs.
    await sim().put(`${SIM_API}/parameters`).send({ deployTimerMs: 1500 }).expect(200);
    try {
      const created = await api()
        .post(`${API}/rollouts`)
        .send({ order: 'DEPLOY', compositionId, instanceIds: ids, strategy: { batchSize: 2 } })
        .expect(201);
      const current = (created.body as RolloutBody).rolloutId;
      await rolloutWhere(current, 'batch 2 running', (rollout) => rollout.batches[1]!.state === 'RUNNING');
      await runtime.stop('SIGKILL');
      runtime = newRuntime();
      runtime.start();
      await runtimeAnswering(api);
      const done = await rolloutWhere(
        current,
        'COMPLETED after the restart',
        (rollout) => rollout.state === 'COMPLETED',
      );
      expect(done.counts).toMatchObject({ DONE: 6, FAILED: 0, REFUSED: 0 });
      for (const id of ids) {
        const orders = (await history(id)).filter((event) => event.event === 'ORDERED');
        expect(orders).toHaveLength(1);
      }
    } finally {
      await sim().put(`${SIM_API}/parameters`).send({}).expect(200);
    }
  }, 120_000);

  it('rolls back the completed instances of a failing batch when the simulator fails one deploy, batch 3 untouched', async () => {
    const ids = await instantiate(6);
    // The simulator fails the deploy of batch 2's second instance only; one deploy at a time, so its first is done.
    await sim()
      .put(`${SIM_API}/failures`)
      .send({ instances: [{ instanceId: ids[3], operations: ['deploy'] }] })
      .expect(200);
    try {
      const created = await api()
        .post(`${API}/rollouts`)
        .send({
          order: 'DEPLOY',
          compositionId,
          instanceIds: ids,
          strategy: { batchSize: 2, maxInFlight: 1, onFailure: 'rollback' },
        })
        .expect(201);
      const current = (created.body as RolloutBody).rolloutId;
      const failed = await rolloutWhere(current, 'FAILED', (rollout) => rollout.state === 'FAILED');
      expect(failed.batches.map((batch) => batch.instances.map((item) => item.state))).toEqual([
        ['DONE', 'DONE'],
        ['ROLLED_BACK', 'FAILED'],
        ['PENDING', 'PENDING'],
      ]);
      const deployState = async (id: string): Promise<string> =>
        (
          (await api().get(`${API}/compositions/${compositionId}/instances/${id}`).expect(200)).body as {
            deployState: string;
          }
        ).deployState;
      expect(await deployState(ids[0]!)).toBe('DEPLOYED');
      expect(await deployState(ids[2]!)).toBe('UNDEPLOYED');
      for (const id of ids.slice(4)) {
        expect(await deployState(id)).toBe('UNDEPLOYED');
        expect((await history(id)).filter((event) => event.event === 'ORDERED')).toHaveLength(0);
      }
      const events = (
        (await api().get(`${API}/rollouts/${current}/history`).expect(200)).body as {
          events: Array<{ kind: string; batch: number | null; instanceId: string | null }>;
        }
      ).events;
      expect(events.filter((event) => event.kind === 'ROLLBACK_ENDED').map((event) => event.instanceId)).toEqual([
        ids[2],
      ]);
      expect(events.some((event) => event.kind === 'BATCH_STARTED' && event.batch === 3)).toBe(false);
    } finally {
      await sim().put(`${SIM_API}/failures`).send({ instances: [] }).expect(200);
    }
  }, 120_000);
});
