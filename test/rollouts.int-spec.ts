import { randomUUID } from 'node:crypto';
import { RolloutStore, decideRollout, isRefusal, newRollout, parseRolloutRequest } from '@acm/domain';
import { RolloutService } from '../apps/runtime-acm/src/application/rollout.service';
import type { RuntimeHarness } from './support/runtime-harness';
import {
  BASE,
  commissionAndPrime,
  createInstanceFrom,
  historyOf,
  instanceOf,
  orderInstance,
  readRepoFile,
  simSingleElementNextRevision,
} from './support/runtime-harness';
import type { ScriptedParticipant } from './support/scripted-participant';
import { eventually } from './support/scripted-participant';
import { startWithScriptedParticipant } from './support/scripted-runtime';

const definitionYaml = readRepoFile('tosca/examples/sim-single-element.yaml');
const instanceJson = readRepoFile('tosca/examples/instances/sim-single-element.json');

interface RolloutBody {
  rolloutId: string;
  state: string;
  reason: string | null;
  counts: Record<string, number>;
  batches: Array<{
    batch: number;
    state: string;
    failures: number;
    instances: Array<{ instanceId: string; state: string; reason: string | null }>;
  }>;
}

const NO_INSTANCES = {
  PENDING: 0,
  ORDERED: 0,
  DONE: 0,
  FAILED: 0,
  REFUSED: 0,
  ROLLING_BACK: 0,
  ROLLED_BACK: 0,
  ROLLBACK_FAILED: 0,
  UNHEALTHY: 0,
};

interface RolloutEventBody {
  at: string;
  kind: string;
  batch: number | null;
  instanceId: string | null;
  state: string | null;
  reason: string | null;
  actor: Record<string, unknown>;
}

interface HistoryEvent {
  event: string;
  sequence: number;
}

/**
 * Rollouts on the real store (PostgreSQL), the in-process bus and a scripted participant: batches run in order, each
 * judged on the operations the rollout started; a failing batch pauses the rollout until resume; overlapping and
 * refused selections are answered 409 and 400.
 */
