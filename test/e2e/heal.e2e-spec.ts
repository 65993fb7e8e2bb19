import { commissionedAndPrimed, simulatorStack } from '../support/e2e-stack';
import type { HistoryEvent, ObservedInstance } from '../support/observe-e2e';
import {
  API,
  ONE_INTERVAL_POLLS,
  SIM_API,
  createdInstance,
  deployOrdered,
  historyOf,
  instanceBody,
  instanceOf,
  instanceOfCall,
  kindOf,
} from '../support/observe-e2e';
import { readRepoFile } from '../support/runtime-harness';
import { eventually } from '../support/scripted-participant';
import type { ReceivedCall } from '../support/webhook-receiver';
import { WebhookReceiver, signatureValid } from '../support/webhook-receiver';

const SECRET = 'the heal receiver secret';
const DATABASE = 'acm.test.heal.Database';
const TEMPLATES = [DATABASE, 'acm.test.heal.Backend', 'acm.test.heal.Frontend'];
/** The fixture's `heal_max_per_hour` of Database. */
const MAX_PER_HOUR = 2;

/**
 * Self-healing over Kafka with the runtime and the simulator as processes (`SIM_OBSERVE=true`, every element observed
 * every 5 s, `drift: correct`): the simulator's control API makes Database gone; the runtime heals it and the two
 * elements that depend on it, in graph order, as a HEAL operation that ends HEALED; a Database that stays gone is
 * healed `heal_max_per_hour` times, then left as it is (HEALING_STOPPED). A real HTTP receiver subscribed to HEALED
 * and HEALING_STOPPED is told each once, signed.
 */
