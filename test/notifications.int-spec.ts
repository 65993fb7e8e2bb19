import { randomUUID } from 'node:crypto';
import { MessageBus } from '@acm/messaging';
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
import { NotificationDelivery } from '../apps/runtime-acm/src/live/notification-delivery';
import { samplesOf } from './support/promql';
import { ScriptedParticipant, eventually } from './support/scripted-participant';
import type { ReceivedCall } from './support/webhook-receiver';
import { WebhookReceiver, signatureValid } from './support/webhook-receiver';

const SIM_TYPE = { typeName: 'org.onap.policy.clamp.acm.SimAutomationCompositionElement', typeVersion: '1.0.0' };
const SECRET = 'a secret the receiver shares';
const MAX_ATTEMPTS = 3;

interface SubscriptionBody {
  subscriptionId: string;
  signed: boolean;
  delivery: {
    state: string;
    delivered: number;
    attempts: number;
    lastError: string | null;
    deadLetters: number;
    lastDeadLetter: { eventId: string; error: string } | null;
  };
}

interface HistoryEvent {
  sequence: number;
  event: string;
}

/** Webhook subscriptions on the real PostgreSQL, delivered to real HTTP receivers this test runs. */
describe('notifications (PostgreSQL, in-process bus, scripted participant, real HTTP receivers)', () => {
  let runtime: RuntimeHarness;
  let participant: ScriptedParticipant;
  let compositionId: string;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    runtime = await startRuntime({
      HEART_BEAT: '3600000',
      EVENT_FEED_POLL_MS: '200',
      NOTIFY_TIMEOUT_MS: '300',
      NOTIFY_MAX_ATTEMPTS: String(MAX_ATTEMPTS),
      NOTIFY_RETRY_BASE_MS: '50',
      NOTIFY_RETRY_MAX_MS: '200',
    });
    participant = new ScriptedParticipant(runtime.app.get(MessageBus), randomUUID(), [SIM_TYPE]);
    await participant.start();
    await participantRegistered(runtime, participant.participantId);
    compositionId = await commissionAndPrime(runtime, readRepoFile('tosca/examples/sim-single-element.yaml'));
  }, 120_000);

  afterAll(async () => {
    await Promise.all(receivers.map((receiver) => receiver.stop()));
    await participant.stop();
    await runtime.close();
  });

  async function receiver(): Promise<{ receiver: WebhookReceiver; url: string }> {
    const created = new WebhookReceiver();
    receivers.push(created);
    return { receiver: created, url: await created.start() };
  }

  async function subscribe(body: Record<string, unknown>): Promise<SubscriptionBody> {
    const response = await runtime.http.post(`${BASE}/subscriptions`).send(body).expect(201);
    return response.body as SubscriptionBody;
  }

  const subscriptions = async (): Promise<SubscriptionBody[]> =>
    ((await runtime.http.get(`${BASE}/subscriptions`).expect(200)).body as { subscriptions: SubscriptionBody[] })
      .subscriptions;

  const subscription = async (id: string): Promise<SubscriptionBody> =>
    (await runtime.http.get(`${BASE}/subscriptions/${id}`).expect(200)).body as SubscriptionBody;

  /** A new instance deployed to the end; answers its id. */
  async function deployedInstance(): Promise<string> {
    const { instanceId } = await createInstanceFrom(
      runtime,
      compositionId,
      readRepoFile('tosca/examples/instances/sim-single-element.json'),
    );
    await orderInstance(runtime, compositionId, instanceId, { deployOrder: 'DEPLOY' });
    await eventually('DEPLOYED', async () => {
      const current = await instanceOf<{ deployState: string }>(runtime, compositionId, instanceId);
      return current.deployState === 'DEPLOYED' ? true : undefined;
    });
    return instanceId;
  }

  async function historyOf(instanceId: string, kinds: readonly string[]): Promise<HistoryEvent[]> {
    const response = await runtime.http
      .get(`${BASE}/compositions/${compositionId}/instances/${instanceId}/history`)
      .expect(200);
    return (response.body as { events: HistoryEvent[] }).events.filter((event) => kinds.includes(event.event));
  }

  const kindOf = (call: ReceivedCall): string => String(call.body['type']).split('.').pop() ?? '';

  /** The value of one sample of /metrics (`acm_x{a="b"}` or `acm_x`). */
  async function metric(sample: string): Promise<number> {
    const scrape = (await runtime.http.get('/onap/policy/clamp/acm/actuator/prometheus').expect(200)).text;
    const name = sample.split('{')[0] ?? sample;
    const line = samplesOf(scrape, name).find((found) => found.startsWith(`${sample} `));
    if (line === undefined) {
      throw new Error(`${sample} is not on /metrics`);
    }
    return Number(line.slice(sample.length + 1));
  }

  const RESULTS = ['delivered', 'retried', 'dead_lettered'] as const;
  /** The delivery counters by result. */
  const deliveries = async (): Promise<number[]> =>
    Promise.all(RESULTS.map((result) => metric(`acm_notification_deliveries_total{result="${result}"}`)));
  const plus = (before: readonly number[], added: readonly number[]): number[] =>
    before.map((value, index) => value + (added[index] ?? 0));

  it('refuses a URL that is not http(s) or points at the runtime, an unknown kind or format, naming the field', async () => {
    const refusal = async (body: Record<string, unknown>): Promise<string> =>
      ((await runtime.http.post(`${BASE}/subscriptions`).send(body).expect(400)).body as { errorDetails: string })
        .errorDetails;
    expect(await refusal({ url: 'ftp://hooks.example.com/x' })).toMatch(/^url: the scheme must be http or https/);
    expect(await refusal({ url: 'not a url' })).toMatch(/^url: not a URL/);
    expect(await refusal({ url: 'http://localhost:6969/onap/policy/clamp/acm/v2/subscriptions' })).toMatch(
      /^url: points at this runtime itself/,
    );
    expect(await refusal({ url: 'https://hooks.example.com/x', filter: { kinds: ['COMPLETED', 'EXPLODED'] } })).toBe(
      'filter.kinds: unknown event kind "EXPLODED"',
    );
    expect(await refusal({ url: 'https://hooks.example.com/x', format: 'slack' })).toMatch(/^format: one of/);
    expect(await refusal({ url: 'https://hooks.example.com/x', filter: { instanceId: 'x' } })).toMatch(
      /^filter\.instanceId: must be a UUID/,
    );
    expect(await refusal({ url: 'https://hooks.example.com/x', filter: { metadata: ['site'] } })).toBe(
      'filter.metadata: must be an object of metadata keys and the values they must have',
    );
    expect(await refusal({ url: 'https://hooks.example.com/x', filter: { metadata: { site: { is: 'prod' } } } })).toBe(
      'filter.metadata.site: must be a string, number or boolean, got {"is":"prod"}',
    );
    await runtime.http.get(`${BASE}/subscriptions/${randomUUID()}`).expect(404);
  });

  it('never shows the secret, and deletes a subscription once', async () => {
    const created = await subscribe({ url: 'https://hooks.example.com/x', secret: SECRET });
    expect(created.signed).toBe(true);
    const listed = await runtime.http.get(`${BASE}/subscriptions`).expect(200);
    const got = await runtime.http.get(`${BASE}/subscriptions/${created.subscriptionId}`).expect(200);
    for (const text of [JSON.stringify(created), listed.text, got.text]) {
      expect(text).not.toContain(SECRET);
    }
    await runtime.http.delete(`${BASE}/subscriptions/${created.subscriptionId}`).expect(204);
    await runtime.http.delete(`${BASE}/subscriptions/${created.subscriptionId}`).expect(404);
  });

  it('delivers the filtered events as signed CloudEvents whose ids are the history sequences', async () => {
    const { receiver: hook, url } = await receiver();
    const { instanceId } = await createInstanceFrom(
      runtime,
      compositionId,
      readRepoFile('tosca/examples/instances/sim-single-element.json'),
    );
    const created = await subscribe({
      url,
      secret: SECRET,
      filter: { kinds: ['ORDERED', 'COMPLETED'], instanceId },
      format: 'cloudevents',
    });
    await orderInstance(runtime, compositionId, instanceId, { deployOrder: 'DEPLOY' });
    const expected = await eventually('ORDERED and COMPLETED in the history', async () => {
      const events = await historyOf(instanceId, ['ORDERED', 'COMPLETED']);
      return events.length === 2 ? events : undefined;
    });
    await eventually('both delivered', () => Promise.resolve(hook.accepted.length >= 2 ? true : undefined));
    expect(hook.calls.map((call) => call.body['id'])).toEqual(expected.map((event) => String(event.sequence)));
    expect(hook.calls.map(kindOf)).toEqual(['ORDERED', 'COMPLETED']);
    for (const call of hook.calls) {
      expect(signatureValid(call, SECRET)).toBe(true);
      expect(signatureValid(call, 'another secret')).toBe(false);
      expect(call.headers['content-type']).toMatch(/^application\/cloudevents\+json/);
      expect(call.headers['x-acm-event-id']).toBe(call.body['id']);
      expect(call.body).toMatchObject({ specversion: '1.0', subject: instanceId, datacontenttype: 'application/json' });
      expect(call.body['data']).toMatchObject({ instanceId, compositionId });
    }
    expect((await subscription(created.subscriptionId)).delivery).toMatchObject({ delivered: 2, state: 'ACTIVE' });
  });

  it("delivers only the events of instances whose metadata holds the filter's values, never a definition's", async () => {
    const withMetadata = (site: string): string =>
      JSON.stringify({
        ...(JSON.parse(readRepoFile('tosca/examples/instances/sim-single-element.json')) as object),
        metadata: { site, tier: 1 },
      });
    const { instanceId: prod } = await createInstanceFrom(runtime, compositionId, withMetadata('prod'));
    const { instanceId: dev } = await createInstanceFrom(runtime, compositionId, withMetadata('dev'));
    const kinds = ['ORDERED', 'COMPLETED'];
    const { receiver: prodHook, url: prodUrl } = await receiver();
    const { receiver: anyHook, url: anyUrl } = await receiver();
    const prodOnly = await subscribe({ url: prodUrl, filter: { kinds, metadata: { site: 'prod', tier: 1 } } });
    expect((prodOnly as unknown as { filter: unknown }).filter).toEqual({
      kinds,
      metadata: { site: 'prod', tier: '1' },
    });
    await subscribe({ url: anyUrl, filter: { kinds, metadata: {} } });

    // A definition's ORDERED and COMPLETED (a prime), then each instance's, in this order.
    await commissionAndPrime(runtime, readRepoFile('tosca/examples/sim-three-phase.yaml'));
    for (const instanceId of [dev, prod]) {
      await orderInstance(runtime, compositionId, instanceId, { deployOrder: 'DEPLOY' });
      await eventually('DEPLOYED', async () => {
        const current = await instanceOf<{ deployState: string }>(runtime, compositionId, instanceId);
        return current.deployState === 'DEPLOYED' ? true : undefined;
      });
    }
    const sequencesOf = async (instanceId: string): Promise<string[]> =>
      (await historyOf(instanceId, kinds)).map((event) => String(event.sequence));
    const [devEvents, prodEvents] = [await sequencesOf(dev), await sequencesOf(prod)];
    expect([devEvents.length, prodEvents.length]).toEqual([2, 2]);
    // Deliveries go in feed order: once the prod instance's COMPLETED is in, every event before it was judged.
    await eventually('the prod instance events', () =>
      Promise.resolve(prodHook.accepted.length >= 2 && anyHook.accepted.length >= 4 ? true : undefined),
    );
    expect(prodHook.calls.map((call) => call.body['id'])).toEqual(prodEvents);
    expect(prodHook.calls.map((call) => call.body['subject'])).toEqual([prod, prod]);
    // An empty metadata filter takes every instance's events, and still no definition's.
    expect(anyHook.calls.map((call) => call.body['id'])).toEqual([...devEvents, ...prodEvents]);
    // The later tests count deliveries: nothing of theirs goes here.
    for (const { subscriptionId } of await subscriptions()) {
      await runtime.http.delete(`${BASE}/subscriptions/${subscriptionId}`).expect(204);
    }
  });

  it('retries a receiver that fails (500) and one that does not answer in time, with the same event id', async () => {
    const { receiver: hook, url } = await receiver();
    hook.behave = (index) => (index === 0 ? { status: 500 } : index === 1 ? { holdMs: 2_000 } : { status: 200 });
    const { instanceId } = await createInstanceFrom(
      runtime,
      compositionId,
      readRepoFile('tosca/examples/instances/sim-single-element.json'),
    );
    const before = await deliveries();
    const created = await subscribe({ url, filter: { kinds: ['COMPLETED'], instanceId } });
    await orderInstance(runtime, compositionId, instanceId, { deployOrder: 'DEPLOY' });
    await eventually('delivered after two failures', () =>
      Promise.resolve(hook.accepted.length === 1 ? true : undefined),
    );
    expect(await deliveries()).toEqual(plus(before, [1, 2, 0]));
    expect(hook.calls.map((call) => call.answered)).toEqual([500, 'no answer', 200]);
    expect(new Set(hook.calls.map((call) => call.headers['x-acm-event-id'])).size).toBe(1);
    expect(hook.calls[0]!.headers['x-acm-signature']).toBeUndefined();
    const [completed] = await historyOf(instanceId, ['COMPLETED']);
    expect(hook.calls[0]!.body['id']).toBe(String(completed!.sequence));
    const state = await subscription(created.subscriptionId);
    expect(state.delivery).toMatchObject({
      delivered: 1,
      attempts: 0,
      deadLetters: 0,
      lastError: 'no answer within 300 ms',
    });
  });

  it('dead-letters an event after the last attempt, shows it in GET, and goes on when the receiver is back', async () => {
    const { receiver: hook, url } = await receiver();
    let down = true;
    hook.behave = () => ({ status: down ? 500 : 200 });
    const { instanceId } = await createInstanceFrom(
      runtime,
      compositionId,
      readRepoFile('tosca/examples/instances/sim-single-element.json'),
    );
    const before = await deliveries();
    const created = await subscribe({ url, filter: { kinds: ['COMPLETED'], instanceId } });
    await orderInstance(runtime, compositionId, instanceId, { deployOrder: 'DEPLOY' });
    const dead = await eventually('the event dead-lettered', async () => {
      const state = await subscription(created.subscriptionId);
      return state.delivery.deadLetters === 1 ? state : undefined;
    });
    const [completed] = await historyOf(instanceId, ['COMPLETED']);
    expect(dead.delivery.lastDeadLetter).toMatchObject({ eventId: String(completed!.sequence), error: 'HTTP 500' });
    expect(hook.calls).toHaveLength(MAX_ATTEMPTS);
    expect(await deliveries()).toEqual(plus(before, [0, MAX_ATTEMPTS - 1, 1]));
    down = false;
    await orderInstance(runtime, compositionId, instanceId, { deployOrder: 'UNDEPLOY' });
    await eventually('the next event delivered', () => Promise.resolve(hook.accepted.length === 1 ? true : undefined));
    expect(hook.accepted[0]!.body['id']).not.toBe(String(completed!.sequence));
    expect((await subscription(created.subscriptionId)).delivery).toMatchObject({ delivered: 1, deadLetters: 1 });
    expect(await deliveries()).toEqual(plus(before, [1, MAX_ATTEMPTS - 1, 1]));
  });

  it('sends Alertmanager payloads, and a TEST event on request', async () => {
    const { receiver: hook, url } = await receiver();
    const instanceId = await deployedInstance();
    const created = await subscribe({ url, format: 'alertmanager', filter: { kinds: ['ORDERED'], instanceId } });
    const tested = await runtime.http.post(`${BASE}/subscriptions/${created.subscriptionId}/test`).expect(200);
    expect(tested.body).toEqual({ delivered: true, status: 200 });
    expect(hook.calls[0]!.body).toMatchObject({ version: '4', alerts: [{ labels: { event: 'TEST' } }] });
    await orderInstance(runtime, compositionId, instanceId, { deployOrder: 'UNDEPLOY' });
    await eventually('the ORDERED alert', () => Promise.resolve(hook.calls.length === 2 ? true : undefined));
    expect(hook.calls[1]!.body).toMatchObject({
      version: '4',
      status: 'resolved',
      alerts: [{ status: 'resolved', labels: { event: 'ORDERED', instanceId, compositionId } }],
    });
  });

  // Last: it stops this runtime's deliverer.
  it('counts the undelivered events: none once delivered, each committed event while nothing delivers', async () => {
    const { url } = await receiver();
    const waiting = await subscribe({ url, filter: { kinds: ['COMPLETED'] } });
    await eventually('every subscription caught up', async () =>
      (await metric('acm_notification_undelivered_events')) === 0 ? true : undefined,
    );
    await runtime.app.get(NotificationDelivery).beforeApplicationShutdown();
    const instanceId = await deployedInstance();
    const subscribed = (await subscriptions()).length;
    const committed = (
      (await runtime.http.get(`${BASE}/compositions/${compositionId}/instances/${instanceId}/history`).expect(200))
        .body as { events: unknown[] }
    ).events.length;
    expect(committed).toBeGreaterThan(0);
    // Each subscription has each event of the deploy still to deliver or pass over (its filter aside).
    await eventually('the deploy counted undelivered', async () =>
      (await metric('acm_notification_undelivered_events')) === committed * subscribed ? true : undefined,
    );
    expect((await subscription(waiting.subscriptionId)).delivery).toMatchObject({ delivered: 0 });
  });
});
