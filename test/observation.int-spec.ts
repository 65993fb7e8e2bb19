import { randomUUID } from 'node:crypto';
import { MessageBus } from '@acm/messaging';
import type { Simulator } from '@acm/simulator';
import { DEFAULT_SIM_PASSWORD, DEFAULT_SIM_USER, SIM_API_PATH, createSimulator } from '@acm/simulator';
import request from 'supertest';
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
import { eventually } from './support/scripted-participant';
import type { ReceivedCall } from './support/webhook-receiver';
import { WebhookReceiver, signatureValid } from './support/webhook-receiver';

const SECRET = 'a secret the receiver shares';
const silent = (): void => undefined;

interface ObservedInstance {
  deployState: string;
  elements: Record<string, { properties: Record<string, unknown> }>;
  observedHealth?: {
    health: string;
    elements: Record<string, { health: string; reason: string | null; drift: string[] }>;
  };
}

/**
 * Observation end to end on PostgreSQL: the SDK's simulator (on the runtime's bus) observes on its own schedule what
 * its control API says; the runtime records health and drift, shows them in GET and notifies a real HTTP receiver.
 */
describe('observation (PostgreSQL, in-process bus, SDK simulator, real HTTP receiver)', () => {
  let runtime: RuntimeHarness;
  let simulator: Simulator;
  let compositionId: string;
  const hook = new WebhookReceiver();

  beforeAll(async () => {
    runtime = await startRuntime({ HEART_BEAT: '3600000', EVENT_FEED_POLL_MS: '200' });
    simulator = await createSimulator({
      bus: runtime.app.get(MessageBus),
      participantId: randomUUID(),
      timersMs: 0,
      logger: silent,
      observeTickMs: 100,
    });
    await participantRegistered(runtime, simulator.participant.participantId);
    // The element observed every 5 s (the floor), drift warned, its baseUrl never compared.
    const template = readRepoFile('tosca/examples/sim-single-element.yaml').replace(
      '      description: The only element of this composition.\n',
      '      description: The only element of this composition.\n' +
        '      metadata:\n        observe_interval: 5\n        drift: warn\n        drift_ignore: ["/baseUrl"]\n',
    );
    compositionId = await commissionAndPrime(runtime, template);
  }, 120_000);

  afterAll(async () => {
    await hook.stop();
    await simulator.close();
    await runtime.close();
  });

  const observe = (body: Record<string, unknown>) =>
    request(simulator.controlHandler)
      .put(`${SIM_API_PATH}/observations`)
      .auth(DEFAULT_SIM_USER, DEFAULT_SIM_PASSWORD)
      .send(body)
      .expect(200);

  async function historyOf(instanceId: string): Promise<Array<{ sequence: number; event: string }>> {
    const response = await runtime.http
      .get(`${BASE}/compositions/${compositionId}/instances/${instanceId}/history`)
      .expect(200);
    return (response.body as { events: Array<{ sequence: number; event: string }> }).events.filter((event) =>
      ['HEALTH_CHANGED', 'DRIFTED'].includes(event.event),
    );
  }

  it('refuses an ignore pointer that does not parse at commission, naming the field', async () => {
    const template = readRepoFile('tosca/examples/sim-single-element.yaml').replace(
      '      description: The only element of this composition.\n',
      '      description: The only element of this composition.\n      metadata:\n        drift_ignore: ["replicas"]\n',
    );
    const refused = await runtime.http
      .post(`${BASE}/compositions`)
      .set('Content-Type', 'application/yaml')
      .send(template)
      .expect(400);
    expect((refused.body as { errorDetails: string }).errorDetails).toBe(
      'topology_template.node_templates.acm.example.single.SimElement.metadata.drift_ignore[0]: ' +
        'must be a JSON pointer (RFC 6901, e.g. "/replicas"), got "replicas"',
    );
  });

  it('turns a changed element drifted and a gone one Missing, notifying each change once, signed', async () => {
    const url = await hook.start();
    const { instanceId } = await createInstanceFrom(
      runtime,
      compositionId,
      readRepoFile('tosca/examples/instances/sim-single-element.json'),
    );
    await runtime.http
      .post(`${BASE}/subscriptions`)
      .send({ url, secret: SECRET, filter: { kinds: ['HEALTH_CHANGED', 'DRIFTED'], instanceId } })
      .expect(201);
    await orderInstance(runtime, compositionId, instanceId, { deployOrder: 'DEPLOY' });
    await eventually('DEPLOYED', async () => {
      const current = await instanceOf<ObservedInstance>(runtime, compositionId, instanceId);
      return current.deployState === 'DEPLOYED' ? true : undefined;
    });
    // ONAP's behaviour until a participant observes: no observedHealth at all.
    const deployed = await instanceOf<ObservedInstance>(runtime, compositionId, instanceId);
    expect(deployed).not.toHaveProperty('observedHealth');
    const [ELEMENT = ''] = Object.keys(deployed.elements);

    await observe({
      instanceId,
      elementId: ELEMENT,
      // What runs: the desired properties (defaults included), its greeting changed and its baseUrl (ignored) too.
      properties: {
        ...deployed.elements[ELEMENT]?.properties,
        baseUrl: 'http://moved.example',
        configurationEntities: { greeting: { text: 'bye' } },
      },
    });
    const drifted = await eventually('drift observed', async () => {
      const current = await instanceOf<ObservedInstance>(runtime, compositionId, instanceId);
      return current.observedHealth?.elements[ELEMENT]?.drift.length ? current.observedHealth : undefined;
    });
    expect(drifted).toEqual({
      health: 'Healthy',
      elements: {
        [ELEMENT]: expect.objectContaining({ health: 'Healthy', drift: ['/configurationEntities/greeting/text'] }),
      },
    });

    await observe({ instanceId, elementId: ELEMENT, present: false, reason: 'deleted by hand' });
    const missing = await eventually('Missing', async () => {
      const current = await instanceOf<ObservedInstance>(runtime, compositionId, instanceId);
      return current.observedHealth?.health === 'Missing' ? current.observedHealth : undefined;
    });
    expect(missing.elements[ELEMENT]).toMatchObject({ health: 'Missing', reason: 'deleted by hand' });
    // The instance graph shows the element's health on its node.
    const graph = await runtime.http
      .get(`${BASE}/compositions/${compositionId}/instances/${instanceId}/graph?format=json`)
      .expect(200);
    expect((graph.body as { nodes: Array<{ id: string; health?: string }> }).nodes).toEqual([
      expect.objectContaining({ id: ELEMENT, health: 'Missing' }),
    ]);

    const history = await historyOf(instanceId);
    expect(history.map((event) => event.event)).toEqual(['HEALTH_CHANGED', 'DRIFTED', 'HEALTH_CHANGED']);
    await eventually('every change delivered', () => Promise.resolve(hook.calls.length >= 3 ? true : undefined));
    const kindOf = (call: ReceivedCall): string => String(call.body['type']).split('.').pop() ?? '';
    expect(hook.calls.map(kindOf)).toEqual(['HEALTH_CHANGED', 'DRIFTED', 'HEALTH_CHANGED']);
    expect(hook.calls.map((call) => call.body['id'])).toEqual(history.map((event) => String(event.sequence)));
    for (const call of hook.calls) {
      expect(signatureValid(call, SECRET)).toBe(true);
    }
  });
});
