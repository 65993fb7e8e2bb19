import { randomUUID } from 'node:crypto';
import { decodeMessage } from '@acm/contracts';
import type { AutomationCompositionDeploy } from '@acm/contracts';
import { KafkaMessageBus, signRecord } from '@acm/messaging';
import type { IncomingRecord, OutgoingRecord, Subscription } from '@acm/messaging';
import { Participant } from '@acm/participant-sdk';
import type { ElementContext } from '@acm/participant-sdk';
import { EngineMetrics } from '../apps/runtime-acm/src/engine/engine-metrics';
import type { RuntimeHarness } from './support/runtime-harness';
import {
  commissionAndPrime,
  createInstanceFrom,
  historyOf,
  instanceOf,
  orderInstance,
  participantRegistered,
  readRepoFile,
  startRuntime,
} from './support/runtime-harness';
import { ScriptedParticipant, eventually } from './support/scripted-participant';
import { testKafkaBrokers } from './support/services';

const SIM_TYPE = { typeName: 'org.onap.policy.clamp.acm.SimAutomationCompositionElement', typeVersion: '1.0.0' };
const OTHER_TYPE = { typeName: 'org.onap.policy.clamp.acm.OtherAutomationCompositionElement', typeVersion: '1.0.0' };
const KEY = { principal: 'participant-sim', secret: `secret-of-the-real-participant-${randomUUID()}` };
/** Kafka joins and fetches take seconds: wait up to a minute for each state (20 ms per attempt). */
const KAFKA_ATTEMPTS = 3000;

/** A client that names the bound principal and signs with a secret it guessed. */
class GuessingBus extends KafkaMessageBus {
  override publish(topic: string, records: readonly OutgoingRecord[]): Promise<void> {
    const guess = { principal: KEY.principal, secret: 'g'.repeat(40) };
    return super.publish(
      topic,
      records.map((record) => signRecord(topic, record, guess, Date.now())),
    );
  }
}

/**
 * Participants bound to their principal, on the real Kafka: the runtime refuses records for a bound participantId
 * that its principal did not sign (a spoofed ACK, a spoofed FAILED, a replay of its own ACK), counts them, and the
 * operation goes on with the real participant's answers; a participant that is not bound is unaffected.
 */
