import type { ParticipantMessage, ParticipantStatus } from '@acm/contracts';
import { UnitOfWork } from '@acm/domain';
import type { Store } from '@acm/domain';
import type { IncomingRecord } from '@acm/messaging';
import { InMemoryMessageBus } from '@acm/messaging';
import { Logger } from '@nestjs/common';

import type { Database } from '../database/database';
import { OperabilityMetrics } from '../metrics/operability-metrics';
import { RuntimeMetrics } from '../metrics/runtime-metrics';
import { EngineMetrics } from '../engine/engine-metrics';
import { ParticipantProtocolService } from '../application/participant-protocol.service';
import { CountingIds, EngineFixture, STARTED_AT } from '../engine/testing/engine-fixture';
import { AnswerGroupCommit } from '../application/answer-group-commit';
import { ParticipantInboxListener } from './participant-inbox.listener';
import { BufferedSessions } from '@acm/persistence';
import { InMemoryObservationStore } from '@acm/persistence/testing';
import { ObservationService } from '../application/observation.service';

const P1 = '101c62b3-8918-41b9-a747-d21eb79c6c03';
const REPLICA = '5f4a9d7e-7d43-4c59-9f7e-2f7d1b0c9a11';
const DEPLOYED = { deployState: 'DEPLOYED', lockState: 'LOCKED' } as const;

/** Counts the transactions and the autocommitted accesses the listener opens. */
class CountingUnitOfWork extends UnitOfWork {
  transactions = 0;
  autocommits = 0;

  constructor(private readonly inner: UnitOfWork) {
    super();
  }

  override transaction<T>(work: (store: Store) => Promise<T>): Promise<T> {
    this.transactions += 1;
    return this.inner.transaction(work);
  }

  override read<T>(work: (store: Store) => Promise<T>): Promise<T> {
    this.autocommits += 1;
    return this.inner.read(work);
  }

  override ping(): Promise<void> {
    return this.inner.ping();
  }
}

let offset = 0;
function recordOf(message: ParticipantMessage | Record<string, unknown>): IncomingRecord {
  offset += 1;
  return {
    topic: 'acm-ppnt-sync',
    partition: 0,
    offset: String(offset),
    key: null,
    value: JSON.stringify(message),
    timestamp: String(STARTED_AT),
    headers: {},
  };
}

function statusOf(info: ParticipantStatus['automationCompositionInfoList'] = undefined): ParticipantStatus {
  offset += 1;
  return {
    messageType: 'PARTICIPANT_STATUS',
    messageId: `f0000000-0000-4000-8000-${String(offset).padStart(12, '0')}`,
    timestamp: new Date(STARTED_AT).toISOString(),
    participantId: P1,
    replicaId: REPLICA,
    state: 'ON_LINE',
    participantSupportedElementType: [],
    ...(info ? { automationCompositionInfoList: info } : {}),
  };
}

