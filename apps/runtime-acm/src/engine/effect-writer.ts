import type { ParticipantMessage, ParticipantTopics } from '@acm/contracts';
import type {
  Actor,
  AutomationComposition,
  CompositionDefinition,
  CompositionRole,
  DefinitionStep,
  HistoryEventBody,
  InstanceStep,
  MessageAnswer,
  MessageRecord,
  Operation,
  OperationEffect,
  OperationEvent,
  OperationSession,
  OutboxRecord,
  Versioned,
} from '@acm/domain';
import { IdGenerator, actorOfEvent, timeoutSyncMessage } from '@acm/domain';
import type { CompositionTemplateInfo } from '@acm/tosca';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { RUNTIME_CONFIG } from '../config/runtime.config';
import type { RuntimeConfig } from '../config/runtime.config';
import { EngineMetrics } from './engine-metrics';
import {
  definitionSyncMessage,
  instanceSyncMessage,
  phaseMessage,
  primeMessage,
  toOutbox,
} from './participant-messages';
import type { OrderContext } from './order-context';

/** The part of a step that is not its target. */
export interface OperationStep {
  readonly operation: Operation | null;
  readonly operations: InstanceStep['operations'];
  readonly effects: readonly OperationEffect[];
}

/** What turning an instance step's effects into messages needs besides the step. */
export interface InstanceSide {
  readonly definition: CompositionDefinition;
  readonly info: CompositionTemplateInfo;
  readonly context: OrderContext;
}

/**
 * Saves a decided step: the target's versioned write first (of two concurrent orders the loser fails here with
 * 409), then the operations, then each effect as a row (outbox, message record, answer, history) or a metric.
 * It decides nothing: every choice was made by the domain's decide functions.
 */
@Injectable()
export class EffectWriter {
  private readonly logger = new Logger('Engine');
  private readonly topics: ParticipantTopics;

  constructor(
    @Inject(RUNTIME_CONFIG) config: RuntimeConfig,
    private readonly ids: IdGenerator,
    private readonly metrics: EngineMetrics,
  ) {
    this.topics = { operation: config.operationTopic, sync: config.syncTopic };
  }

  async saveInstance(
    session: OperationSession,
    found: Versioned<AutomationComposition> | null,
    step: InstanceStep,
    side: InstanceSide,
    now: number,
    cause: Actor,
  ): Promise<void> {
    if (found && step.target !== found.value) {
      await (step.removed
        ? session.deleteInstance(found.value.instanceId, found.version)
        : session.writeInstance(step.target, found.version));
    }
    const roleOf = (role: CompositionRole): CompositionDefinition | null =>
      role === 'OWN' ? side.definition : (side.context.other?.definition ?? null);
    this.write(session, step.target.instanceId, step, now, cause, (effect, messageId) => {
      switch (effect.kind) {
        case 'SEND_PHASE':
          return phaseMessage({
            messageId,
            timestamp: new Date(now).toISOString(),
            // A step of a replacing UPDATE is an ordinary DEPLOY, UNDEPLOY or DELETE of its start phase.
            order: effect.step?.order ?? step.operation!.order,
            instance: effect.instance,
            definition: side.definition,
            info: side.info,
            phase: effect.step?.startPhase ?? effect.phase,
            firstPhase: effect.firstPhase,
            ...side.context,
            ...(effect.describe ? { describe: effect.describe } : {}),
          });
        case 'SYNC_INSTANCE': {
          const composition = roleOf(effect.composition) ?? side.definition;
          const also = effect.alsoCompositions.flatMap((role) => roleOf(role) ?? []);
          return instanceSyncMessage(
            messageId,
            new Date(now).toISOString(),
            effect.instance,
            composition,
            effect.deleted,
            also,
            effect.composition === 'OWN' ? side.info : (side.context.other?.info ?? side.info),
          );
        }
        default:
          return null;
      }
    });
  }

  /** `found` is null when the caller already wrote the definition (an order): the step leaves it unchanged. */
  async saveDefinition(
    session: OperationSession,
    found: Versioned<CompositionDefinition> | null,
    step: DefinitionStep,
    info: CompositionTemplateInfo,
    now: number,
    cause: Actor,
  ): Promise<void> {
    if (found && step.target !== found.value) {
      await session.writeDefinition(step.target, found.version);
    }
    this.write(session, step.target.compositionId, step, now, cause, (effect, messageId) => {
      switch (effect.kind) {
        case 'SEND_PRIME':
          return primeMessage(
            messageId,
            new Date(now).toISOString(),
            step.target,
            info,
            effect.order,
            effect.participants,
          );
        case 'SYNC_DEFINITION':
          return definitionSyncMessage(messageId, new Date(now).toISOString(), step.target, info);
        default:
          return null;
      }
    });
  }

  /** Counts and logs messages that changed nothing before a step could be decided (unknown target or message). */
  ignored(effects: readonly OperationEffect[]): void {
    for (const effect of effects) {
      if (effect.kind === 'IGNORE') {
        this.metrics.messagesIgnored.inc({ reason: effect.reason });
        this.logger.debug(effect.message);
      }
    }
  }

