import { simulatorStack, commissionedAndPrimed } from '../support/e2e-stack';
import type { HistoryEvent } from '../support/observe-e2e';
import {
  API,
  ONE_INTERVAL_POLLS,
  SIM_API,
  createdInstance,
  deployOrdered,
  historyOf,
  instanceOf as instanceRead,
  kindOf,
} from '../support/observe-e2e';
import { readRepoFile } from '../support/runtime-harness';
import { eventually } from '../support/scripted-participant';
import { WebhookReceiver, signatureValid } from '../support/webhook-receiver';

const SECRET = 'the observe receiver secret';

/**
 * Observation over Kafka with the runtime and the simulator as processes: the simulator (`SIM_OBSERVE=true`) observes
 * every deployed element on its own schedule, its control API (`PUT /observations`) makes one changed, then gone; the
 * runtime turns it drifted, then Missing, within one observe interval, and a real HTTP receiver is told each change
 * once, signed.
 */
describe('observation over Kafka (runtime + simulator processes)', () => {
  const stack = simulatorStack('observe', { SIM_OBSERVE: 'true' });
  const { api, sim } = stack;
  const hook = new WebhookReceiver();

  afterAll(async () => {
    await hook.stop();
  });

  const instanceOf = (compositionId: string, instanceId: string) => instanceRead(api, compositionId, instanceId);

  const observedChanges = async (compositionId: string, instanceId: string): Promise<HistoryEvent[]> =>
    (await historyOf(api, compositionId, instanceId)).filter(
      (event) => event.event === 'HEALTH_CHANGED' || event.event === 'DRIFTED',
    );

  it('turns a changed element drifted and a gone one Missing within one interval, notifying each once', async () => {
    const compositionId = await commissionedAndPrimed(api, readRepoFile('test/fixtures/sim-observed.yaml'));
    const instanceId = await createdInstance(
      api,
      compositionId,
      readRepoFile('tosca/examples/instances/sim-single-element.json'),
    );
    await deployOrdered(api, compositionId, instanceId);

    // SIM_OBSERVE: once deployed, the element is observed on the simulator's own schedule, healthy and as desired.
    const healthy = await eventually(
      'the element observed Healthy',
      async () => {
        const current = await instanceOf(compositionId, instanceId);
        return current.deployState === 'DEPLOYED' && current.observedHealth?.health === 'Healthy' ? current : undefined;
      },
      ONE_INTERVAL_POLLS * 2,
    );
    const [ELEMENT = ''] = Object.keys(healthy.elements);
    expect(healthy.observedHealth?.elements[ELEMENT]).toMatchObject({ health: 'Healthy', drift: [] });
    const before = await observedChanges(compositionId, instanceId);

    // From here on the receiver hears this instance's health and drift changes.
    const url = await hook.start();
    await api()
      .post(`${API}/subscriptions`)
      .send({ url, secret: SECRET, filter: { kinds: ['HEALTH_CHANGED', 'DRIFTED'], instanceId } })
      .expect(201);

    // The element runs with another greeting: drifted, still Healthy.
    await sim()
      .put(`${SIM_API}/observations`)
      .send({
        instanceId,
        elementId: ELEMENT,
        properties: { ...healthy.elements[ELEMENT]?.properties, configurationEntities: { greeting: { text: 'bye' } } },
      })
      .expect(200);
    const drifted = await eventually(
      'the drift within one observe interval',
      async () => {
        const current = await instanceOf(compositionId, instanceId);
        return current.observedHealth?.elements[ELEMENT]?.drift.length ? current.observedHealth : undefined;
      },
      ONE_INTERVAL_POLLS,
    );
    expect(drifted).toEqual({
      health: 'Healthy',
      elements: {
        [ELEMENT]: expect.objectContaining({ health: 'Healthy', drift: ['/configurationEntities/greeting/text'] }),
      },
    });

    // The element is gone.
    await sim()
      .put(`${SIM_API}/observations`)
      .send({ instanceId, elementId: ELEMENT, present: false, reason: 'deleted by hand' })
      .expect(200);
    const missing = await eventually(
      'Missing within one observe interval',
      async () => {
        const current = await instanceOf(compositionId, instanceId);
        return current.observedHealth?.health === 'Missing' ? current.observedHealth : undefined;
      },
      ONE_INTERVAL_POLLS,
    );
    expect(missing.elements[ELEMENT]).toMatchObject({
      health: 'Missing',
      reason: 'deleted by hand',
      // A gone element keeps the drift it had.
      drift: ['/configurationEntities/greeting/text'],
    });

    // The instance graph shows it too.
    const graph = await api()
      .get(`${API}/compositions/${compositionId}/instances/${instanceId}/graph?format=mermaid`)
      .expect(200);
    expect(graph.text).toContain('<br/>DEPLOYED/LOCKED Missing"]');

    // Each change is in the history once, however often the simulator reported the same state.
    const changes = (await observedChanges(compositionId, instanceId)).slice(before.length);
    expect(changes.map((event) => [event.event, event.detail['health'] ?? event.detail['paths']])).toEqual([
      ['DRIFTED', ['/configurationEntities/greeting/text']],
      ['HEALTH_CHANGED', 'Missing'],
    ]);
    expect(changes[1]?.detail).toMatchObject({ elementId: ELEMENT, previous: 'Healthy', reason: 'deleted by hand' });

    // The receiver got DRIFTED and HEALTH_CHANGED, each once, as the history's events, signed with the secret.
    await eventually('both changes delivered', () => Promise.resolve(hook.calls.length >= 2 ? true : undefined));
    expect(hook.calls.map(kindOf)).toEqual(['DRIFTED', 'HEALTH_CHANGED']);
    expect(hook.calls.map((call) => call.headers['x-acm-event-id'])).toEqual(
      changes.map((event) => String(event.sequence)),
    );
    for (const call of hook.calls) {
      expect(signatureValid(call, SECRET)).toBe(true);
    }

    // Back as desired: Healthy again, no drift; the receiver hears exactly that, nothing repeated before it.
    await sim().delete(`${SIM_API}/observations?instanceId=${instanceId}&elementId=${ELEMENT}`).expect(200);
    await eventually(
      'Healthy again within one observe interval',
      async () => {
        const current = await instanceOf(compositionId, instanceId);
        const element = current.observedHealth?.elements[ELEMENT];
        return element?.health === 'Healthy' && element.drift.length === 0 ? true : undefined;
      },
      ONE_INTERVAL_POLLS,
    );
    const all = (await observedChanges(compositionId, instanceId)).slice(before.length);
    await eventually('every change delivered', () =>
      Promise.resolve(hook.calls.length >= all.length ? true : undefined),
    );
    expect(hook.calls.map((call) => call.headers['x-acm-event-id'])).toEqual(
      all.map((event) => String(event.sequence)),
    );
    expect(
      all.filter((event) => event.event === 'HEALTH_CHANGED' && event.detail['health'] === 'Missing'),
    ).toHaveLength(1);
    expect(
      all.filter((event) => event.event === 'DRIFTED' && (event.detail['paths'] as string[]).length > 0),
    ).toHaveLength(1);
  });
});
