import { randomUUID } from 'node:crypto';
import { KafkaMessageBus } from '@acm/messaging';
import request from 'supertest';
import { commissionedAndPrimed, dropSchema, participantKnown, runtimeAnswering } from '../support/e2e-stack';
import type { ProductProcess } from '../support/processes';
import { freePort, runtimeProcess } from '../support/processes';
import { PASSWORD, USER } from '../support/runtime-harness';
import { ScriptedParticipant, eventually } from '../support/scripted-participant';
import { testKafkaBrokers } from '../support/services';
import { repoFile } from './lifecycle.scenarios';

const API = '/onap/policy/clamp/acm/v2';
const SIM_TYPE = { typeName: 'org.onap.policy.clamp.acm.SimAutomationCompositionElement', typeVersion: '1.0.0' };
const FIXTURE_ELEMENT = '5e1f0000-0000-4000-8000-000000001001';
/** The supervision scan runs once a minute here: whatever happens within seconds was fired by the timer. */
const SCAN_MS = 60_000;

interface HistoryEvent {
  readonly event: string;
  readonly at: string;
  readonly detail: Record<string, unknown>;
}

/**
 * Timers that fire on time, with the runtime as a process on PostgreSQL and Kafka and a scripted participant that
 * stays silent: a resend after MAX_WAIT_MS, a no-progress report, a retry after its backoff and the phase's
 * deadline each come within seconds, while the scan that used to drive them runs only once a minute.
 */
describe('supervision timers: runtime as a process over Kafka, scan every 60 s', () => {
  const suffix = randomUUID().slice(0, 8);
  const schema = `e2e_timers_${suffix}`;
  const topics = { op: `acm-e2e-op-${suffix}`, sync: `acm-e2e-sync-${suffix}` };
  let runtimeUrl = '';
  let runtime: ProductProcess;
  let bus: KafkaMessageBus;
  let participant: ScriptedParticipant;
  let compositionId = '';

  const api = (): request.Agent => request.agent(runtimeUrl).auth(USER, PASSWORD);

  beforeAll(async () => {
    const port = await freePort();
    runtimeUrl = `http://127.0.0.1:${port}`;
    runtime = runtimeProcess(`runtime-timers-${suffix}`, {
      port,
      schema,
      groupId: `acm-runtime-${suffix}`,
      topics,
      env: {
        HEART_BEAT: String(SCAN_MS),
        MAX_WAIT_MS: '1500',
        MAX_RETRY_COUNT: '1',
        NO_PROGRESS_TIMEOUT: '2500',
        MAX_STATUS_WAIT: '600000',
      },
    });
    runtime.start();
    await runtimeAnswering(api);
    bus = new KafkaMessageBus({ brokers: testKafkaBrokers(), clientId: `timers-${suffix}`, logger: () => undefined });
    participant = new ScriptedParticipant(bus, randomUUID(), [SIM_TYPE], {
      operation: topics.op,
      sync: topics.sync,
    });
    participant.autoAnswer = false;
    await participant.start();
    await participantKnown(api, participant.participantId);
    compositionId = await commissionedAndPrimed(api, repoFile('tosca/examples/sim-single-element.yaml'));
  }, 120_000);

  afterAll(async () => {
    await participant?.stop();
    await bus?.close();
    await runtime?.stop();
    await dropSchema(schema);
  });

  it('fires a resend, a no-progress report, a retry and a deadline when each falls due', async () => {
    const elementId = randomUUID();
    const body = JSON.parse(
      repoFile('tosca/examples/instances/sim-single-element.json')
        .replace(/COMPOSITIONIDPLACEHOLDER/g, compositionId)
        .replace(new RegExp(FIXTURE_ELEMENT, 'g'), elementId),
    ) as { name: string; metadata?: Record<string, unknown>; elements: Record<string, { properties: object }> };
    body.name = `Timers-${suffix}`;
    body.metadata = { retryPolicy: { limit: 1, backoff: { durationMs: 1000, factor: 2, maxDurationMs: 5000 } } };
    body.elements[elementId]!.properties = { ...body.elements[elementId]!.properties, deployTimeoutMs: 6000 };
    const created = await api().post(`${API}/compositions/${compositionId}/instances`).send(body).expect(201);
    const instanceId = (created.body as { instanceId: string }).instanceId;
    const path = `${API}/compositions/${compositionId}/instances/${instanceId}`;
    await api().put(path).send({ deployOrder: 'DEPLOY' }).expect(202);

    const history = async (): Promise<HistoryEvent[]> =>
      ((await api().get(`${path}/history`).expect(200)).body as { events: HistoryEvent[] }).events;
    const atOf = (event: HistoryEvent): number => Date.parse(event.at);
    const first = async (name: string, after = 0): Promise<HistoryEvent> =>
      eventually(name, async () => (await history()).find((event) => event.event === name && atOf(event) >= after));

    const ordered = await first('ORDERED');
    // Silent: the phase goes out again MAX_WAIT_MS after it opened.
    const resent = await first('RESENT');
    // Still silent after the one resend: reported stuck NO_PROGRESS_TIMEOUT after it.
    const stuck = await first('NO_PROGRESS');
    // The participant fails the element: retried after the policy's 1 s backoff.
    const [phase] = participant.phaseMessages(instanceId);
    participant.failing.add(elementId);
    await participant.ack(phase!, [elementId]);
    const scheduled = await first('RETRY_SCHEDULED');
    const retried = await first('RETRY_ATTEMPT');
    // Silent again: the retried phase's own deadline (deployTimeoutMs, from the retry) flags TIMEOUT.
    const timedOut = await first('TIMEOUT');

    const figures = {
      resend: { due: atOf(ordered) + 1500, fired: atOf(resent) },
      noProgress: { due: atOf(resent) + 2500, fired: atOf(stuck) },
      backoff: { due: atOf(scheduled) + 1000, fired: atOf(retried) },
      deadline: { due: atOf(retried) + 6000 + 1, fired: atOf(timedOut) },
    };
    process.stdout.write(
      `supervision timers, fired - due (ms): ${Object.entries(figures)
        .map(([kind, { due, fired }]) => `${kind} ${fired - due}`)
        .join(', ')}\n`,
    );
    for (const { due, fired } of Object.values(figures)) {
      // Never early; and long before the next scan could have caused it (a loaded machine may add seconds).
      expect(fired).toBeGreaterThanOrEqual(due);
      expect(fired - due).toBeLessThan(SCAN_MS / 4);
    }
    expect((await api().get(path).expect(200)).body).toMatchObject({
      deployState: 'DEPLOYING',
      stateChangeResult: 'TIMEOUT',
    });
  }, 120_000);
});