describe('self-healing over Kafka (runtime + simulator processes)', () => {
  const stack = simulatorStack('heal', { SIM_OBSERVE: 'true' });
  const { api, sim } = stack;
  const hook = new WebhookReceiver();
  let compositionId = '';

  beforeAll(async () => {
    compositionId = await commissionedAndPrimed(api, readRepoFile('test/fixtures/sim-healed.yaml'));
    const url = await hook.start();
    await api()
      .post(`${API}/subscriptions`)
      .send({ url, secret: SECRET, filter: { kinds: ['HEALED', 'HEALING_STOPPED'], compositionId } })
      .expect(201);
  }, 120_000);

  afterAll(async () => {
    await hook.stop();
  });

  /** A new instance of the fixture, deployed, each of its elements observed Healthy; resolves with its element ids. */
  async function healthyInstance(name: string): Promise<{ instanceId: string; idOf: (template: string) => string }> {
    const instanceId = await createdInstance(api, compositionId, instanceBody(name, TEMPLATES));
    await deployOrdered(api, compositionId, instanceId);
    const healthy = await eventually(
      'every element observed Healthy',
      async () => {
        const current = await instanceOf(api, compositionId, instanceId);
        const observed = Object.values(current.observedHealth?.elements ?? {});
        return current.deployState === 'DEPLOYED' &&
          observed.length === TEMPLATES.length &&
          observed.every((element) => element.health === 'Healthy')
          ? current
          : undefined;
      },
      ONE_INTERVAL_POLLS * 2,
    );
    const idOf = (template: string): string =>
      Object.entries(healthy.elements).find(([, element]) => element.definition.name === template)?.[0] ?? '';
    return { instanceId, idOf };
  }

  const gone = (instanceId: string, elementId: string) =>
    sim()
      .put(`${SIM_API}/observations`)
      .send({ instanceId, elementId, present: false, reason: 'deleted by hand' })
      .expect(200);

  const eventOf = (events: readonly HistoryEvent[], kind: string): HistoryEvent | undefined =>
    events.find((event) => event.event === kind);
  const countOf = (events: readonly HistoryEvent[], kind: string): number =>
    events.filter((event) => event.event === kind).length;
  const callsOf = (instanceId: string): ReceivedCall[] =>
    hook.calls.filter((call) => instanceOfCall(call) === instanceId);

  it('heals a gone element and its dependants in graph order within one interval, then HEALED, told once', async () => {
    const { instanceId, idOf } = await healthyInstance('HealedOnce');
    const database = idOf(DATABASE);
    const all = TEMPLATES.map(idOf);

    await gone(instanceId, database);
    const heal = await eventually(
      'a HEAL within one observe interval',
      async () => eventOf(await historyOf(api, compositionId, instanceId), 'HEAL'),
      ONE_INTERVAL_POLLS,
    );
    // Back once re-applied: the simulator observes it present again from here on.
    await sim().delete(`${SIM_API}/observations?instanceId=${instanceId}&elementId=${database}`).expect(200);
    expect(heal.detail).toEqual({ elementIds: [...all].sort() });
    expect(heal.actor).toEqual({ kind: 'runtime', rule: 'healing' });

    const healed = await eventually(
      'HEALED',
      async () => eventOf(await historyOf(api, compositionId, instanceId), 'HEALED'),
      ONE_INTERVAL_POLLS,
    );
    expect(healed.operationId).toBe(heal.operationId);
    expect(healed.detail).toEqual({ elementIds: [...all].sort() });

    // The heal's own events: HEAL after ORDERED, Database's result before its dependants', COMPLETED then HEALED.
    const ofHeal = (await historyOf(api, compositionId, instanceId)).filter(
      (event) => event.operationId === heal.operationId,
    );
    const kinds = ofHeal.map((event) => event.event);
    expect(kinds.slice(0, 2)).toEqual(['ORDERED', 'HEAL']);
    expect(kinds.slice(-2)).toEqual(['COMPLETED', 'HEALED']);
    const resultAt = (elementId: string): number =>
      ofHeal.findIndex((event) => event.event === 'ELEMENT_RESULT' && event.detail['elementId'] === elementId);
    const [, backend = '', frontend = ''] = all;
    expect(resultAt(database)).toBeGreaterThan(kinds.indexOf('HEAL'));
    expect(resultAt(backend)).toBeGreaterThan(resultAt(database));
    expect(resultAt(frontend)).toBeGreaterThan(resultAt(database));

    const back = await eventually(
      'Healthy again',
      async () => {
        const current = await instanceOf(api, compositionId, instanceId);
        return current.observedHealth?.elements[database]?.health === 'Healthy' ? current : undefined;
      },
      ONE_INTERVAL_POLLS,
    );
    expect([back.deployState, back.lockState]).toEqual(['DEPLOYED', 'LOCKED']);

    await eventually('HEALED delivered', () => Promise.resolve(callsOf(instanceId).length > 0 ? true : undefined));
    expect(callsOf(instanceId)).toHaveLength(1);
    const [call] = callsOf(instanceId);
    expect(call && kindOf(call)).toBe('HEALED');
    expect(call?.headers['x-acm-event-id']).toBe(String(healed.sequence));
    expect(call && signatureValid(call, SECRET)).toBe(true);
  });

  it('stops healing a flapping element after heal_max_per_hour heals, and tells the receiver', async () => {
    const { instanceId, idOf } = await healthyInstance('Flapping');
    const database = idOf(DATABASE);

    // Gone after every heal: the simulator keeps observing it gone.
    await gone(instanceId, database);
    const stopped = await eventually(
      'HEALING_STOPPED',
      async () => eventOf(await historyOf(api, compositionId, instanceId), 'HEALING_STOPPED'),
      ONE_INTERVAL_POLLS * (MAX_PER_HOUR + 1),
    );
    expect(stopped.detail).toEqual({ elementId: database, heals: MAX_PER_HOUR, maxPerHour: MAX_PER_HOUR });
    const history = await historyOf(api, compositionId, instanceId);
    expect(countOf(history, 'HEAL')).toBe(MAX_PER_HOUR);
    expect(countOf(history, 'HEALED')).toBe(MAX_PER_HOUR);
    const current: ObservedInstance = await instanceOf(api, compositionId, instanceId);
    expect(current.observedHealth?.elements[database]?.health).toBe('Missing');

    await eventually('HEALING_STOPPED delivered', () =>
      Promise.resolve(callsOf(instanceId).some((call) => kindOf(call) === 'HEALING_STOPPED') ? true : undefined),
    );
    const calls = callsOf(instanceId);
    expect(calls.map(kindOf)).toEqual([...Array<string>(MAX_PER_HOUR).fill('HEALED'), 'HEALING_STOPPED']);
    expect(calls.map((call) => call.headers['x-acm-event-id'])).toEqual(
      history
        .filter((event) => event.event === 'HEALED' || event.event === 'HEALING_STOPPED')
        .map((event) => String(event.sequence)),
    );
    for (const call of calls) {
      expect(signatureValid(call, SECRET)).toBe(true);
    }
    // Nothing else came: the first test's HEALED, once, and these.
    expect(hook.calls).toHaveLength(calls.length + 1);
  });
});
