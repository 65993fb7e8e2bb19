import { EventStream } from '../support/event-stream';
import type { StreamedEvent } from '../support/event-stream';
import { eventually } from '../support/scripted-participant';
import { WebhookReceiver } from '../support/webhook-receiver';
import { FaultWorld } from './fault-harness';

const API = '/onap/policy/clamp/acm/v2';
const ELEMENT_MS = 100;

interface HistoryEvent {
  sequence: number;
  event: string;
  subjectId: string;
}

async function historyOf(world: FaultWorld, compositionId: string, instanceIds: readonly string[]): Promise<number[]> {
  const paths = [
    `${API}/compositions/${compositionId}/history`,
    ...instanceIds.map((instanceId) => `${API}/compositions/${compositionId}/instances/${instanceId}/history`),
  ];
  const sequences: number[] = [];
  for (const path of paths) {
    const response = await world.call(world.api().get(path));
    sequences.push(...(response.body as { events: HistoryEvent[] }).events.map((event) => event.sequence));
  }
  return sequences.sort((a, b) => a - b);
}

const sequencesOf = (events: readonly StreamedEvent[]): number[] =>
  events.map((event) => Number(event.data['sequence']));

/**
 * The stream is in commit order, the history in sequence order: two transactions that took sequences 4–5 and 6–7 may
 * commit the other way round. Equal as sets (none missing, none twice); the ids carry the stream's own order.
 */
const ascending = (sequences: readonly number[]): number[] => [...sequences].sort((a, b) => a - b);

/**
 * The event feed across replicas: a client of one replica sees every event another replica commits, resumes with
 * Last-Event-ID across a restart of its replica, and the stream equals the history (none missing, none twice); a
 * notification whose delivery was cut by a kill -9 is delivered after the restart, with the same event id.
 */
describe('fault: one event stream across replicas, and notifications across a kill', () => {
  describe('two replicas on one PostgreSQL', () => {
    const world = new FaultWorld();

    beforeAll(async () => {
      await world.startRuntime({ HEART_BEAT: '500', EVENT_FEED_POLL_MS: '500' });
      await world.startRuntimeReplica({ HEART_BEAT: '500', EVENT_FEED_POLL_MS: '500' });
    });

    afterAll(async () => {
      await world.stopAll();
    });

    it("streams on replica A every event replica B commits, resumes after A's restart, equal to the history", async () => {
      const [replicaA, replicaB] = world.runtimeUrls as [string, string];
      await world.startSimulator('sim', ELEMENT_MS);
      const first = await EventStream.open(replicaA);
      await eventually('the stream ready', () => Promise.resolve(first.ready ? true : undefined), 200);

      world.useRuntime(replicaB);
      await eventually('the participant', async () => ((await world.onlineReplicas()) >= 1 ? true : undefined), 1500);
      const compositionId = await world.primedComposition();
      const instanceIds = await world.deployInstances(compositionId, 2);
      await world.allDeployed(compositionId, instanceIds, 1500);
      const before = await historyOf(world, compositionId, instanceIds);
      await eventually(
        "every event B committed on A's stream",
        () => Promise.resolve(first.history.length >= before.length ? true : undefined),
        1500,
      );
      expect(ascending(sequencesOf(first.history))).toEqual(before);
      const lastId = first.history[first.history.length - 1]!.id!;
      first.close();

      // B commits while A is killed and started again; A's new process resumes the stream after lastId.
      const more = world.deployInstances(compositionId, 2);
      const restartedA = await world.restartRuntimeAt(replicaA);
      const moreIds = await more;
      const resumed = await EventStream.open(restartedA, { lastEventId: lastId });
      await world.allDeployed(compositionId, [...instanceIds, ...moreIds], 1500);
      const all = await historyOf(world, compositionId, [...instanceIds, ...moreIds]);
      await eventually(
        'the resumed stream caught up',
        () => Promise.resolve(first.history.length + resumed.history.length >= all.length ? true : undefined),
        1500,
      );
      const streamed = [...sequencesOf(first.history), ...sequencesOf(resumed.history)];
      expect(ascending(streamed)).toEqual(all);
      expect(new Set(streamed).size).toBe(streamed.length);
      const ids = [...first.history, ...resumed.history].map((event) => Number(event.id));
      expect([...ids].sort((a, b) => a - b)).toEqual(ids);
      resumed.close();
      expect(world.serverErrors).toBe(0);
    });
  });

  describe('a runtime killed between commit and delivery', () => {
    const world = new FaultWorld();
    const receiver = new WebhookReceiver();

    beforeAll(async () => {
      await world.startRuntime({ HEART_BEAT: '500', NOTIFY_TIMEOUT_MS: '2000', NOTIFY_RETRY_BASE_MS: '100' });
    });

    afterAll(async () => {
      await receiver.stop();
      await world.stopAll();
    });

    it('delivers the event after the restart, with the same event id', async () => {
      // The first call is held unanswered: the event is committed, its delivery in flight, when the runtime dies.
      receiver.behave = (index) => (index === 0 ? { holdMs: 120_000 } : { status: 200 });
      const url = await receiver.start();
      await world.startSimulator('sim', ELEMENT_MS);
      await eventually('the participant', async () => ((await world.onlineReplicas()) >= 1 ? true : undefined), 1500);
      const compositionId = await world.primedComposition();
      const created = await world.call(
        world
          .api()
          .post(`${API}/subscriptions`)
          .send({ url, filter: { kinds: ['COMPLETED'], compositionId } }),
      );
      expect(created.status).toBe(201);
      const [instanceId] = await world.deployInstances(compositionId, 1);
      await eventually(
        'the delivery in flight',
        () => Promise.resolve(receiver.calls.length >= 1 ? true : undefined),
        1500,
      );
      await world.restartRuntime();
      await eventually(
        'delivered after the restart',
        () => Promise.resolve(receiver.accepted.length >= 1 ? true : undefined),
        1500,
      );
      const ids = receiver.calls.map((call) => call.headers['x-acm-event-id']);
      expect(new Set(ids).size).toBe(1);
      const history = await world.call(
        world.api().get(`${API}/compositions/${compositionId}/instances/${instanceId}/history`),
      );
      const completed = (history.body as { events: HistoryEvent[] }).events.filter(
        (event) => event.event === 'COMPLETED',
      );
      expect(completed).toHaveLength(1);
      expect(ids[0]).toBe(String(completed[0]!.sequence));
      const subscriptionId = (created.body as { subscriptionId: string }).subscriptionId;
      const state = await world.call(world.api().get(`${API}/subscriptions/${subscriptionId}`));
      expect(state.body).toMatchObject({ delivery: { delivered: 1, deadLetters: 0 } });
      expect(world.serverErrors).toBe(0);
    });
  });
});
