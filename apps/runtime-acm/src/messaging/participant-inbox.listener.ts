import type { ParticipantMessage } from '@acm/contracts';
import { MESSAGE_ROUTES, decodeMessage, isForOthers } from '@acm/contracts';
import { isDomainError } from '@acm/domain';
import type { IncomingRecord, Subscription } from '@acm/messaging';
import { MessageBus } from '@acm/messaging';
import { isTransientDatabaseError } from '@acm/persistence';
import type { OnApplicationBootstrap } from '@nestjs/common';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { RUNTIME_CONFIG } from '../config/runtime.config';
import type { RuntimeConfig } from '../config/runtime.config';
import { EngineMetrics } from '../engine/engine-metrics';
import { OperationEngine } from '../engine/operation-engine';
import { AnswerGroupCommit } from '../application/answer-group-commit';
import type { AnswerRun } from '../application/answer-group-commit';
import { ParticipantProtocolService } from '../application/participant-protocol.service';
import { OperabilityMetrics } from '../metrics/operability-metrics';
import { inTraceOfRecords } from '../observability/inbound-traces';
import { withRequestContext } from '../observability/request-context';
import { ParticipantBindings } from './participant-bindings';
import type { BindingRefusal } from './participant-bindings';

/** A refusal of the same participant for the same reason is logged at most once in this period (it is counted always). */
const REFUSAL_LOG_WINDOW_MS = 60_000;

const ACKS: ReadonlySet<string> = new Set([
  'AUTOMATION_COMPOSITION_DEPLOY_ACK',
  'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
  'PARTICIPANT_PRIME_ACK',
]);

/** Whether a record may be a participant's message (not one of the runtime's own orders on the shared topic). */
function fromParticipant(record: IncomingRecord): boolean {
  return !isForOthers(record.value, 'runtime');
}

const REFUSAL_TEXT: Record<BindingRefusal, string> = {
  missing: 'the record is not signed',
  'wrong-principal': 'the record is signed by another principal',
  invalid: 'the signature does not match the record',
  stale: "the signing time is outside PARTICIPANT_SIGNATURE_WINDOW_MS of the record's time",
  replayed: 'the record was already received at another position (a replay)',
};

/**
 * Reads the operation topic a fetch at a time, decodes and accepts each record, and hands the participant messages
 * to their use cases. The ACKs and STATUS reports of a batch go to the group commit (`AnswerGroupCommit`), in the
 * order they arrived, applied in one transaction; any other message is applied on its own, in its place. A record that does not
 * decode is counted and skipped; the runtime's own outgoing messages on the shared topic are skipped too, before
 * the decode (`isForOthers`).
 * A batch met by a database outage is retried by the bus until it applies (never skipped), so an ACK received while
 * PostgreSQL is down or restarting is applied when it is back; a batch that fails otherwise is applied again one
 * record at a time, where a refused message is counted as ignored and a record that can never apply is skipped
 * and counted.
 */
@Injectable()
export class ParticipantInboxListener implements OnApplicationBootstrap {
  private readonly logger = new Logger('Inbox');
  private subscription: Subscription | null = null;
  private markReady: () => void = () => undefined;
  /** Resolves once the runtime receives participant messages; an embedded participant registers after it. */
  readonly ready = new Promise<void>((resolve) => {
    this.markReady = resolve;
  });
  /** Null when PARTICIPANT_BINDINGS is unset: every record is taken on its word, as ONAP does. */
  private readonly bindings: ParticipantBindings | null;
  /** Per participant and reason: when a refusal was last logged, and how many were refused since without a log. */
  private readonly refusalLog = new Map<string, { loggedAtMs: number; unlogged: number }>();

  constructor(
    @Inject(RUNTIME_CONFIG) private readonly config: RuntimeConfig,
    private readonly bus: MessageBus,
    private readonly engine: OperationEngine,
    private readonly participants: ParticipantProtocolService,
    private readonly answers: AnswerGroupCommit,
    private readonly metrics: EngineMetrics,
    private readonly operability: OperabilityMetrics,
  ) {
    this.bindings =
      config.participantBindings === null
        ? null
        : new ParticipantBindings(config.participantBindings, config.participantSignatureWindowMs);
  }

  async onApplicationBootstrap(): Promise<void> {
    this.subscription = await this.bus.subscribeBatch({
      topic: this.config.operationTopic,
      groupId: this.config.kafkaGroupId,
      handler: (records) => inTraceOfRecords(records, fromParticipant, () => this.receiveBatch(records)),
      isTransientFailure: isTransientDatabaseError,
      onSkipped: () => this.metrics.messagesRejected.inc({ code: 'APPLY_FAILED' }),
    });
    this.markReady();
  }

  /** Stops receiving once the handlers in flight finished (called by the runtime's shutdown sequence). */
  async stop(): Promise<void> {
    await this.subscription?.close();
  }