describe('rollouts (PostgreSQL, in-process bus, scripted participant)', () => {
  let runtime: RuntimeHarness;
  let participant: ScriptedParticipant;
  let compositionId: string;

  beforeAll(async () => {
    // The sweep would also drive the rollouts; a long period shows the committed events alone drive them.
    ({ runtime, participant } = await startWithScriptedParticipant({ HEART_BEAT: '3600000' }));
    compositionId = await commissionAndPrime(runtime, definitionYaml);
  });

  afterAll(async () => {
    await participant.stop();
    await runtime.close();
  });

  async function instances(count: number): Promise<Array<{ instanceId: string; elementIds: string[] }>> {
    const created = [];
    for (let index = 0; index < count; index += 1) {
      created.push(await createInstanceFrom(runtime, compositionId, instanceJson));
    }
    return created;
  }

  /** Answers every phase message the participant holds for these instances (a repeated answer changes nothing). */
  async function answerHeld(instanceIds: readonly string[]): Promise<void> {
    await eventually('the phase messages', () =>
      instanceIds.every((id) => participant.phaseMessages(id).length > 0) ? true : undefined,
    );
    for (const id of instanceIds) {
      for (const message of participant.phaseMessages(id)) {
        await participant.ack(message, participant.myElements(message));
      }
    }
  }

  const readRollout = async (rolloutId: string): Promise<RolloutBody> =>
    (await runtime.http.get(`${BASE}/rollouts/${rolloutId}`).expect(200)).body as RolloutBody;

  const rolloutIn = (rolloutId: string, state: string): Promise<RolloutBody> =>
    eventually(`rollout ${state}`, async () => {
      const rollout = await readRollout(rolloutId);
      return rollout.state === state ? rollout : undefined;
    });

  it('deploys 6 instances in batches of 2, each batch ordered after the one before completed', async () => {
    const fleet = await instances(6);
    const ids = fleet.map((item) => item.instanceId);
    const created = await runtime.http
      .post(`${BASE}/rollouts`)
      .send({ order: 'DEPLOY', compositionId, instanceIds: ids, strategy: { batchSize: 2 } })
      .expect(201);
    const started = created.body as RolloutBody;
    expect(started.batches.map((batch) => batch.instances.map((item) => item.instanceId))).toEqual([
      ids.slice(0, 2),
      ids.slice(2, 4),
      ids.slice(4, 6),
    ]);
    expect(started.batches[2]!.state).toBe('PENDING');

    const done = await rolloutIn(started.rolloutId, 'COMPLETED');
    expect(done.counts).toEqual({ ...NO_INSTANCES, DONE: 6 });
    expect(done.batches.map((batch) => batch.state)).toEqual(['ENDED', 'ENDED', 'ENDED']);
    for (const id of ids) {
      expect((await instanceOf<{ deployState: string }>(runtime, compositionId, id)).deployState).toBe('DEPLOYED');
    }
    // The history: every order of batch k+1 after the last completion of batch k.
    const sequences = await Promise.all(
      ids.map(async (id) => {
        const events = await historyOf<HistoryEvent>(runtime, compositionId, id);
        return {
          ordered: events.find((event) => event.event === 'ORDERED')!.sequence,
          completed: events.find((event) => event.event === 'COMPLETED')!.sequence,
        };
      }),
    );
    for (const batch of [1, 2]) {
      const lastCompletion = Math.max(...sequences.slice((batch - 1) * 2, batch * 2).map((item) => item.completed));
      const firstOrder = Math.min(...sequences.slice(batch * 2, batch * 2 + 2).map((item) => item.ordered));
      expect(firstOrder).toBeGreaterThan(lastCompletion);
    }
    expect(
      ((await runtime.http.get(`${BASE}/rollouts`).expect(200)).body as { rollouts: RolloutBody[] }).rollouts.map(
        (rollout) => rollout.rolloutId,
      ),
    ).toContain(started.rolloutId);
  });

  it('pauses on a batch over the failure threshold, and goes on after resume', async () => {
    const fleet = await instances(4);
    const ids = fleet.map((item) => item.instanceId);
    participant.failing.add(fleet[1]!.elementIds[0]!);
    const created = await runtime.http
      .post(`${BASE}/rollouts`)
      .send({ order: 'DEPLOY', compositionId, instanceIds: ids, strategy: { batchSize: '50%', onFailure: 'pause' } })
      .expect(201);
    const rolloutId = (created.body as RolloutBody).rolloutId;
    const paused = await rolloutIn(rolloutId, 'PAUSED');
    participant.failing.clear();
    expect(paused.reason).toBe('batch 1 had 1 failures, over the threshold 0');
    expect(paused.batches[0]!.instances.map((item) => item.state)).toEqual(['DONE', 'FAILED']);
    expect(paused.batches[1]!.instances.map((item) => item.state)).toEqual(['PENDING', 'PENDING']);

    await runtime.http.post(`${BASE}/rollouts/${rolloutId}/pause`).expect(400);
    await runtime.http.post(`${BASE}/rollouts/${rolloutId}/resume`).expect(200);
    const failed = await rolloutIn(rolloutId, 'FAILED');
    expect(failed.reason).toBe('batches over the failure threshold: 1');
    expect(failed.batches[1]!.instances.map((item) => item.state)).toEqual(['DONE', 'DONE']);
  });

  it('holds the next batch while paused by request; cancel leaves the rest untouched', async () => {
    const fleet = await instances(4);
    const ids = fleet.map((item) => item.instanceId);
    participant.autoAnswer = false;
    try {
      const created = await runtime.http
        .post(`${BASE}/rollouts`)
        .send({ order: 'DEPLOY', compositionId, instanceIds: ids, strategy: { batchSize: 2 } })
        .expect(201);
      const rolloutId = (created.body as RolloutBody).rolloutId;
      const pausedBody = (await runtime.http.post(`${BASE}/rollouts/${rolloutId}/pause`).expect(200))
        .body as RolloutBody;
      expect(pausedBody.state).toBe('PAUSED');
      participant.autoAnswer = true;
      await answerHeld(ids.slice(0, 2));
      await eventually('batch 1 ended', async () => {
        const rollout = await readRollout(rolloutId);
        return rollout.batches[0]!.state === 'ENDED' ? rollout : undefined;
      });
      const held = await readRollout(rolloutId);
      expect(held.state).toBe('PAUSED');
      expect(held.batches[1]!.state).toBe('PENDING');
      const cancelled = (await runtime.http.post(`${BASE}/rollouts/${rolloutId}/cancel`).expect(200))
        .body as RolloutBody;
      expect(cancelled.state).toBe('CANCELLED');
      expect(cancelled.counts).toMatchObject({ DONE: 2, PENDING: 2 });
      await runtime.http.post(`${BASE}/rollouts/${rolloutId}/resume`).expect(400);
    } finally {
      participant.autoAnswer = true;
    }
  });

  it('refuses a selection another unfinished rollout holds (409 naming it) and an order some instances refuse (400)', async () => {
    const fleet = await instances(3);
    const ids = fleet.map((item) => item.instanceId);
    participant.autoAnswer = false;
    try {
      const first = (
        await runtime.http
          .post(`${BASE}/rollouts`)
          .send({ order: 'DEPLOY', compositionId, instanceIds: ids.slice(0, 2), strategy: { batchSize: 1 } })
          .expect(201)
      ).body as RolloutBody;
      const overlap = await runtime.http
        .post(`${BASE}/rollouts`)
        .send({ order: 'DEPLOY', compositionId, instanceIds: [ids[2], ids[1]], strategy: { batchSize: 1 } })
        .expect(409);
      expect(JSON.stringify(overlap.body)).toContain(first.rolloutId);
      expect(JSON.stringify(overlap.body)).toContain(ids[1]);
      await runtime.http.post(`${BASE}/rollouts/${first.rolloutId}/cancel`).expect(200);
    } finally {
      participant.autoAnswer = true;
      await answerHeld(ids.slice(0, 1));
    }
    await orderInstance(runtime, compositionId, ids[2]!, { deployOrder: 'DEPLOY' });
    await eventually('deployed', async () =>
      (await instanceOf<{ deployState: string }>(runtime, compositionId, ids[2]!)).deployState === 'DEPLOYED'
        ? true
        : undefined,
    );
    const refused = await runtime.http
      .post(`${BASE}/rollouts`)
      .send({ order: 'DEPLOY', compositionId, instanceIds: [ids[2]], strategy: { batchSize: 1 } })
      .expect(400);
    expect(JSON.stringify(refused.body)).toContain(`DEPLOY is refused for 1 selected instance(s): ${ids[2]}`);
    const empty = await runtime.http
      .post(`${BASE}/rollouts`)
      .send({ order: 'DEPLOY', compositionId, instanceIds: [], strategy: { batchSize: 1 } })
      .expect(400);
    expect(JSON.stringify(empty.body)).toContain('instanceIds: the selection is empty');
  });

  it('resumes after a crash between marking a batch and ordering it: no instance is ordered twice', async () => {
    const fleet = await instances(2);
    const [given, notGiven] = fleet.map((item) => item.instanceId) as [string, string];
    participant.autoAnswer = false;
    try {
      // What a runtime killed mid-step leaves: batch 1 marked ORDERED (neither had an operation before), the order of
      // one instance committed, the other's never given, and the rollout's record not updated since the mark.
      const request = parseRolloutRequest({
        order: 'DEPLOY',
        compositionId,
        instanceIds: [given, notGiven],
        strategy: { batchSize: 2 },
      });
      const started = decideRollout(newRollout(randomUUID(), request, [given, notGiven], Date.now()), {
        kind: 'START',
      });
      if (isRefusal(started)) {
        throw new Error(started.message);
      }
      await orderInstance(runtime, compositionId, given, { deployOrder: 'DEPLOY' });
      const store = runtime.app.get(RolloutStore);
      const tracking = {
        [given]: { baselineOperationId: null, operationId: null },
        [notGiven]: { baselineOperationId: null, operationId: null },
      };
      expect(await store.create({ rollout: started.rollout, tracking })).toBeNull();

      // The sweep of the restarted runtime.
      await runtime.app.get(RolloutService).sweep();
      await answerHeld([given, notGiven]);
      const done = await rolloutIn(started.rollout.rolloutId, 'COMPLETED');
      expect(done.counts.DONE).toBe(2);
      for (const id of [given, notGiven]) {
        const orders = (await historyOf<HistoryEvent>(runtime, compositionId, id)).filter(
          (event) => event.event === 'ORDERED',
        );
        expect(orders).toHaveLength(1);
        expect(participant.phaseMessages(id)).toHaveLength(1);
      }
    } finally {
      participant.autoAnswer = true;
    }
  });

  const scrape = async (): Promise<string> =>
    (await runtime.http.get('/onap/policy/clamp/acm/actuator/prometheus').expect(200)).text;

  /** The value of one sample (its name with labels, as exposed); NaN when absent. */
  const sample = (text: string, name: string): number => {
    const line = text.split('\n').find((candidate) => candidate.startsWith(`${name} `));
    return line === undefined ? Number.NaN : Number(line.slice(name.length + 1));
  };

  const deployedStateOf = async (id: string): Promise<string> =>
    (await instanceOf<{ deployState: string }>(runtime, compositionId, id)).deployState;

  const eventsOf = async (rolloutId: string): Promise<RolloutEventBody[]> =>
    (
      (await runtime.http.get(`${BASE}/rollouts/${rolloutId}/history`).expect(200)).body as {
        events: RolloutEventBody[];
      }
    ).events;

  it('with onFailure rollback undeploys the completed instances of the failing batch, leaves the next untouched, ends FAILED', async () => {
    const fleet = await instances(6);
    const ids = fleet.map((item) => item.instanceId);
    participant.failing.add(fleet[3]!.elementIds[0]!);
    try {
      const created = await runtime.http
        .post(`${BASE}/rollouts`)
        .send({
          order: 'DEPLOY',
          compositionId,
          instanceIds: ids,
          strategy: { batchSize: 2, onFailure: 'rollback' },
        })
        .expect(201);
      const rolloutId = (created.body as RolloutBody).rolloutId;
      const failed = await rolloutIn(rolloutId, 'FAILED');
      expect(failed.reason).toBe('batch 2 had 1 failures, over the threshold 0; rolled back');
      expect(failed.batches.map((batch) => batch.instances.map((item) => item.state))).toEqual([
        ['DONE', 'DONE'],
        ['ROLLED_BACK', 'FAILED'],
        ['PENDING', 'PENDING'],
      ]);
      expect(await deployedStateOf(ids[0]!)).toBe('DEPLOYED');
      expect(await deployedStateOf(ids[2]!)).toBe('UNDEPLOYED');
      for (const id of ids.slice(4)) {
        expect(await deployedStateOf(id)).toBe('UNDEPLOYED');
        expect(participant.phaseMessages(id)).toHaveLength(0);
      }
      const undeploys = (await historyOf<HistoryEvent>(runtime, compositionId, ids[2]!)).filter(
        (event) => event.event === 'ORDERED',
      );
      expect(undeploys).toHaveLength(2);

      const events = await eventsOf(rolloutId);
      const kinds = events.map((event) => `${event.kind}${event.batch === null ? '' : ` ${event.batch}`}`);
      expect(kinds[0]).toBe('CREATED');
      expect(kinds).toEqual(
        expect.arrayContaining(['BATCH_STARTED 1', 'BATCH_ENDED 1', 'BATCH_STARTED 2', 'ROLLBACK_ORDERED 2']),
      );
      expect(kinds).not.toContain('BATCH_STARTED 3');
      const batchTwo = events.filter((event) => event.batch === 2);
      expect(batchTwo.find((event) => event.kind === 'ROLLBACK_ENDED')).toMatchObject({
        instanceId: ids[2],
        state: 'ROLLED_BACK',
        actor: { kind: 'runtime', rule: 'rollout' },
      });
      expect(events.at(-1)).toMatchObject({ kind: 'STATE_CHANGED', state: 'FAILED' });
      const metrics = await scrape();
      expect(sample(metrics, 'acm_rollouts{state="FAILED"}')).toBeGreaterThanOrEqual(1);
      expect(sample(metrics, 'acm_rollout_batch_duration_seconds_count{order="DEPLOY"}')).toBeGreaterThanOrEqual(2);
      expect(events[0]!.actor).toMatchObject({ kind: 'request' });
      for (const event of events) {
        expect(Number.isNaN(Date.parse(event.at))).toBe(false);
      }
    } finally {
      participant.failing.clear();
    }
  });

  it('answers a dry run with the batches and the refused instances, writing nothing; skipRefused starts without them', async () => {
    const fleet = await instances(3);
    const ids = fleet.map((item) => item.instanceId);
    await orderInstance(runtime, compositionId, ids[0]!, { deployOrder: 'DEPLOY' });
    await eventually('deployed', async () => ((await deployedStateOf(ids[0]!)) === 'DEPLOYED' ? true : undefined));
    const before = ((await runtime.http.get(`${BASE}/rollouts`).expect(200)).body as { rollouts: RolloutBody[] })
      .rollouts.length;
    const body = { order: 'DEPLOY', compositionId, instanceIds: ids, strategy: { batchSize: 1 } };
    const plan = (await runtime.http.post(`${BASE}/rollouts?dryRun=true`).send(body).expect(200)).body as {
      batches: Array<{ batch: number; instanceIds: string[] }>;
      refused: Array<{ instanceId: string; reason: string }>;
      heldBy: string[];
      wouldStart: boolean;
    };
    expect(plan.batches).toEqual([
      { batch: 1, instanceIds: [ids[1]] },
      { batch: 2, instanceIds: [ids[2]] },
    ]);
    expect(plan.refused.map((item) => item.instanceId)).toEqual([ids[0]]);
    expect(plan.refused[0]!.reason.length).toBeGreaterThan(0);
    expect(plan.wouldStart).toBe(false);
    expect(plan.heldBy).toEqual([]);
    expect(
      ((await runtime.http.get(`${BASE}/rollouts`).expect(200)).body as { rollouts: RolloutBody[] }).rollouts,
    ).toHaveLength(before);
    await runtime.http
      .post(`${BASE}/rollouts?dryRun=true`)
      .send({ ...body, strategy: { batchSize: 1, failureThreshold: 2 } })
      .expect(400);

    const refused = await runtime.http.post(`${BASE}/rollouts`).send(body).expect(400);
    expect(JSON.stringify(refused.body)).toContain('set strategy.skipRefused to start without them');
    const created = await runtime.http
      .post(`${BASE}/rollouts`)
      .send({ ...body, strategy: { batchSize: 1, skipRefused: true } })
      .expect(201);
    const done = await rolloutIn((created.body as RolloutBody & { rolloutId: string }).rolloutId, 'COMPLETED');
    expect((done as RolloutBody & { refused: unknown[] }).refused).toEqual([
      { instanceId: ids[0], reason: plan.refused[0]!.reason },
    ]);
    expect(done.counts).toEqual({ ...NO_INSTANCES, DONE: 2 });
  });

  it('runs a canary batch, waits for promote, then keeps at most maxInFlight instances in flight', async () => {
    const fleet = await instances(4);
    const ids = fleet.map((item) => item.instanceId);
    const created = await runtime.http
      .post(`${BASE}/rollouts`)
      .send({ order: 'DEPLOY', compositionId, instanceIds: ids, strategy: { batchSize: 3, canary: 1, maxInFlight: 1 } })
      .expect(201);
    const rolloutId = (created.body as RolloutBody).rolloutId;
    const waiting = await rolloutIn(rolloutId, 'WAITING_PROMOTION');
    expect(waiting.batches.map((batch) => batch.instances.length)).toEqual([1, 3]);
    expect(waiting.counts).toMatchObject({ DONE: 1, PENDING: 3 });
    await runtime.http.post(`${BASE}/rollouts/${rolloutId}/resume`).expect(400);
    const waitingScrape = await scrape();
    expect(sample(waitingScrape, 'acm_rollouts{state="WAITING_PROMOTION"}')).toBeGreaterThanOrEqual(1);
    expect(sample(waitingScrape, 'acm_rollout_instances{state="PENDING"}')).toBeGreaterThanOrEqual(3);
    const promoted = (await runtime.http.post(`${BASE}/rollouts/${rolloutId}/promote`).expect(200)).body as RolloutBody;
    expect(promoted.state).not.toBe('WAITING_PROMOTION');
    await rolloutIn(rolloutId, 'COMPLETED');
    // One in flight at a time: each instance was ordered after the one before it completed.
    const sequences = await Promise.all(
      ids.map(async (id) => {
        const events = await historyOf<HistoryEvent>(runtime, compositionId, id);
        return {
          ordered: events.find((event) => event.event === 'ORDERED')!.sequence,
          completed: events.find((event) => event.event === 'COMPLETED')!.sequence,
        };
      }),
    );
    for (let index = 1; index < ids.length; index += 1) {
      expect(sequences[index]!.ordered).toBeGreaterThan(sequences[index - 1]!.completed);
    }
    const promotedEvent = (await eventsOf(rolloutId)).find(
      (event) => event.kind === 'STATE_CHANGED' && event.state === 'RUNNING',
    );
    expect(promotedEvent?.actor).toMatchObject({ kind: 'request' });
  });

  it('updates a property of every deployed instance through the ordinary update, and rolls it back on failure', async () => {
    const fleet = await instances(4);
    const ids = fleet.map((item) => item.instanceId);
    for (const id of ids) {
      await orderInstance(runtime, compositionId, id, { deployOrder: 'DEPLOY' });
    }
    await eventually('deployed', async () =>
      (await Promise.all(ids.map(deployedStateOf))).every((state) => state === 'DEPLOYED') ? true : undefined,
    );
    const baseUrlOf = async (index: number): Promise<unknown> =>
      (
        await instanceOf<{ elements: Record<string, { properties: Record<string, unknown> }> }>(
          runtime,
          compositionId,
          ids[index]!,
        )
      ).elements[fleet[index]!.elementIds[0]!]!.properties['baseUrl'];
    participant.failing.add(fleet[3]!.elementIds[0]!);
    try {
      const created = await runtime.http
        .post(`${BASE}/rollouts`)
        .send({
          order: 'UPDATE',
          compositionId,
          instanceIds: ids,
          update: { elements: { 'acm.example.single.SimElement': { baseUrl: 'http://sim.example:30999' } } },
          strategy: { batchSize: 2, onFailure: 'rollback' },
        })
        .expect(201);
      const failed = await rolloutIn((created.body as RolloutBody).rolloutId, 'FAILED');
      expect(failed.batches.map((batch) => batch.instances.map((item) => item.state))).toEqual([
        ['DONE', 'DONE'],
        ['ROLLED_BACK', 'FAILED'],
      ]);
    } finally {
      participant.failing.clear();
    }
    expect(await baseUrlOf(0)).toBe('http://sim.example:30999');
    expect(await baseUrlOf(1)).toBe('http://sim.example:30999');
    expect(await baseUrlOf(2)).toBe('http://sim.example:30800');
  });

  it('migrates instances to another composition, and migrates the failing batch back to the source', async () => {
    const targetId = await commissionAndPrime(runtime, simSingleElementNextRevision());
    const fleet = await instances(4);
    const ids = fleet.map((item) => item.instanceId);
    for (const id of ids) {
      await orderInstance(runtime, compositionId, id, { deployOrder: 'DEPLOY' });
    }
    await eventually('deployed', async () =>
      (await Promise.all(ids.map(deployedStateOf))).every((state) => state === 'DEPLOYED') ? true : undefined,
    );
    participant.failing.add(fleet[3]!.elementIds[0]!);
    try {
      const created = await runtime.http
        .post(`${BASE}/rollouts`)
        .send({
          order: 'MIGRATE',
          compositionId,
          compositionTargetId: targetId,
          instanceIds: ids,
          strategy: { batchSize: 2, onFailure: 'rollback' },
        })
        .expect(201);
      const failed = await rolloutIn((created.body as RolloutBody).rolloutId, 'FAILED');
      expect(failed.batches.map((batch) => batch.instances.map((item) => item.state))).toEqual([
        ['DONE', 'DONE'],
        ['ROLLED_BACK', 'FAILED'],
      ]);
    } finally {
      participant.failing.clear();
    }
    const compositionOf = async (id: string, path: string): Promise<{ compositionId: string; version: string }> => {
      const found = await instanceOf<{
        compositionId: string;
        elements: Record<string, { definition: { version: string } }>;
      }>(runtime, path, id);
      return { compositionId: found.compositionId, version: Object.values(found.elements)[0]!.definition.version };
    };
    expect(await compositionOf(ids[0]!, targetId)).toEqual({ compositionId: targetId, version: '2.0.0' });
    expect(await compositionOf(ids[1]!, targetId)).toEqual({ compositionId: targetId, version: '2.0.0' });
    expect(await compositionOf(ids[2]!, compositionId)).toEqual({ compositionId, version: '1.0.0' });
  });

  it('orders batches by a metadata key (dev before prod) and starts the next batch after pauseBetweenBatches', async () => {
    const atSite = (site: string): string =>
      JSON.stringify({ ...(JSON.parse(instanceJson) as Record<string, unknown>), metadata: { site } });
    const prod = await createInstanceFrom(runtime, compositionId, atSite('prod'));
    const devs = [
      await createInstanceFrom(runtime, compositionId, atSite('dev')),
      await createInstanceFrom(runtime, compositionId, atSite('dev')),
    ];
    const lab = await createInstanceFrom(runtime, compositionId, atSite('lab'));
    const ids = [prod, ...devs, lab].map((item) => item.instanceId);
    const strategy = { batchSize: 5, batchBy: 'site', batchOrder: ['dev', 'prod'], pauseBetweenBatches: 300 };
    const refused = await runtime.http
      .post(`${BASE}/rollouts`)
      .send({ order: 'DEPLOY', compositionId, instanceIds: ids, strategy })
      .expect(400);
    expect(JSON.stringify(refused.body)).toContain(
      `${lab.instanceId}: metadata.site is \\"lab\\", not in strategy.batchOrder`,
    );
    const created = await runtime.http
      .post(`${BASE}/rollouts`)
      .send({ order: 'DEPLOY', compositionId, instanceIds: ids, strategy: { ...strategy, skipRefused: true } })
      .expect(201);
    const rolloutId = (created.body as RolloutBody).rolloutId;
    // The sweep runs once an hour here: the end of the pause alone starts batch 2.
    const done = await rolloutIn(rolloutId, 'COMPLETED');
    expect(done.batches.map((batch) => batch.instances.map((item) => item.instanceId))).toEqual([
      devs.map((item) => item.instanceId),
      [prod.instanceId],
    ]);
    const events = await eventsOf(rolloutId);
    const endOfFirst = events.find((event) => event.kind === 'BATCH_ENDED' && event.batch === 1)!;
    const startOfSecond = events.find((event) => event.kind === 'BATCH_STARTED' && event.batch === 2)!;
    expect(Date.parse(startOfSecond.at) - Date.parse(endOfFirst.at)).toBeGreaterThanOrEqual(300);
  });
});
