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

const silent = (): void => undefined;
/** Probes of `eventually`: observations come every 5 s (the floor), and a flapping element needs three of them. */
const PATIENCE = 3_000;

interface HistoryEvent {
  sequence: number;
  event: string;
  operationId: string | null;
  detail: Record<string, unknown>;
  actor: Record<string, unknown>;
}

interface ObservedInstance {
  deployState: string;
  lockState: string;
  elements: Record<string, unknown>;
  observedHealth?: { health: string; elements: Record<string, { health: string }> };
}

/**
 * Self-healing on PostgreSQL: the SDK's simulator observes on its own schedule what its control API says; an element
 * under `drift: correct` found gone is deployed again as a HEAL operation, and one that stays gone is healed at most
 * `heal_max_per_hour` times, then HEALING_STOPPED.
 */
describe('self-healing (PostgreSQL, in-process bus, SDK simulator)', () => {
  let runtime: RuntimeHarness;
  let simulator: Simulator;
  let compositionId: string;

  beforeAll(async () => {
    runtime = await startRuntime({ HEART_BEAT: '3600000' });
    simulator = await createSimulator({
      bus: runtime.app.get(MessageBus),
      participantId: randomUUID(),
      timersMs: 0,
      logger: silent,
      observeTickMs: 100,
    });
    await participantRegistered(runtime, simulator.participant.participantId);
    const template = readRepoFile('tosca/examples/sim-single-element.yaml').replace(
      '      description: The only element of this composition.\n',
      '      description: The only element of this composition.\n' +
        '      metadata:\n        observe_interval: 5\n        drift: correct\n        heal_max_per_hour: 2\n',
    );
    compositionId = await commissionAndPrime(runtime, template);
  }, 120_000);

  afterAll(async () => {
    await simulator.close();
    await runtime.close();
  });

  const observe = (body: Record<string, unknown>) =>
    request(simulator.controlHandler)
      .put(`${SIM_API_PATH}/observations`)
      .auth(DEFAULT_SIM_USER, DEFAULT_SIM_PASSWORD)
      .send(body)
      .expect(200);

  async function historyOf(instanceId: string): Promise<HistoryEvent[]> {
    const response = await runtime.http
      .get(`${BASE}/compositions/${compositionId}/instances/${instanceId}/history`)
      .expect(200);
    return (response.body as { events: HistoryEvent[] }).events;
  }

  const countOf = (events: readonly HistoryEvent[], kind: string): number =>
    events.filter((event) => event.event === kind).length;

  it('deploys a gone element again as a HEAL, and stops after heal_max_per_hour heals', async () => {
    const { instanceId } = await createInstanceFrom(
      runtime,
      compositionId,
      readRepoFile('tosca/examples/instances/sim-single-element.json'),
    );
    await orderInstance(runtime, compositionId, instanceId, { deployOrder: 'DEPLOY' });
    const deployed = await eventually('DEPLOYED', async () => {
      const current = await instanceOf<ObservedInstance>(runtime, compositionId, instanceId);
      return current.deployState === 'DEPLOYED' ? current : undefined;
    });
    const [ELEMENT = ''] = Object.keys(deployed.elements);

    // Gone: the runtime deploys it again; the participant's next look finds it back.
    await observe({ instanceId, elementId: ELEMENT, present: false, reason: 'deleted by hand' });
    const firstHeal = await eventually(
      'the first heal completed',
      async () => {
        const events = await historyOf(instanceId);
        const heal = events.find((event) => event.event === 'HEAL');
        const done = events.find((event) => event.event === 'COMPLETED' && event.operationId === heal?.operationId);
        return heal !== undefined && done !== undefined ? heal : undefined;
      },
      PATIENCE,
    );
    expect(firstHeal.detail).toEqual({ elementIds: [ELEMENT] });
    expect(firstHeal.actor).toEqual({ kind: 'runtime', rule: 'healing' });
    const ofFirstHeal = (await historyOf(instanceId)).filter((event) => event.operationId === firstHeal.operationId);
    expect(ofFirstHeal.map((event) => event.event).slice(-2)).toEqual(['COMPLETED', 'HEALED']);
    expect(ofFirstHeal.at(-1)?.detail).toEqual({ elementIds: [ELEMENT] });
    await observe({ instanceId, elementId: ELEMENT, present: true, healthy: true });
    await eventually(
      'Healthy again',
      async () => {
        const current = await instanceOf<ObservedInstance>(runtime, compositionId, instanceId);
        return current.observedHealth?.elements[ELEMENT]?.health === 'Healthy' ? true : undefined;
      },
      PATIENCE,
    );
    const healed = await instanceOf<ObservedInstance>(runtime, compositionId, instanceId);
    expect([healed.deployState, healed.lockState]).toEqual(['DEPLOYED', 'LOCKED']);

    // Gone for good: healed once more (2 within the hour), then held back and told once.
    await observe({ instanceId, elementId: ELEMENT, present: false, reason: 'deleted again' });
    const stopped = await eventually(
      'healing stopped',
      async () => {
        const events = await historyOf(instanceId);
        return events.find((event) => event.event === 'HEALING_STOPPED');
      },
      PATIENCE,
    );
    expect(stopped.detail).toEqual({ elementId: ELEMENT, heals: 2, maxPerHour: 2 });
    const history = await historyOf(instanceId);
    expect(countOf(history, 'HEAL')).toBe(2);
    expect(countOf(history, 'HEALED')).toBe(2);
    expect(countOf(history, 'HEALING_STOPPED')).toBe(1);
    const current = await instanceOf<ObservedInstance>(runtime, compositionId, instanceId);
    expect(current.observedHealth?.elements[ELEMENT]?.health).toBe('Missing');
  }, 120_000);
});
