import type { ParticipantMessage } from '@acm/contracts';
import { MESSAGE_ROUTES, decodeMessage } from '@acm/contracts';
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
import { ParticipantProtocolService } from '../engine/participant-protocol.service';
import { OperabilityMetrics } from '../metrics/operability-metrics';
import { withRequestContext } from '../observability/request-context';

/**
 * Reads the operation topic and hands each participant message to its use case. A record that does not
 * decode is counted and skipped; the runtime's own outgoing messages on the shared topic are skipped too.
 * A message met by a database outage is retried by the bus until it applies (never skipped), so an ACK
 * received while PostgreSQL is down or restarting is applied when it is back.
 */
const ACKS: ReadonlySet<string> = new Set([
  'AUTOMATION_COMPOSITION_DEPLOY_ACK',
  'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
  'PARTICIPANT_PRIME_ACK',
]);

@Injectable()
export class ParticipantInboxListener implements OnApplicationBootstrap {
  private readonly logger = new Logger('Inbox');
  private subscription: Subscription | null = null;
  private markReady: () => void = () => undefined;
  /** Resolves once the runtime receives participant messages; an embedded participant registers after it. */
  readonly ready = new Promise<void>((resolve) => {
    this.markReady = resolve;
  });

  constructor(
    @Inject(RUNTIME_CONFIG) private readonly config: RuntimeConfig,
    private readonly bus: MessageBus,
    private readonly engine: OperationEngine,
    private readonly participants: ParticipantProtocolService,
    private readonly metrics: EngineMetrics,
    private readonly operability: OperabilityMetrics,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.subscription = await this.bus.subscribe({
      topic: this.config.operationTopic,
      groupId: this.config.kafkaGroupId,
      handler: (record) => this.receive(record),
      isTransientFailure: isTransientDatabaseError,
    });
    this.markReady();
  }

  /** Stops receiving once the handlers in flight finished (called by the runtime's shutdown sequence). */
  async stop(): Promise<void> {
    await this.subscription?.close();
  }

  async receive(record: IncomingRecord): Promise<void> {
    const decoded = decodeMessage(record.value);
    if (!decoded.ok) {
      this.metrics.messagesRejected.inc({ code: decoded.code });
      this.logger.warn(`Skipped a record at ${record.topic}/${record.partition}@${record.offset}: ${decoded.reason}`);
      return;
    }
    const message = decoded.message;
    if (MESSAGE_ROUTES[message.messageType].direction !== 'PARTICIPANT_TO_RUNTIME') {
      return;
    }
    this.metrics.messagesReceived.inc({ type: message.messageType });
    try {
      await withRequestContext({ messageType: message.messageType }, () => this.dispatch(message));
      if (ACKS.has(message.messageType)) {
        // From the record's time on the bus (the participant's send) to the commit of its application.
        this.operability.ackApplySeconds.observe(
          { type: message.messageType },
          Math.max(0, Date.now() - Number(record.timestamp)) / 1000,
        );
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