  /** Applies a batch of records (see the class docs); a batch of one is exactly `receive`. */
  async receiveBatch(records: readonly IncomingRecord[]): Promise<void> {
    if (records.length === 1) {
      return this.receive(records[0]!);
    }
    let run: AnswerRun | null = null;
    const runs: AnswerRun[] = [];
    const acked: Array<{ type: string; timestamp: string }> = [];
    for (const record of records) {
      const message = this.accept(record);
      if (message === null) {
        continue;
      }
      if (ACKS.has(message.messageType)) {
        acked.push({ type: message.messageType, timestamp: record.timestamp });
      }
      if (message.messageType === 'PARTICIPANT_STATUS') {
        if (run?.kind !== 'REPORTS') {
          runs.push((run = { kind: 'REPORTS', reports: [] }));
        }
        run.reports.push(message);
      } else if (
        message.messageType === 'AUTOMATION_COMPOSITION_DEPLOY_ACK' ||
        message.messageType === 'AUTOMATION_COMPOSITION_STATECHANGE_ACK' ||
        message.messageType === 'PARTICIPANT_PRIME_ACK'
      ) {
        if (run?.kind !== 'ACKS') {
          runs.push((run = { kind: 'ACKS', inputs: [] }));
        }
        run.inputs.push(
          message.messageType === 'PARTICIPANT_PRIME_ACK'
            ? { kind: 'PRIME_ACK', ack: message }
            : { kind: 'INSTANCE_ACK', ack: message },
        );
      } else {
        await this.answers.apply(runs.splice(0));
        run = null;
        await withRequestContext({ messageType: message.messageType }, () => this.dispatch(message));
      }
    }
    const types = [
      ...new Set(
        runs.flatMap((each) => (each.kind === 'ACKS' ? acked.map((ack) => ack.type) : ['PARTICIPANT_STATUS'])),
      ),
    ];
    await withRequestContext({ messageType: types.join('+') }, () => this.answers.apply(runs));
    for (const { type, timestamp } of acked) {
      this.observeAckApplied(type, timestamp);
    }
  }

  /** From the record's time on the bus (the participant's send) to the commit of its application. */
  private observeAckApplied(type: string, timestamp: string): void {
    this.operability.ackApplySeconds.observe({ type }, Math.max(0, Date.now() - Number(timestamp)) / 1000);
  }

  async receive(record: IncomingRecord): Promise<void> {
    const message = this.accept(record);
    if (message === null) {
      return;
    }
    try {
      await withRequestContext({ messageType: message.messageType }, () => this.dispatch(message));
      if (ACKS.has(message.messageType)) {
        this.observeAckApplied(message.messageType, record.timestamp);
      }
    } catch (error) {
      if (isDomainError(error)) {
        this.metrics.messagesIgnored.inc({ reason: error.code });
        this.logger.warn(`${message.messageType} refused: ${error.message}`);
        return;
      }
      throw error;
    }
  }

  /** The record's message when it is one for the runtime (counted), else null (undecodable ones counted too). */
  private accept(record: IncomingRecord): ParticipantMessage | null {
    // Most records on the shared topic are the runtime's own orders: dropped on a look at the text, undecoded.
    if (!fromParticipant(record)) {
      return null;
    }
    const decoded = decodeMessage(record.value);
    if (!decoded.ok) {
      this.metrics.messagesRejected.inc({ code: decoded.code });
      this.logger.warn(`Skipped a record at ${record.topic}/${record.partition}@${record.offset}: ${decoded.reason}`);
      return null;
    }
    const message = decoded.message;
    if (MESSAGE_ROUTES[message.messageType].direction !== 'PARTICIPANT_TO_RUNTIME') {
      return null;
    }
    const participantId = 'participantId' in message ? message.participantId : undefined;
    if (this.bindings !== null && participantId !== undefined) {
      const verdict = this.bindings.check(record, participantId);
      if (!verdict.ok) {
        this.refuse(record, message.messageType, participantId, verdict.reason, verdict.principal);
        return null;
      }
    }
    this.metrics.messagesReceived.inc({ type: message.messageType });
    return message;
  }

  /** Counts a record refused by the bindings, and logs it unless the same refusal was logged within the window. */
  private refuse(
    record: IncomingRecord,
    type: string,
    participantId: string,
    reason: BindingRefusal,
    principal: string,
  ): void {
    this.metrics.recordsRefused.inc({ reason, type });
    const key = `${participantId}/${reason}`;
    const now = Date.now();
    const last = this.refusalLog.get(key);
    if (last !== undefined && now - last.loggedAtMs < REFUSAL_LOG_WINDOW_MS) {
      last.unlogged += 1;
      return;
    }
    const more = last !== undefined && last.unlogged > 0 ? ` (and ${last.unlogged} more since the last report)` : '';
    this.logger.warn(
      `Refused ${type} for participant ${participantId} at ${record.topic}/${record.partition}@${record.offset}: ` +
        `${REFUSAL_TEXT[reason]} (bound to principal ${principal})${more}`,
    );
    this.refusalLog.set(key, { loggedAtMs: now, unlogged: 0 });
  }

  private async dispatch(message: ParticipantMessage): Promise<void> {
    switch (message.messageType) {
      case 'AUTOMATION_COMPOSITION_DEPLOY_ACK':
      case 'AUTOMATION_COMPOSITION_STATECHANGE_ACK':
        return this.engine.applyInstanceAck(message);
      case 'PARTICIPANT_PRIME_ACK':
        return this.engine.applyPrimeAck(message);
      case 'PARTICIPANT_REGISTER':
        return this.participants.register(message);
      case 'PARTICIPANT_STATUS':
        return this.participants.status(message);
      case 'PARTICIPANT_DEREGISTER':
        return this.participants.deregister(message);
      case 'PARTICIPANT_REQ_SYNC_MSG':
        return this.participants.requestedSync(message);
      case 'PARTICIPANT_REGISTER_ACK':
      case 'PARTICIPANT_DEREGISTER_ACK':
      case 'PARTICIPANT_STATUS_REQ':
      case 'PARTICIPANT_PRIME':
      case 'AUTOMATION_COMPOSITION_DEPLOY':
      case 'AUTOMATION_COMPOSITION_STATE_CHANGE':
      case 'PROPERTIES_UPDATE':
      case 'AUTOMATION_COMPOSITION_MIGRATION':
      case 'AUTOMATION_COMPOSITION_PREPARE':
      case 'PARTICIPANT_SYNC_MSG':
        return;
    }
  }
}
