import { randomUUID } from 'node:crypto';
import type {
  AcElementDto,
  AutomationCompositionDeploy,
  AutomationCompositionDeployAck,
  AutomationCompositionMigration,
  AutomationCompositionPrepare,
  AutomationCompositionStateChange,
  ParticipantMessage,
  ParticipantTopics,
  PropertiesUpdate,
} from '@acm/contracts';
import { DEFAULT_TOPICS, decodeMessage, encodeMessage, topicFor } from '@acm/contracts';
import type { DeployState, LockState } from '@acm/domain';
import type { MessageBus, Subscription } from '@acm/messaging';

export interface HandledWork {
  readonly messageId: string;
  readonly order: string;
  readonly phase: number;
  readonly elementId: string;
}

export type PhaseMessage = AutomationCompositionDeploy | AutomationCompositionStateChange;
/** Orders answered per element with stage logic: update, migrate / precheck / migration rollback, prepare / review. */
type StagedMessage = PropertiesUpdate | AutomationCompositionMigration | AutomationCompositionPrepare;

function stagesIn(properties: Record<string, unknown> | undefined, kind: 'prepare' | 'migrate'): number[] {
  const stage = properties?.['stage'];
  const raw = Array.isArray(stage)
    ? kind === 'migrate'
      ? stage
      : undefined
    : typeof stage === 'object' && stage !== null
      ? (stage as Record<string, unknown>)[kind]
      : undefined;
  const list = Array.isArray(raw) ? raw.filter((item): item is number => Number.isInteger(item)) : [];
  return list.length === 0 ? [0] : [...new Set(list)].sort((a, b) => a - b);
}

/**
 * A protocol peer scripted by the test: it registers like a participant and answers PRIME and phase
 * messages at once, or holds them so the test can answer, duplicate or reorder ACKs by hand.
 */
export class ScriptedParticipant {
  readonly replicaId = randomUUID();
  readonly handled: HandledWork[] = [];
  readonly received: ParticipantMessage[] = [];
  /** When false, phase messages are only recorded; the test answers with `ack`. */
  autoAnswer = true;
  /** Element ids whose next deploy-like answer is FAILED. */
  readonly failing = new Set<string>();
  private readonly startPhases = new Map<string, number>();
  private subscriptions: Subscription[] = [];

  constructor(
    private readonly bus: MessageBus,
    readonly participantId: string,
    private readonly types: Array<{ typeName: string; typeVersion: string }>,
    private readonly topics: ParticipantTopics = DEFAULT_TOPICS,
  ) {}

  async start(): Promise<void> {
    this.subscriptions.push(
      await this.bus.subscribe({
        topic: this.topics.operation,
        groupId: `scripted-${this.participantId}`,
        handler: (record) => this.receive(record.value),
      }),
      await this.bus.subscribe({
        topic: this.topics.sync,
        groupId: `scripted-sync-${this.replicaId}`,
        handler: (record) => this.receive(record.value),
      }),
    );
    await this.send({
      messageType: 'PARTICIPANT_REGISTER',
      messageId: randomUUID(),
      timestamp: new Date().toISOString(),
      participantId: this.participantId,
      replicaId: this.replicaId,
      participantSupportedElementType: this.types.map((type) => ({ id: randomUUID(), ...type })),
    });
  }

  async stop(): Promise<void> {
    for (const subscription of this.subscriptions) {
      await subscription.close();
    }
  }

  /** Phase messages received for an instance, in arrival order. */
  phaseMessages(instanceId: string): PhaseMessage[] {
    return this.received.filter(
      (message): message is PhaseMessage =>
        (message.messageType === 'AUTOMATION_COMPOSITION_DEPLOY' ||
          message.messageType === 'AUTOMATION_COMPOSITION_STATE_CHANGE') &&
        message.automationCompositionId === instanceId,
    );
  }

  /** My elements that a phase message asks me to act on. */
  myElements(message: PhaseMessage): string[] {
    const dtos = (message.participantDtoList ?? []).filter((dto) => dto.participantId === this.participantId);
    return dtos
      .flatMap((dto) => dto.elementDtos)
      .filter((dto) => this.phaseOf(dto.compositionElement?.elementDefinitionId?.name) === message.startPhase)
      .map((dto) => dto.instanceElementTarget?.elementId)
      .filter((id): id is string => id !== undefined);
  }

