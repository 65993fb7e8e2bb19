import { randomUUID } from 'node:crypto';
import { Clock } from '@acm/domain';
import { MessageBus } from '@acm/messaging';
import { ParticipantProtocolService } from '../apps/runtime-acm/src/application/participant-protocol.service';
import { SupervisionScheduler } from '../apps/runtime-acm/src/supervision/supervision.scheduler';
import { SupervisionTimer } from '../apps/runtime-acm/src/supervision/supervision-timer';
import type { RuntimeHarness } from './support/runtime-harness';
import {
  BASE,
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

const SIM_TYPE = { typeName: 'org.onap.policy.clamp.acm.SimAutomationCompositionElement', typeVersion: '1.0.0' };
const threePhaseYaml = readRepoFile('tosca/examples/sim-three-phase.yaml');
const threePhaseInstance = readRepoFile('tosca/examples/instances/sim-three-phase.json');
const HEART_BEAT = 3_600_000;
const MAX_STATUS_WAIT = 86_400_000;

interface Instance {
  deployState: string;
  phase?: number;
  elements: Record<string, { deployState: string }>;
}

interface HistoryEvent {
  event: string;
  detail: Record<string, unknown>;
}

/**
 * Handing a lost replica's work over (in-process bus, real PostgreSQL, fake clock). The scripted
 * participant stands for every replica of one participant: the test names the replica in each ACK and
 * STATUS, and supervision passes are run by hand.
 */
describe('hand-over of a silent replica’s work', () => {
  let runtime: RuntimeHarness;
  let participant: ScriptedParticipant;
  let compositionId: string;
  let now = Date.now();
  /** Replicas the test keeps alive: each supervision pass below is preceded by their heartbeats. */
  const alive = new Set<string>();

  beforeAll(async () => {
    runtime = await startRuntime({
      HEART_BEAT: String(HEART_BEAT),
      MAX_STATUS_WAIT: String(MAX_STATUS_WAIT),
      MAX_OPERATION_WAIT: String(7 * MAX_STATUS_WAIT),
      // Hand-over alone: the resend after MAX_WAIT_MS (days of fake time pass here) has specs of its own.
      MAX_WAIT_MS: '0',
    });
    jest.spyOn(runtime.app.get(Clock), 'now').mockImplementation(() => now);
    // Time is the test's: the real-time supervision timer stays off, ticks are run by hand.
    await runtime.app.get(SupervisionTimer).stop();
    participant = new ScriptedParticipant(runtime.app.get(MessageBus), randomUUID(), [SIM_TYPE]);
    participant.autoAnswer = false;
    await participant.start();
    await participantRegistered(runtime, participant.participantId);
    compositionId = await commissionAndPrime(runtime, threePhaseYaml);
  });

  afterAll(async () => {
    await participant.stop();
    await runtime.close();
  });

  async function deployedInstance(): Promise<{ instanceId: string; elementIds: string[] }> {
    const created = await createInstanceFrom(runtime, compositionId, threePhaseInstance);
    await orderInstance(runtime, compositionId, created.instanceId, { deployOrder: 'DEPLOY' });
    return created;
  }

  const instance = (instanceId: string): Promise<Instance> => instanceOf(runtime, compositionId, instanceId);

  async function resentEvents(instanceId: string): Promise<HistoryEvent[]> {
    const events = await historyOf<HistoryEvent>(runtime, compositionId, instanceId);
    return events.filter((event) => event.event === 'PHASE_RESENT');
  }

  const protocol = (): ParticipantProtocolService => runtime.app.get(ParticipantProtocolService);

  async function register(replicaId: string): Promise<void> {
    await protocol().register({
      messageType: 'PARTICIPANT_REGISTER',
      messageId: randomUUID(),
      timestamp: new Date(now).toISOString(),
      participantId: participant.participantId,
      replicaId,
      participantSupportedElementType: [{ id: randomUUID(), ...SIM_TYPE }],
    });
  }

  async function heartbeat(replicaId: string): Promise<void> {
    await protocol().status({
      messageType: 'PARTICIPANT_STATUS',
      messageId: randomUUID(),
      timestamp: new Date(now).toISOString(),
      participantId: participant.participantId,
      replicaId,
    });
  }

  /** Replica `replicaId` answers one element of the phase message and the runtime applied it. */
  async function answerFrom(
    replicaId: string,
    instanceId: string,
    message: Parameters<ScriptedParticipant['ack']>[0],
    elementId: string,
  ) {
    await participant.ack(message, [elementId], { replicaId });
    await eventually(`${elementId} DEPLOYED`, async () =>
      (await instance(instanceId)).elements[elementId]?.deployState === 'DEPLOYED' ? true : undefined,
    );
  }

  async function heartbeatAlive(): Promise<void> {
    for (const replicaId of [participant.replicaId, ...alive]) {
      await heartbeat(replicaId);
    }
  }

  async function replicas(): Promise<{ replicas: Record<string, { participantState: string }> }> {
    const got = await runtime.http.get(`${BASE}/participants/${participant.participantId}`).expect(200);
    return (got.body as { participant: { replicas: Record<string, { participantState: string }> } }).participant;
  }

  async function tick(): Promise<void> {
    await runtime.app.get(SupervisionScheduler).tick();
  }

  it('never resends because of a replica that did no work', async () => {
    const worker = randomUUID();
    await register(worker);
    alive.add(worker);
    const { instanceId } = await deployedInstance();
    const phase0 = await eventually('the phase-0 message', () => participant.phaseMessages(instanceId)[0]);
    const [first] = participant.myElements(phase0);
    await answerFrom(worker, instanceId, phase0, first!);
    // An idle instance too: nobody answered its message yet.
    const idle = await deployedInstance();
    await eventually('the idle phase-0 message', () => participant.phaseMessages(idle.instanceId)[0]);
    for (let stray = 0; stray < 3; stray += 1) {
      await register(randomUUID());
    }

    now += MAX_STATUS_WAIT + 1;
    await heartbeatAlive();
    await tick();
    // The stray replicas are OFF_LINE now, and nothing was sent for them.
    const view = await replicas();
    expect(Object.values(view.replicas).filter((replica) => replica.participantState === 'OFF_LINE').length).toBe(
      Object.keys(view.replicas).length - 1 - alive.size,
    );
    expect(await resentEvents(instanceId)).toEqual([]);
    expect(await resentEvents(idle.instanceId)).toEqual([]);
    expect(participant.phaseMessages(instanceId)).toHaveLength(1);
    expect(participant.phaseMessages(idle.instanceId)).toHaveLength(1);
  });

  it('sends the open phase of an OFF_LINE replica again with its original messageId, for the unanswered element only', async () => {
    const taker = randomUUID();
    const survivor = randomUUID();
    await register(taker);
    await register(survivor);
    alive.add(survivor);
    const { instanceId } = await deployedInstance();
    const phase0 = await eventually('the phase-0 message', () => participant.phaseMessages(instanceId)[0]);
    const [answered, unanswered] = participant.myElements(phase0);
    await answerFrom(taker, instanceId, phase0, answered!);

    now += MAX_STATUS_WAIT + 1;
    await heartbeatAlive();
    await tick();
    const resent = await eventually('the hand-over', () => participant.phaseMessages(instanceId)[1]);
    expect(resent.messageId).toBe(phase0.messageId);
    expect(participant.myElements(resent)).toEqual([unanswered]);
    const resentIds = (await resentEvents(instanceId)).map((event) => event.detail['messageId']);
    expect(resentIds.length).toBeGreaterThan(0);
    expect(new Set(resentIds)).toEqual(new Set([phase0.messageId]));

    // The survivor's answer to the original message closes the phase.
    await answerFrom(survivor, instanceId, resent, unanswered!);
    await eventually('phase 1', async () => ((await instance(instanceId)).phase === 1 ? true : undefined));
  });

  it('hands the work of a silent replica to a newly registered one within a supervision period', async () => {
    const dead = randomUUID();
    await register(dead);
    await heartbeatAlive();
    const { instanceId } = await deployedInstance();
    const phase0 = await eventually('the phase-0 message', () => participant.phaseMessages(instanceId)[0]);
    const [answered, unanswered] = participant.myElements(phase0);
    await answerFrom(dead, instanceId, phase0, answered!);

    // A restarted process registers as a new replica; the dead one never answers the STATUS request.
    now += 1000;
    const restarted = randomUUID();
    const statusRequests = participant.received.filter((m) => m.messageType === 'PARTICIPANT_STATUS_REQ').length;
    await register(restarted);
    await eventually('the STATUS request', () =>
      participant.received.filter((m) => m.messageType === 'PARTICIPANT_STATUS_REQ').length > statusRequests
        ? true
        : undefined,
    );
    alive.add(restarted);
    now += 10;
    await heartbeatAlive();
    now += HEART_BEAT;
    await tick();
    const resent = await eventually('the hand-over', () => participant.phaseMessages(instanceId)[1]);
    expect(resent.messageId).toBe(phase0.messageId);
    expect(participant.myElements(resent)).toEqual([unanswered]);
    const view = await replicas();
    // Long before MAX_STATUS_WAIT: the dead replica is not even OFF_LINE yet.
    expect(view.replicas[dead]?.participantState).toBe('ON_LINE');
  });

  it('leaves the work with its taker when the taker answers the STATUS request', async () => {
    const taker = randomUUID();
    await register(taker);
    alive.add(taker);
    await heartbeatAlive();
    const { instanceId } = await deployedInstance();
    const phase0 = await eventually('the phase-0 message', () => participant.phaseMessages(instanceId)[0]);
    const [answered] = participant.myElements(phase0);
    await answerFrom(taker, instanceId, phase0, answered!);

    now += 1000;
    const newcomer = randomUUID();
    await register(newcomer);
    alive.add(newcomer);
    now += 10;
    await heartbeatAlive();
    now += HEART_BEAT;
    await tick();
    expect(await resentEvents(instanceId)).toEqual([]);
    expect(participant.phaseMessages(instanceId)).toHaveLength(1);
  });
});