describe('ParticipantInboxListener: a batch of participant messages', () => {
  beforeAll(() => Logger.overrideLogger(false));

  async function setUp() {
    const fixture = new EngineFixture();
    const runtimeMetrics = new RuntimeMetrics();
    const metrics = new EngineMetrics(runtimeMetrics);
    const bus = new InMemoryMessageBus();
    // The database is read only when the gauges are scraped, which these tests never do. A registry of its own:
    // these tests read no metric, and EngineMetrics and OperabilityMetrics both declare acm_phase_resends_total.
    const operability = new OperabilityMetrics(new RuntimeMetrics(), null as unknown as Database, fixture.config, bus);
    const counting = new CountingUnitOfWork(fixture.unitOfWork);
    const observations = new InMemoryObservationStore();
    const participants = new ParticipantProtocolService(
      fixture.config,
      counting,
      fixture.templates,
      fixture.clock,
      new CountingIds(),
      metrics,
      new ObservationService(counting, observations, fixture.clock, metrics),
    );
    const listener = new ParticipantInboxListener(
      fixture.config,
      bus,
      fixture.engine,
      participants,
      new AnswerGroupCommit(new BufferedSessions(counting), fixture.engine, participants),
      metrics,
      operability,
    );
    // The replica is known before the batch: its heartbeats are then plain updates.
    await listener.receive(recordOf(statusOf()));
    const definition = await fixture.definition('tosca/examples/sim-three-phase.yaml', () => P1);
    const first = await fixture.instance(definition);
    const second = await fixture.instance(definition);
    await fixture.order(first.instanceId, 'DEPLOY');
    await fixture.order(second.instanceId, 'DEPLOY');
    const sent = await fixture.take();
    counting.transactions = 0;
    counting.autocommits = 0;
    return { fixture, counting, listener, first, second, sent, observations, metrics };
  }

  it('applies the ACKs and STATUS reports of many instances in one transaction; the heartbeats cost one statement', async () => {
    const { fixture, counting, listener, first, second, sent } = await setUp();
    const phaseOf = (instanceId: string) =>
      sent.find(
        (order) => (order.message as { automationCompositionId?: string }).automationCompositionId === instanceId,
      )!;
    const [element] = phaseOf(first.instanceId).described[P1]!;
    const report = statusOf([
      {
        automationCompositionId: first.instanceId,
        elements: [{ automationCompositionElementId: element!, outProperties: { InternalState: 'DEPLOYING' } }],
      },
    ]);

    await listener.receiveBatch([
      recordOf(report),
      recordOf(fixture.ackOf(phaseOf(first.instanceId), P1, DEPLOYED)),
      recordOf(statusOf()),
      recordOf(fixture.ackOf(phaseOf(second.instanceId), P1, DEPLOYED)),
    ]);

    expect(counting.transactions).toBe(1);
    // One heartbeat update for the replica's two reports; nothing else outside the transaction.
    expect(counting.autocommits).toBe(1);
    const next = await fixture.take();
    expect(next.map((order) => order.phase)).toEqual([1, 1]);
    expect((await fixture.current(first.instanceId))!.elements[element!]!.outProperties).toEqual({
      InternalState: 'DEPLOYING',
    });
  });

  it('records an observation once, ignores and counts one of an element the participant does not own', async () => {
    const { listener, first, second, sent, observations, metrics } = await setUp();
    const elementOf = (instanceId: string) =>
      sent.find(
        (order) => (order.message as { automationCompositionId?: string }).automationCompositionId === instanceId,
      )!.described[P1]![0]!;
    const gone = statusOf([
      {
        automationCompositionId: first.instanceId,
        elements: [
          {
            automationCompositionElementId: elementOf(first.instanceId),
            observation: { present: false, healthy: false, reason: 'deleted by hand' },
          },
          // An element of another instance, reported under this one: not this instance's, so not recorded.
          {
            automationCompositionElementId: elementOf(second.instanceId),
            observation: { present: true, healthy: true },
          },
        ],
      },
    ]);
    await listener.receiveBatch([recordOf(gone), recordOf(statusOf())]);
    expect(observations.events).toEqual([
      expect.objectContaining({
        subjectId: first.instanceId,
        event: 'HEALTH_CHANGED',
        detail: {
          elementId: elementOf(first.instanceId),
          health: 'Missing',
          previous: 'Unknown',
          reason: 'deleted by hand',
        },
        actor: { kind: 'participant', participantId: P1, replicaId: REPLICA },
      }),
    ]);
    const ignored = await metrics.messagesIgnored.get();
    expect(ignored.values.find((value) => value.labels.reason === 'OBSERVATION_NOT_OWNED')?.value).toBe(1);
    const writes = observations.writes;
    // The same observation again changes nothing: compared first, nothing written.
    await listener.receive(recordOf({ ...gone, messageId: 'f0000000-0000-4000-8000-0000000fffff' }));
    expect(observations.writes).toBe(writes);
    expect(observations.events).toHaveLength(1);
  });

  it('does not hold the ACKs back behind the heartbeat: the transaction starts while the heartbeat is open', async () => {
    const { fixture, counting, listener, sent } = await setUp();
    let transactionStarted!: () => void;
    const started = new Promise<void>((resolve) => (transactionStarted = resolve));
    const read = counting.read.bind(counting);
    const transaction = counting.transaction.bind(counting);
    // The heartbeat's statement answers only once the ACKs' transaction began; run one after the other, they
    // would wait for each other for ever.
    counting.read = async (work) => {
      await started;
      return read(work);
    };
    counting.transaction = (work) => {
      transactionStarted();
      return transaction(work);
    };

    await listener.receiveBatch([recordOf(statusOf()), recordOf(fixture.ackOf(sent[0]!, P1, DEPLOYED))]);

    expect(counting.transactions).toBe(1);
    expect(counting.autocommits).toBe(1);
    expect((await fixture.take()).map((order) => order.phase)).toEqual([1]);
  });

  it('applies a message that is not an ACK or a report on its own, in its place, between the runs around it', async () => {
    const { fixture, counting, listener, first, second, sent } = await setUp();
    const phaseOf = (instanceId: string) =>
      sent.find(
        (order) => (order.message as { automationCompositionId?: string }).automationCompositionId === instanceId,
      )!;
    const deregister = {
      messageType: 'PARTICIPANT_DEREGISTER',
      messageId: 'f1000000-0000-4000-8000-000000000001',
      timestamp: new Date(STARTED_AT).toISOString(),
      participantId: '0b1e4d5c-93a1-4f4b-8d0e-9c0c2a7f6b01',
      replicaId: REPLICA,
    };

    await listener.receiveBatch([
      recordOf(fixture.ackOf(phaseOf(first.instanceId), P1, DEPLOYED)),
      recordOf(deregister),
      recordOf(fixture.ackOf(phaseOf(second.instanceId), P1, DEPLOYED)),
    ]);

    // ACK run, the deregistration, ACK run.
    expect(counting.transactions).toBe(3);
    const next = await fixture.take();
    expect(next.map((order) => order.messageType)).toEqual([
      'AUTOMATION_COMPOSITION_DEPLOY',
      'PARTICIPANT_DEREGISTER_ACK',
      'AUTOMATION_COMPOSITION_DEPLOY',
    ]);
  });
  it('applies two ACKs of one instance in one batch, the second seeing the first, with reports in their place', async () => {
    const { fixture, counting, listener, first, sent } = await setUp();
    const phase = sent.find(
      (order) => (order.message as { automationCompositionId?: string }).automationCompositionId === first.instanceId,
    )!;
    const [one, two] = phase.described[P1]!;
    const reportOn = (elementId: string, state: string) =>
      statusOf([
        {
          automationCompositionId: first.instanceId,
          elements: [{ automationCompositionElementId: elementId, outProperties: { InternalState: state } }],
        },
      ]);
    const ackOne = fixture.ackOf(phase, P1, DEPLOYED, { elementIds: [one!] });
    const reported = { ...ackOne.automationCompositionResultMap[one!]!, outProperties: { InternalState: 'ACKED' } };
    const ackTwo = fixture.ackOf(phase, P1, DEPLOYED, { elementIds: [two!] });
    const reportedTwo = { ...ackTwo.automationCompositionResultMap[two!]!, outProperties: { InternalState: 'ACKED' } };
    const before = await fixture.unitOfWork.read((store) => store.instances.find(first.instanceId));

    await listener.receiveBatch([
      // Element one: a report, its ACK (which carries outProperties of its own), then a later report.
      recordOf(reportOn(one!, 'EARLY')),
      recordOf({ ...ackOne, automationCompositionResultMap: { [one!]: reported } }),
      recordOf(reportOn(one!, 'LATE')),
      // Element two: a report, then its ACK with outProperties, which win; the ACK closes the phase only because it
      // sees element one DEPLOYED.
      recordOf(reportOn(two!, 'BEFORE')),
      recordOf({ ...ackTwo, automationCompositionResultMap: { [two!]: reportedTwo } }),
    ]);

    expect(counting.transactions).toBe(1);
    expect((await fixture.take()).map((order) => order.phase)).toEqual([1]);
    const after = await fixture.unitOfWork.read((store) => store.instances.find(first.instanceId));
    // Each ACK is one versioned write, as if applied one after the other; the reports bump nothing.
    expect(after!.version).toBe(before!.version + 2);
    expect(after!.value.elements[one!]).toMatchObject({
      deployState: 'DEPLOYED',
      outProperties: { InternalState: 'LATE' },
    });
    expect(after!.value.elements[two!]).toMatchObject({
      deployState: 'DEPLOYED',
      outProperties: { InternalState: 'ACKED' },
    });
  });

  it('writes a batch of reports only (no ACK) without a version bump, the last report of an element winning', async () => {
    const { fixture, listener, first, sent } = await setUp();
    const phase = sent.find(
      (order) => (order.message as { automationCompositionId?: string }).automationCompositionId === first.instanceId,
    )!;
    const [one] = phase.described[P1]!;
    const before = await fixture.unitOfWork.read((store) => store.instances.find(first.instanceId));
    await listener.receiveBatch(
      ['A', 'B'].map((state) =>
        recordOf(
          statusOf([
            {
              automationCompositionId: first.instanceId,
              elements: [{ automationCompositionElementId: one!, outProperties: { InternalState: state } }],
            },
          ]),
        ),
      ),
    );
    const after = await fixture.unitOfWork.read((store) => store.instances.find(first.instanceId));
    expect(after!.version).toBe(before!.version);
    expect(after!.value.elements[one!]!.outProperties).toEqual({ InternalState: 'B' });
  });
  it('applies batches that arrive while a transaction is open together, in the next transaction', async () => {
    const { fixture, counting, listener, first, second, sent } = await setUp();
    const phaseOf = (instanceId: string) =>
      sent.find(
        (order) => (order.message as { automationCompositionId?: string }).automationCompositionId === instanceId,
      )!;
    const [one, two] = phaseOf(first.instanceId).described[P1]!;
    const ackOf = (instanceId: string, elementIds: string[]) =>
      recordOf(fixture.ackOf(phaseOf(instanceId), P1, DEPLOYED, { elementIds }));

    // Three partitions' batches at once: the first opens a transaction, the two others wait and go together.
    await Promise.all([
      listener.receiveBatch([ackOf(first.instanceId, [one!]), recordOf(statusOf())]),
      listener.receiveBatch([
        ackOf(second.instanceId, phaseOf(second.instanceId).described[P1]!),
        recordOf(statusOf()),
      ]),
      listener.receiveBatch([ackOf(first.instanceId, [two!]), recordOf(statusOf())]),
    ]);

    expect(counting.transactions).toBe(2);
    expect((await fixture.take()).map((order) => order.phase)).toEqual([1, 1]);
  });
});