  /** Sends an ACK for elements of a phase message, with the states a successful order reaches. */
  async ack(
    message: PhaseMessage,
    elementIds: string[],
    overrides: Partial<AutomationCompositionDeployAck> = {},
  ): Promise<void> {
    const [deployState, lockState] = targetOf(message);
    const failed = elementIds.some((id) => this.failing.has(id));
    await this.send({
      messageType: 'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
      responseTo: message.messageId,
      timestamp: new Date().toISOString(),
      participantId: this.participantId,
      replicaId: this.replicaId,
      automationCompositionId: message.automationCompositionId,
      stateChangeResult: failed ? 'FAILED' : 'NO_ERROR',
      message: failed ? 'Scripted failure' : 'Done',
      automationCompositionResultMap: Object.fromEntries(
        elementIds.map((id) => [
          id,
          failed
            ? {
                deployState: fallbackOf(deployState),
                lockState: 'NONE' as LockState,
                result: false,
                message: 'Scripted failure',
              }
            : { deployState, lockState, result: true, message: 'Done', outProperties: { answeredBy: this.replicaId } },
        ]),
      ),
      ...overrides,
    });
  }

  /** Messages of the staged / single-message orders received for an instance, in arrival order. */
  stagedMessages(instanceId: string): StagedMessage[] {
    return this.received.filter(
      (message): message is StagedMessage =>
        (message.messageType === 'PROPERTIES_UPDATE' ||
          message.messageType === 'AUTOMATION_COMPOSITION_MIGRATION' ||
          message.messageType === 'AUTOMATION_COMPOSITION_PREPARE') &&
        message.automationCompositionId === instanceId,
    );
  }

  /**
   * Answers like ONAP's intermediary: for migrate, rollback and prepare, only elements whose stage set
   * holds the message's stage act; one with a later stage (earlier for a rollback) gets a stage ACK.
   */
  async answerStaged(message: StagedMessage): Promise<void> {
    const dtos: AcElementDto[] = (message.participantDtoList ?? [])
      .filter((entry) => entry.participantId === this.participantId)
      .flatMap((entry) => entry.elementDtos);
    for (const dto of dtos) {
      const elementId = dto.instanceElementTarget?.elementId;
      if (elementId === undefined) {
        continue;
      }
      const targetState = dto.instanceElementTarget?.state;
      let order: string;
      let stage = 0;
      let next: number | undefined;
      let done: [DeployState, LockState];
      let running: [DeployState, LockState];
      if (message.messageType === 'PROPERTIES_UPDATE') {
        order = message.rollback === true ? 'UPDATE_REVERT' : 'UPDATE';
        done = ['DEPLOYED', 'LOCKED'];
        running = done;
      } else if (message.messageType === 'AUTOMATION_COMPOSITION_PREPARE') {
        order = message.preDeploy === false ? 'REVIEW' : 'PREPARE';
        stage = message.stage ?? 0;
        done = order === 'REVIEW' ? ['DEPLOYED', 'LOCKED'] : ['UNDEPLOYED', 'NONE'];
        running = done;
        if (order === 'PREPARE') {
          const set = stagesIn(dto.compositionElement?.inProperties, 'prepare');
          if (!set.includes(stage)) {
            continue;
          }
          next = set.find((candidate) => candidate > stage);
        }
      } else {
        stage = message.stage ?? 0;
        const rollback = message.rollback === true;
        order = message.precheck === true ? 'MIGRATE_PRECHECK' : rollback ? 'MIGRATION_REVERT' : 'MIGRATE';
        done = targetState === 'REMOVED' && order !== 'MIGRATE_PRECHECK' ? ['DELETED', 'NONE'] : ['DEPLOYED', 'LOCKED'];
        running = [rollback ? 'MIGRATION_REVERTING' : 'MIGRATING', 'LOCKED'];
        if (order !== 'MIGRATE_PRECHECK') {
          const source = targetState === 'REMOVED' ? dto.compositionElement : dto.compositionElementTarget;
          const set = stagesIn(source?.inProperties, 'migrate');
          if (!set.includes(stage)) {
            continue;
          }
          next = rollback
            ? [...set].reverse().find((candidate) => candidate < stage)
            : set.find((candidate) => candidate > stage);
        }
      }
      this.handled.push({ messageId: message.messageId, order, phase: stage, elementId });
      const failed = this.failing.has(elementId);
      const [deployState, lockState] = failed
        ? ['DEPLOYED' as const, 'LOCKED' as const]
        : next !== undefined
          ? running
          : done;
      await this.send({
        messageType: 'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
        responseTo: message.messageId,
        timestamp: new Date().toISOString(),
        participantId: this.participantId,
        replicaId: this.replicaId,
        automationCompositionId: message.automationCompositionId,
        stateChangeResult: failed ? 'FAILED' : 'NO_ERROR',
        message: failed ? 'Scripted failure' : `${order} stage ${stage}`,
        ...(next !== undefined && !failed ? { stage: next } : {}),
        automationCompositionResultMap: {
          [elementId]: {
            deployState: order === 'PREPARE' && failed ? 'UNDEPLOYED' : deployState,
            lockState: order === 'PREPARE' && failed ? 'NONE' : lockState,
            result: !failed,
            message: failed ? 'Scripted failure' : `${order} stage ${stage}`,
            outProperties: { answeredBy: this.replicaId, lastOrder: order, lastStage: stage },
          },
        },
      });
    }
  }

