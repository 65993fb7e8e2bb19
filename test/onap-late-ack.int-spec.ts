import { randomUUID } from 'node:crypto';
import { KafkaMessageBus } from '@acm/messaging';
import type { IncomingRecord, Subscription } from '@acm/messaging';
import { EngineMetrics } from '../apps/runtime-acm/src/engine/engine-metrics';
import type { RuntimeHarness } from './support/runtime-harness';
import { BASE, participantRegistered, readRepoFile, startRuntime } from './support/runtime-harness';
import { eventually } from './support/scripted-participant';
import { testKafkaBrokers } from './support/services';

/** Kafka joins and fetches take seconds: wait up to a minute for each state (20 ms per attempt). */
const KAFKA_ATTEMPTS = 3000;
const FIXTURE_ELEMENT = '5e1f0000-0000-4000-8000-000000001001';

type Json = Record<string, unknown>;

interface Instance {
  deployState: string;
  stateChangeResult: string;
  elements: Record<string, { deployState: string; message?: string }>;
}

/**
 * An ONAP participant, as raw Kafka records: it registers, answers the prime, takes the deploy and stays silent past
 * the phase's deadline. The runtime flags TIMEOUT and says so in a PARTICIPANT_SYNC_MSG; ONAP's intermediary then
 * answers the work it finishes with that SYNC's messageId as `responseTo` (its `cleanExecution` remembers the SYNC as
 * the element's last message), and the runtime must apply that answer as ONAP's runtime does.
 */