describe('participant bindings on Kafka', () => {
  const suffix = randomUUID().slice(0, 8);
  const topics = { operation: `acm-bind-op-${suffix}`, sync: `acm-bind-sync-${suffix}` };
  const participantId = randomUUID();
  const buses: KafkaMessageBus[] = [];
  const bus = (clientId: string): KafkaMessageBus => {
    const created = new KafkaMessageBus({ brokers: testKafkaBrokers(), clientId, logger: () => undefined });
    buses.push(created);
    return created;
  };
  let runtime: RuntimeHarness;
  let participant: Participant;
  let observer: Subscription;
  /** Every record on the operation topic, as a client allowed to read it sees them. */
  const seen: IncomingRecord[] = [];
  /** The deploy the real participant is running, held until the test releases it. */
  let running: { ctx: ElementContext; release: () => void } | undefined;

  beforeAll(async () => {
    const admin = bus('acm-bind-admin');
    await admin.createTopics([
      { topic: topics.operation, numPartitions: 1 },
      { topic: topics.sync, numPartitions: 1 },
    ]);
    observer = await admin.subscribe({
      topic: topics.operation,
      groupId: `acm-bind-observer-${suffix}`,
      handler: (record) => {
        seen.push(record);
        return Promise.resolve();
      },
    });
    runtime = await startRuntime({
      KAFKA_BOOTSTRAP_SERVERS: testKafkaBrokers().join(','),
      KAFKA_GROUP_ID: `acm-bind-runtime-${suffix}`,
      RUNTIME_OPERATION_TOPIC: topics.operation,
      RUNTIME_SYNC_TOPIC: topics.sync,
      PARTICIPANT_BINDINGS: JSON.stringify({ [participantId]: KEY }),
    });
    participant = new Participant({
      participantId,
      supportedElementTypes: [SIM_TYPE],
      bus: bus('acm-bind-participant'),
      topics,
      signing: KEY,
      logger: () => undefined,
      handler: {
        deploy: (ctx) =>
          new Promise((resolve) => {
            running = { ctx, release: () => resolve({ ok: true, message: 'Deployed by the real participant' }) };
          }),
        undeploy: () => ({ ok: true }),
      },
    });
    await participant.start();
    await participantRegistered(runtime, participantId);
  }, 120_000);

  afterAll(async () => {
    await participant?.stop();
    await observer?.close();
    await runtime?.close();
    await Promise.all(buses.map((each) => each.close()));
  }, 60_000);

  const refused = async (): Promise<Record<string, number>> => {
    const metric = await runtime.app.get(EngineMetrics).recordsRefused.get();
    return Object.fromEntries(
      metric.values.map((value) => [`${value.labels.reason}/${value.labels.type}`, value.value]),
    );
  };

  it('refuses a spoofed ACK and a spoofed FAILED, and the operation completes on the real answer', async () => {
    const compositionId = await commissionAndPrime(runtime, readRepoFile('tosca/examples/sim-single-element.yaml'));
    const { instanceId, elementIds } = await createInstanceFrom(
      runtime,
      compositionId,
      readRepoFile('tosca/examples/instances/sim-single-element.json'),
    );
    await orderInstance(runtime, compositionId, instanceId, { deployOrder: 'DEPLOY' });
    await eventually('the real participant to run the deploy', () => running, KAFKA_ATTEMPTS);
    const deploy = await eventually(
      'the deploy order on the topic',
      () =>
        seen
          .map((record) => decodeMessage(record.value))
          .map((decoded) => (decoded.ok ? decoded.message : undefined))
          .find(
            (message): message is AutomationCompositionDeploy =>
              message?.messageType === 'AUTOMATION_COMPOSITION_DEPLOY' &&
              message.automationCompositionId === instanceId,
          ),
      KAFKA_ATTEMPTS,
    );

    // Any client that may write on the topic: one sends unsigned, the other signs with a secret it guessed.
    const spoofer = new ScriptedParticipant(bus('acm-bind-spoofer'), participantId, [SIM_TYPE], topics);
    await spoofer.ack(deploy, elementIds);
    const guesser = new GuessingBus({
      brokers: testKafkaBrokers(),
      clientId: 'acm-bind-guesser',
      logger: () => undefined,
    });
    buses.push(guesser);
    const failed = new ScriptedParticipant(guesser, participantId, [SIM_TYPE], topics);
    elementIds.forEach((id) => failed.failing.add(id));
    await failed.ack(deploy, elementIds);

    await eventually(
      'both spoofed answers refused',
      async () => {
        const counts = await refused();
        return counts['missing/AUTOMATION_COMPOSITION_STATECHANGE_ACK'] === 1 &&
          counts['invalid/AUTOMATION_COMPOSITION_STATECHANGE_ACK'] === 1
          ? counts
          : undefined;
      },
      KAFKA_ATTEMPTS,
    );
    const during = await instanceOf<{ deployState: string }>(runtime, compositionId, instanceId);
    expect(during.deployState).toBe('DEPLOYING');

    running!.release();
    await eventually(
      'DEPLOYED by the real participant',
      async () =>
        (await instanceOf<{ deployState: string }>(runtime, compositionId, instanceId)).deployState === 'DEPLOYED'
          ? true
          : undefined,
      KAFKA_ATTEMPTS,
    );
    const events = await historyOf<{ event: string }>(runtime, compositionId, instanceId);
    expect(events.map((event) => event.event)).not.toContain('OPERATION_FAILED');
    const element = (
      await instanceOf<{ elements: Record<string, { message?: string }> }>(runtime, compositionId, instanceId)
    ).elements[elementIds[0]!];
    expect(element?.message).toBe('Deployed by the real participant');

    // The real participant's own ACK, copied byte for byte (headers too) and produced again: a replay.
    const realAck = seen.find(
      (record) =>
        record.value.includes('AUTOMATION_COMPOSITION_STATECHANGE_ACK') &&
        record.value.includes('Deployed by the real participant'),
    );
    expect(realAck).toBeDefined();
    await bus('acm-bind-replayer').publish(topics.operation, [
      { key: realAck!.key, value: realAck!.value, headers: realAck!.headers },
    ]);
    await eventually(
      'the replay refused',
      async () => ((await refused())['replayed/AUTOMATION_COMPOSITION_STATECHANGE_ACK'] === 1 ? true : undefined),
      KAFKA_ATTEMPTS,
    );
  }, 240_000);

  it('leaves a participant that is not bound as it was: unsigned records are taken on their word', async () => {
    const unbound = new ScriptedParticipant(bus('acm-bind-unbound'), randomUUID(), [OTHER_TYPE], topics);
    await unbound.start();
    try {
      await participantRegistered(runtime, unbound.participantId);
    } finally {
      await unbound.stop();
    }
  });
});