  async send(message: ParticipantMessage): Promise<void> {
    const encoded = encodeMessage(message);
    await this.bus.publish(topicFor(message.messageType, this.topics), [encoded]);
  }

  private phaseOf(name: string | undefined): number {
    return name === undefined ? 0 : (this.startPhases.get(name) ?? 0);
  }

  private async receive(value: string): Promise<void> {
    const decoded = decodeMessage(value);
    if (!decoded.ok) {
      return;
    }
    const message = decoded.message;
    const list = 'participantIdList' in message ? message.participantIdList : undefined;
    const addressed = !list?.length || list.includes(this.participantId);
    if (!addressed) {
      return;
    }
    switch (message.messageType) {
      case 'PARTICIPANT_PRIME': {
        this.received.push(message);
        for (const definition of message.participantDefinitionUpdates ?? []) {
          for (const element of definition.automationCompositionElementDefinitionList) {
            const phase = Number(
              element.automationCompositionElementToscaNodeTemplate?.properties?.['startPhase'] ?? 0,
            );
            this.startPhases.set(element.acElementDefinitionId.name, phase);
          }
        }
        await this.send({
          messageType: 'PARTICIPANT_PRIME_ACK',
          responseTo: message.messageId,
          timestamp: new Date().toISOString(),
          compositionId: message.compositionId,
          participantId: this.participantId,
          replicaId: this.replicaId,
          compositionState: message.primeOrder === 'DEPRIME' ? 'COMMISSIONED' : 'PRIMED',
          stateChangeResult: 'NO_ERROR',
          message: 'Scripted',
        });
        return;
      }
      case 'PROPERTIES_UPDATE':
      case 'AUTOMATION_COMPOSITION_MIGRATION':
      case 'AUTOMATION_COMPOSITION_PREPARE': {
        this.received.push(message);
        if (this.autoAnswer) {
          await this.answerStaged(message);
        }
        return;
      }
      case 'AUTOMATION_COMPOSITION_DEPLOY':
      case 'AUTOMATION_COMPOSITION_STATE_CHANGE': {
        this.received.push(message);
        if (!this.autoAnswer) {
          return;
        }
        for (const elementId of this.myElements(message)) {
          this.handled.push({
            messageId: message.messageId,
            order: orderOf(message),
            phase: message.startPhase,
            elementId,
          });
          await this.ack(message, [elementId]);
        }
        return;
      }
      default:
        this.received.push(message);
    }
  }
}

function orderOf(message: PhaseMessage): string {
  if (message.messageType === 'AUTOMATION_COMPOSITION_DEPLOY') {
    return 'DEPLOY';
  }
  return message.deployOrderedState !== 'NONE' && message.deployOrderedState !== undefined
    ? message.deployOrderedState
    : (message.lockOrderedState ?? 'NONE');
}

function targetOf(message: PhaseMessage): [DeployState, LockState] {
  switch (orderOf(message)) {
    case 'DEPLOY':
      return ['DEPLOYED', 'LOCKED'];
    case 'UNDEPLOY':
      return ['UNDEPLOYED', 'NONE'];
    case 'DELETE':
      return ['DELETED', 'NONE'];
    case 'LOCK':
      return ['DEPLOYED', 'LOCKED'];
    default:
      return ['DEPLOYED', 'UNLOCKED'];
  }
}

function fallbackOf(target: DeployState): DeployState {
  return target === 'DEPLOYED' ? 'UNDEPLOYED' : 'DEPLOYED';
}

/** Polls until `probe` returns a value (bounded: at most `attempts` × 20 ms), else fails with `what`. */
export async function eventually<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  attempts = 500,
): Promise<T> {
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    const value = await probe();
    if (value !== undefined) {
      return value;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`Timed out waiting for ${what}`);
}