describe('an ONAP participant answers after TIMEOUT with the SYNC as responseTo (Kafka)', () => {
  const suffix = randomUUID().slice(0, 8);
  const topics = { operation: `acm-lateack-op-${suffix}`, sync: `acm-lateack-sync-${suffix}` };
  const participantId = randomUUID();
  const replicaId = randomUUID();
  const buses: KafkaMessageBus[] = [];
  const subscriptions: Subscription[] = [];
  /** What the ONAP participant received on either topic, decoded as plain JSON. */
  const received: Json[] = [];
  let participant: KafkaMessageBus;
  let runtime: RuntimeHarness;

  const bus = (clientId: string): KafkaMessageBus => {
    const created = new KafkaMessageBus({ brokers: testKafkaBrokers(), clientId, logger: () => undefined });
    buses.push(created);
    return created;
  };

  /** Sends one record as ONAP's participant publisher does: plain JSON on the runtime's topic. */
  const send = async (message: Json): Promise<void> => {
    await participant.publish(topics.operation, [{ key: participantId, value: JSON.stringify(message) }]);
  };

  const receive = (record: IncomingRecord): Promise<void> => {
    received.push(JSON.parse(record.value) as Json);
    return Promise.resolve();
  };

  const receivedOf = (type: string, where: (message: Json) => boolean = () => true): Json | undefined =>
    received.find((message) => message['messageType'] === type && where(message));

  beforeAll(async () => {
    const admin = bus('acm-lateack-admin');
    await admin.createTopics([
      { topic: topics.operation, numPartitions: 1 },
      { topic: topics.sync, numPartitions: 1 },
    ]);
    runtime = await startRuntime({
      KAFKA_BOOTSTRAP_SERVERS: testKafkaBrokers().join(','),
      KAFKA_GROUP_ID: `acm-lateack-runtime-${suffix}`,
      RUNTIME_OPERATION_TOPIC: topics.operation,
      RUNTIME_SYNC_TOPIC: topics.sync,
      // The scan runs once an hour, resends are off: the deadline is fired by the supervision timer.
      HEART_BEAT: '3600000',
      MAX_WAIT_MS: '0',
    });
    participant = bus('acm-lateack-participant');
    subscriptions.push(
      await participant.subscribe({ topic: topics.operation, groupId: `acm-lateack-ppnt-${suffix}`, handler: receive }),
      await participant.subscribe({ topic: topics.sync, groupId: `acm-lateack-sync-${suffix}`, handler: receive }),
    );
    await send({
      messageType: 'PARTICIPANT_REGISTER',
      messageId: randomUUID(),
      timestamp: new Date().toISOString(),
      participantId,
      replicaId,
      participantSupportedElementType: [
        {
          id: randomUUID(),
          typeName: 'org.onap.policy.clamp.acm.SimAutomationCompositionElement',
          typeVersion: '1.0.0',
        },
      ],
    });
    await participantRegistered(runtime, participantId);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(subscriptions.map((subscription) => subscription.close()));
    await runtime?.close();
    await Promise.all(buses.map((each) => each.close()));
  }, 60_000);

  it('applies the late ACK and the instance ends DEPLOYED', async () => {
    const created = await runtime.http
      .post(`${BASE}/compositions`)
      .set('Content-Type', 'application/yaml')
      .send(readRepoFile('tosca/examples/sim-single-element.yaml'))
      .expect(201);
    const compositionId = (created.body as { compositionId: string }).compositionId;
    await runtime.http.put(`${BASE}/compositions/${compositionId}`).send({ primeOrder: 'PRIME' }).expect(202);
    const prime = await eventually(
      'the PRIME',
      () => receivedOf('PARTICIPANT_PRIME', (message) => message['compositionId'] === compositionId),
      KAFKA_ATTEMPTS,
    );
    await send({
      messageType: 'PARTICIPANT_PRIME_ACK',
      responseTo: prime['messageId'],
      timestamp: new Date().toISOString(),
      compositionId,
      participantId,
      replicaId,
      compositionState: 'PRIMED',
      stateChangeResult: 'NO_ERROR',
      message: 'Primed',
      result: true,
      state: 'ON_LINE',
    });
    await eventually(
      'PRIMED',
      async () => {
        const got = await runtime.http.get(`${BASE}/compositions/${compositionId}`).expect(200);
        return (got.body as { state: string }).state === 'PRIMED' ? true : undefined;
      },
      KAFKA_ATTEMPTS,
    );

    const elementId = randomUUID();
    const body = JSON.parse(
      readRepoFile('tosca/examples/instances/sim-single-element.json')
        .replace(/COMPOSITIONIDPLACEHOLDER/g, compositionId)
        .replace(new RegExp(FIXTURE_ELEMENT, 'g'), elementId),
    ) as { name: string; elements: Record<string, { properties: object }> };
    body.name = `${body.name}-${suffix}`;
    body.elements[elementId]!.properties = { ...body.elements[elementId]!.properties, deployTimeoutMs: 1000 };
    const instance = await runtime.http.post(`${BASE}/compositions/${compositionId}/instances`).send(body).expect(201);
    const instanceId = (instance.body as { instanceId: string }).instanceId;
    const path = `${BASE}/compositions/${compositionId}/instances/${instanceId}`;
    const read = async (): Promise<Instance> => (await runtime.http.get(path).expect(200)).body as Instance;
    await runtime.http.put(path).send({ deployOrder: 'DEPLOY' }).expect(202);

    await eventually(
      'the DEPLOY',
      () => receivedOf('AUTOMATION_COMPOSITION_DEPLOY', (message) => message['automationCompositionId'] === instanceId),
      KAFKA_ATTEMPTS,
    );
    const sync = await eventually(
      'the SYNC that says TIMEOUT',
      () =>
        receivedOf('PARTICIPANT_SYNC_MSG', (message) =>
          ((message['automationcompositionList'] as Json[] | undefined) ?? []).some(
            (listed) => listed['automationCompositionId'] === instanceId && listed['stateChangeResult'] === 'TIMEOUT',
          ),
        ),
      KAFKA_ATTEMPTS,
    );
    expect(await read()).toMatchObject({ deployState: 'DEPLOYING', stateChangeResult: 'TIMEOUT' });

    // An answer to a message the runtime never sent stays ignored, and counted.
    const ignoredUnknown = async (): Promise<number> =>
      (await runtime.app.get(EngineMetrics).messagesIgnored.get()).values.find(
        (value) => value.labels.reason === 'UNKNOWN_MESSAGE',
      )?.value ?? 0;
    const unknownBefore = await ignoredUnknown();
    const lateAck = (responseTo: unknown, message: string): Json => ({
      messageType: 'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
      responseTo,
      timestamp: new Date().toISOString(),
      participantId,
      replicaId,
      automationCompositionId: instanceId,
      stateChangeResult: 'NO_ERROR',
      message,
      result: true,
      automationCompositionResultMap: {
        [elementId]: {
          deployState: 'DEPLOYED',
          lockState: 'LOCKED',
          operationalState: 'ENABLED',
          useState: 'IDLE',
          outProperties: {},
          result: true,
          message,
        },
      },
    });
    await send(lateAck(randomUUID(), 'answers nothing the runtime sent'));
    await eventually(
      'the unknown answer ignored',
      async () => ((await ignoredUnknown()) > unknownBefore ? true : undefined),
      KAFKA_ATTEMPTS,
    );
    expect(await read()).toMatchObject({ deployState: 'DEPLOYING', stateChangeResult: 'TIMEOUT' });

    // ONAP's intermediary: the handler finished after all, its report answers the TIMEOUT SYNC.
    await send(lateAck(sync['messageId'], 'Deployed after the deadline'));
    const done = await eventually(
      'DEPLOYED',
      async () => {
        const current = await read();
        return current.deployState === 'DEPLOYED' ? current : undefined;
      },
      KAFKA_ATTEMPTS,
    );
    expect(done).toMatchObject({
      stateChangeResult: 'NO_ERROR',
      elements: { [elementId]: { deployState: 'DEPLOYED', message: 'Deployed after the deadline' } },
    });
  }, 240_000);
});