  /** Writes the operations and effects of a step whose target is not written (or gone); sends no message. */
  saveOperations(session: OperationSession, subjectId: string, step: OperationStep, now: number, cause: Actor): void {
    this.write(session, subjectId, step, now, cause, () => null);
  }

  private countControl(effect: Extract<OperationEffect, { kind: 'COUNT_CONTROL' }>): void {
    const { metrics } = this;
    switch (effect.control) {
      case 'RESEND':
        return metrics.resends.inc({ order: effect.order }, effect.count);
      case 'RETRY':
        return metrics.retries.inc({ order: effect.order }, effect.count);
      case 'CANCEL':
        return metrics.cancels.inc(
          {
            target: effect.order === 'PRIME' || effect.order === 'DEPRIME' ? 'DEFINITION' : 'INSTANCE',
            rollback: String(effect.rollback ?? false),
          },
          effect.count,
        );
      case 'PAUSE':
        return metrics.pauses.inc({ action: 'pause' }, effect.count);
      case 'RESUME':
        return metrics.pauses.inc({ action: 'resume' }, effect.count);
      case 'NO_PROGRESS':
        return metrics.stuck.inc(effect.count);
    }
  }

  private write(
    session: OperationSession,
    subjectId: string,
    step: OperationStep,
    now: number,
    cause: Actor,
    messageOf: (effect: OperationEffect, messageId: string) => ParticipantMessage | null,
  ): void {
    session.saveOperations(step.operations);
    const operationId = step.operation?.operationId ?? null;
    const events: OperationEvent[] = [];
    const outbox: OutboxRecord[] = [];
    const messages: MessageRecord[] = [];
    const answers: MessageAnswer[] = [];
    const event = (body: HistoryEventBody, ofOperation: string | null = operationId): void => {
      events.push({ ...body, subjectId, operationId: ofOperation, actor: actorOfEvent(cause, body.event), at: now });
    };
    for (const effect of step.effects) {
      switch (effect.kind) {
        case 'SEND_PHASE':
        case 'SEND_PRIME': {
          const resent = effect.kind === 'SEND_PHASE' ? effect.resentMessageId : (effect.resentMessageId ?? null);
          const messageId = resent ?? this.ids.uuid();
          if (resent === null && operationId !== null) {
            const phase = effect.kind === 'SEND_PHASE' ? effect.phase : null;
            const elementIds = effect.kind === 'SEND_PHASE' ? effect.dispatched : null;
            messages.push({ messageId, operationId, phase, elementIds });
          }
          const message =
            effect.kind === 'SEND_PHASE' && effect.publish === false ? null : messageOf(effect, messageId);
          if (message) {
            outbox.push(toOutbox(message, this.topics));
          }
          if (effect.kind === 'SEND_PHASE') {
            event({ event: effect.event, detail: { phase: effect.phase, messageId, elementIds: effect.dispatched } });
          }
          break;
        }
        case 'SYNC_INSTANCE':
        case 'SYNC_DEFINITION': {
          const messageId = this.ids.uuid();
          const answerable =
            effect.kind === 'SYNC_INSTANCE' ? timeoutSyncMessage(effect, step.operation, messageId) : null;
          if (answerable !== null) {
            messages.push({
              messageId,
              operationId: answerable.operationId,
              phase: answerable.phase,
              elementIds: answerable.elementIds,
            });
          }
          const message = messageOf(effect, messageId);
          if (message) {
            outbox.push(toOutbox(message, this.topics));
          }
          break;
        }
        case 'RECORD_EVENT': {
          const { kind: _kind, operationId: ofOperation, ...body } = effect;
          event(body, ofOperation ?? operationId);
          break;
        }
        case 'RECORD_ANSWER':
          answers.push({
            messageId: effect.messageId,
            participantId: effect.participantId,
            replicaId: effect.replicaId,
          });
          break;
        case 'COUNT_FINISHED':
          this.metrics.operationsFinished.inc({ order: effect.order, result: effect.result });
          if (effect.seconds !== null) {
            this.metrics.operationSeconds.observe({ order: effect.order }, effect.seconds);
          }
          break;
        case 'COUNT_CONTROL':
          this.countControl(effect);
          break;
        case 'COUNT_SIGNAL':
          this.metrics.signals.inc({ status: effect.status, effect: effect.effect.toLowerCase() });
          break;
        case 'REQUEST_STATUS':
          outbox.push(
            toOutbox(
              {
                messageType: 'PARTICIPANT_STATUS_REQ',
                messageId: this.ids.uuid(),
                timestamp: new Date(now).toISOString(),
                participantId: effect.participantId,
                participantIdList: [effect.participantId],
              },
              this.topics,
            ),
          );
          break;
        case 'IGNORE':
          this.ignored([effect]);
          break;
      }
    }
    session.record({ messages, answers, outbox, events });
  }
}
