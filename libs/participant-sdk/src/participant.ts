/**
 * The participant runtime: ONAP's participant intermediary in TypeScript. It speaks the participant
 * protocol on a MessageBus (registration, heartbeats, the accept rule, caches, phase and stage filters,
 * acks) and calls the author's {@link ElementHandler} for the elements it owns.
 *
 * Design notes:
 * - Record handlers never wait for element handlers: an order is cached and its element operations are
 *   started, then the record is done, so a slow deploy never blocks the partition (ONAP runs listener
 *   calls on a thread pool for the same reason).
 * - One STATECHANGE_ACK per element, sent as soon as that element finishes, answering the order's
 *   `messageId` in `responseTo` (ONAP keeps the same per-element message identification).
 * - Orders are remembered by `messageId` (bounded LRU): a redelivered order never runs a handler again;
 *   the acks already sent for it are sent again instead.
 */
import { randomUUID } from 'node:crypto';

import { DEFAULT_TOPICS, acceptsMessage, decodeMessage, encodeMessage, topicFor } from '@acm/contracts';
import type {
  AcElementDeploy,
  AcElementDto,
  AcElementDeployAck,
  AutomationCompositionDeploy,
  AutomationCompositionDeployAck,
  AutomationCompositionMigration,
  AutomationCompositionPrepare,
  AutomationCompositionStateChange,
  CompositionElementDto,
  ElementDefinitionOutProperties,
  ParticipantDto,
  ParticipantMessage,
  ParticipantPrime,
  ParticipantPrimeAck,
  ParticipantReqSync,
  ParticipantStatus,
  ParticipantSupportedElementType,
  ParticipantSync,
  ParticipantTopics,
  PropertiesUpdate,
  PropertyMap,
  ToscaConceptIdentifier,
  Uuid,
} from '@acm/contracts';
import type { AcTypeState } from '@acm/domain';
import { describeError } from '@acm/messaging';
import type { IncomingRecord, MessageBus, Subscription } from '@acm/messaging';

import {
  ParticipantCache,
  compositionElementFromDto,
  copy,
  definitionKey,
  dtoDefinition,
  dtoElementId,
  nextStageOf,
  previousStageOf,
  stagesOf,
} from './cache';
import type { CachedComposition } from './cache';
import {
  DEFAULT_HEARTBEAT_MS,
  DEFAULT_IDEMPOTENCE_CAPACITY,
  DEFAULT_INTERMEDIARY_VERSION,
  consoleParticipantLogger,
  defaultGroupId,
  nodeTimers,
} from './defaults';
import { LruMap } from './lru';
import { OutboundQueue } from './outbound-queue';
import type { OutboundStats, RetryTimers } from './outbound-queue';
import { DEFAULT_REPLAY_WINDOW_MS, isReplayedHistory } from './replay-window';
import {
  COMPOSITION_DONE_MESSAGES,
  ELEMENT_OPERATIONS,
  NOT_IMPLEMENTED_MESSAGE,
  NOT_SUPPORTED_MESSAGE,
} from './operations';
import type {
  Composition,
  CompositionContext,
  CompositionElement,
  CompositionOperation,
  CompositionOutcome,
  CompositionReporter,
  CompositionResult,
  ElementContext,
  ElementHandler,
  ElementInfo,
  ElementOperation,
  ElementOutcome,
  ElementReporter,
  ElementResult,
  Instance,
  InstanceElement,
  ParticipantLogger,
  ParticipantTimers,
  SupportedElementType,
} from './types';

/**
 * Construction options of a {@link Participant}.
 *
 * @publicApi Everything a participant process configures; defaults follow ONAP's shipped participants.
 */
export interface ParticipantOptions {
  /** The participant's UUID (ONAP `participant.intermediaryParameters.participantId`). */
  participantId: Uuid;
  /** This replica's UUID; a random one per process by default, as ONAP draws it at start-up. */
  replicaId?: Uuid;
  supportedElementTypes: readonly SupportedElementType[];
  bus: MessageBus;
  /** Default ONAP's `policy-acruntime-participant` / `acm-ppnt-sync`. */
  topics?: ParticipantTopics;
  /** Operation-topic consumer group; default `participant-<participantId>` (shared by the participant's replicas). */
  groupId?: string;
  /** Heartbeat period (ONAP's `reportingTimeIntervalMs`); default 120 000. */
  heartbeatMs?: number;
  handler: ElementHandler;
  logger?: ParticipantLogger;
  /** Unimplemented optional operations: FAILED "Not supported" when true, success "Not implemented" when false (default). */
  failUnsupportedOperation?: boolean;
  /** Orders remembered for redelivery detection; default 10 000. */
  idempotenceCapacity?: number;
  /** Sent in PARTICIPANT_REGISTER; default the ONAP protocol level this SDK implements. */
  intermediaryVersion?: string;
  /** Heartbeat timer source (tests inject a manual one). */
  timers?: ParticipantTimers;
  /** Clock for message timestamps. */
  clock?: () => Date;
  /** Messages that may wait for an unreachable broker before the oldest are dropped; default 10 000. */
  outboundCapacity?: number;
  /** Timer source of publish retries (tests inject fake ones). */
  retryTimers?: RetryTimers;
  /** Orders stamped longer than this before the replica started are skipped as history; default 10 min. */
  replayWindowMs?: number;
}

/** What the participant remembers of one handled order. */
interface HandledOrder {
  /** Handler invocations per target (element id, or composition id for prime/deprime). */
  invocations: Map<string, number>;
  /** Acks sent for the order, per target ('' for an order-level ack such as "Already deleted"). */
  acks: Map<string, ParticipantMessage>;
}

interface RunningOperation {
  controller: AbortController;
  instanceId?: Uuid;
  compositionId?: Uuid;
}

type ElementInvoker = (ctx: ElementContext) => Promise<ElementOutcome> | ElementOutcome;

/** One element operation to run. */
interface ElementJob {
  order: HandledOrder;
  messageId: Uuid;
  operation: ElementOperation;
  instanceId: Uuid;
  /** The cached element's state before the order (handed to the handler as a copy). */
  element: InstanceElement;
  compositionElement: CompositionElement;
  phase: number;
  /** Undefined when the handler does not implement the operation. */
  invoke: ElementInvoker | undefined;
  /** Staged operations: success with `nextStage !== stage` sends a stage ack instead of a final one. */
  staged?: { stage: number; nextStage: number };
  /** A migration-REMOVED element: success means DELETED. */
  removed?: boolean;
  /** Cache adjustments after a final (non-stage) report. */
  onFinal?: (ok: boolean) => void;
}

const SDK_ERROR_PREFIX = 'Participant';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A handler's return value as a result; anything unexpected counts as success (logged by the caller). */
function asResult<R extends { ok: boolean }>(outcome: unknown, fallback: R): R {
  return isObject(outcome) && typeof outcome['ok'] === 'boolean' ? (outcome as unknown as R) : fallback;
}

/**
 * A participant replica: registers, heartbeats, receives orders for the element types it supports and
 * runs them through its {@link ElementHandler}, then acks.
 *
 * @publicApi The SDK's entry point; participant processes (and the simulator) construct one per replica.
 */
export class Participant {
  readonly participantId: Uuid;
  readonly replicaId: Uuid;
  readonly groupId: string;
  readonly topics: ParticipantTopics;
  readonly heartbeatMs: number;

  private readonly bus: MessageBus;
  private readonly handler: ElementHandler;
  private readonly logger: ParticipantLogger;
  private readonly failUnsupported: boolean;
  private readonly intermediaryVersion: string;
  private readonly timers: ParticipantTimers;
  private readonly clock: () => Date;
  private readonly supportedTypes: ParticipantSupportedElementType[];
  private readonly cache = new ParticipantCache();
  private readonly handled: LruMap<Uuid, HandledOrder>;
  private readonly outbound: OutboundQueue;
  private readonly replayWindowMs: number;
  private startedAtMs = 0;
  private readonly running = new Map<string, RunningOperation>();
  private readonly inFlight = new Set<Promise<void>>();
  /** Orders parked by the revision guard until a SYNC brings the cache up to date (or two heartbeats pass). */
  private readonly parked: Array<{ message: GuardedMessage; heartbeats: number }> = [];
  private subscriptions: Subscription[] = [];
  private heartbeatHandle: unknown;
  private registered = false;
  private status: 'new' | 'starting' | 'started' | 'stopping' | 'stopped' = 'new';

  constructor(options: ParticipantOptions) {
    this.participantId = options.participantId.toLowerCase();
    this.replicaId = (options.replicaId ?? randomUUID()).toLowerCase();
    this.groupId = options.groupId ?? defaultGroupId(this.participantId);
    this.topics = options.topics ?? DEFAULT_TOPICS;
    this.heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
    if (!Number.isFinite(this.heartbeatMs) || this.heartbeatMs <= 0) {
      throw new Error(`heartbeatMs must be a positive number, got ${this.heartbeatMs}`);
    }
    this.bus = options.bus;
    this.handler = options.handler;
    this.logger = options.logger ?? consoleParticipantLogger;
    this.failUnsupported = options.failUnsupportedOperation ?? false;
    this.intermediaryVersion = options.intermediaryVersion ?? DEFAULT_INTERMEDIARY_VERSION;
    this.timers = options.timers ?? nodeTimers;
    this.clock = options.clock ?? (() => new Date());
    this.handled = new LruMap(options.idempotenceCapacity ?? DEFAULT_IDEMPOTENCE_CAPACITY);
    this.replayWindowMs = options.replayWindowMs ?? DEFAULT_REPLAY_WINDOW_MS;
    this.outbound = new OutboundQueue({
      send: (topic, records) => this.bus.publish(topic, records),
      capacity: options.outboundCapacity,
      logger: this.logger,
      timers: options.retryTimers,
    });
    this.supportedTypes = options.supportedElementTypes.map((type) => ({
      id: randomUUID(),
      typeName: type.typeName,
      typeVersion: type.typeVersion,
    }));
  }

  // ---------------------------------------------------------------------------------------------
  // Lifecycle

  /**
   * Subscribes the operation topic (shared group) and the sync topic (a random group per replica, so
   * every replica sees every sync message), sends PARTICIPANT_REGISTER, and starts the heartbeat
   * (REGISTER until acknowledged, then STATUS).
   */
  async start(): Promise<void> {
    if (this.status !== 'new') {
      throw new Error(`Participant ${this.participantId} cannot start: it is ${this.status}`);
    }
    this.status = 'starting';
    this.startedAtMs = this.clock().getTime();
    const handler = (record: IncomingRecord): Promise<void> => this.onRecord(record);
    try {
      this.subscriptions.push(
        // From the oldest record when the group has no position: see replay-window.ts.
        await this.bus.subscribe({ topic: this.topics.operation, groupId: this.groupId, handler, fromBeginning: true }),
      );
      this.subscriptions.push(
        await this.bus.subscribe({
          topic: this.topics.sync,
          groupId: `${this.groupId}-sync-${this.replicaId}-${randomUUID().slice(0, 8)}`,
          handler,
        }),
      );
    } catch (error) {
      await this.closeSubscriptions();
      this.status = 'new';
      throw error;
    }
    this.status = 'started';
    this.heartbeatHandle = this.timers.setInterval(() => {
      void this.heartbeat();
    }, this.heartbeatMs);
    await this.sendRegister();
    this.logger('info', 'Participant started', {
      participantId: this.participantId,
      replicaId: this.replicaId,
      groupId: this.groupId,
    });
  }

  /**
   * Stops the heartbeat, closes the subscriptions, cancels running operations (their late reports are
   * dropped) and sends PARTICIPANT_DEREGISTER. Idempotent.
   */
  async stop(): Promise<void> {
    if (this.status !== 'started') {
      return;
    }
    this.status = 'stopping';
    this.timers.clearInterval(this.heartbeatHandle);
    await this.closeSubscriptions();
    for (const operation of this.running.values()) {
      operation.controller.abort(new Error('Participant stopped'));
    }
    this.running.clear();
    await this.publish({
      messageType: 'PARTICIPANT_DEREGISTER',
      messageId: randomUUID(),
      timestamp: this.now(),
      participantId: this.participantId,
      replicaId: this.replicaId,
      participantIdList: [],
    });
    this.registered = false;
    this.status = 'stopped';
    this.outbound.close();
    this.logger('info', 'Participant stopped', { participantId: this.participantId, replicaId: this.replicaId });
  }

  /** True once the runtime acknowledged this replica's registration. */
  get isRegistered(): boolean {
    return this.registered;
  }

  /** Resolves when no element or composition operation is running (handy in tests and for graceful shutdown). */
  async whenIdle(): Promise<void> {
    while (this.inFlight.size > 0) {
      await Promise.all([...this.inFlight]);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Queries and pushes (ONAP's ParticipantIntermediaryApi)

  /** The compositions this replica has cached (its own element definitions only). */
  getCompositions(): Composition[] {
    return [...this.cache.compositions.values()].map((composition) => this.cache.compositionView(composition));
  }

  getComposition(compositionId: Uuid): Composition | undefined {
    const composition = this.cache.compositions.get(compositionId.toLowerCase());
    return composition === undefined ? undefined : this.cache.compositionView(composition);
  }

  /** The instances this replica has cached (its own elements only). */
  getInstances(): Instance[] {
    return [...this.cache.instances.values()].map((instance) => this.cache.instanceView(instance));
  }

  getInstance(instanceId: Uuid): Instance | undefined {
    const instance = this.cache.instances.get(instanceId.toLowerCase());
    return instance === undefined ? undefined : this.cache.instanceView(instance);
  }

  /**
   * How many times a handler ran for one order and target (element id; the composition id for
   * prime/deprime). Redeliveries never increase it. 0 for unknown or forgotten orders.
   */
  handlerInvocations(messageId: Uuid, targetId: Uuid): number {
    return this.handled.peek(messageId.toLowerCase())?.invocations.get(targetId.toLowerCase()) ?? 0;
  }

  /**
   * Every remembered (order, target) pair with its handler run count, for observability and tests that
   * prove a redelivered order never ran a handler twice.
   */
  handlerInvocationLog(): Array<{ messageId: Uuid; targetId: Uuid; invocations: number }> {
    return [...this.handled.entriesInOrder()].flatMap(([messageId, order]) =>
      [...order.invocations].map(([targetId, invocations]) => ({ messageId, targetId, invocations })),
    );
  }

  /** Sends a PARTICIPANT_STATUS heartbeat now. */
  async sendStatus(): Promise<void> {
    await this.publish(this.statusMessage());
  }

  /**
   * Pushes an element's runtime information (ONAP's `sendAcElementInfo`): updates the cache and sends a
   * STATUS with `automationCompositionInfoList`. Fields left out keep their cached values.
   * Returns false (and sends nothing) when the element is unknown.
   */
  async sendElementInfo(instanceId: Uuid, elementId: Uuid, info: ElementInfo): Promise<boolean> {
    const instance = this.cache.instances.get(instanceId.toLowerCase());
    const element = instance?.elements.get(elementId.toLowerCase());
    if (instance === undefined || element === undefined) {
      this.logger('warn', 'Cannot send element info: element unknown to this participant', { instanceId, elementId });
      return false;
    }
    this.applyInfo(element, info);
    const view = this.cache.instanceView(instance);
    const status = this.statusMessage();
    if (instance.compositionId !== undefined) {
      status.compositionId = instance.compositionId;
    }
    status.automationCompositionInfoList = [
      {
        automationCompositionId: instance.instanceId,
        deployState: view.deployState,
        lockState: view.lockState,
        elements: [
          {
            automationCompositionElementId: element.id,
            deployState: element.deployState,
            lockState: element.lockState,
            ...(element.operationalState === undefined ? {} : { operationalState: element.operationalState }),
            ...(element.useState === undefined ? {} : { useState: element.useState }),
            outProperties: copy(element.outProperties),
          },
        ],
      },
    ];
    await this.publish(status);
    return true;
  }

  /**
   * Pushes a composition element definition's outProperties (ONAP's `sendAcDefinitionInfo`): updates the
   * cache and sends a STATUS with `compositionId` + `participantDefinitionUpdates`. Returns false when the
   * composition or element definition is unknown.
   */
  async sendCompositionInfo(
    compositionId: Uuid,
    definition: ToscaConceptIdentifier,
    outProperties: PropertyMap,
  ): Promise<boolean> {
    const composition = this.cache.compositions.get(compositionId.toLowerCase());
    const element = composition?.elements.get(definitionKey(definition));
    if (composition === undefined || element === undefined) {
      this.logger('warn', 'Cannot send composition info: definition unknown to this participant', {
        compositionId,
        definition,
      });
      return false;
    }
    element.outProperties = copy(outProperties);
    const status = this.statusMessage();
    status.compositionId = composition.compositionId;
    status.participantDefinitionUpdates = [
      {
        participantId: this.participantId,
        automationCompositionElementDefinitionList: [
          {
            acElementDefinitionId: copy(element.definition),
            automationCompositionElementToscaNodeTemplate: {
              ...(element.type === undefined ? {} : { type: element.type }),
              ...(element.typeVersion === undefined ? {} : { type_version: element.typeVersion }),
              properties: copy(element.inProperties),
            },
            outProperties: copy(element.outProperties),
          },
        ],
      },
    ];
    await this.publish(status);
    return true;
  }

  // ---------------------------------------------------------------------------------------------
  // Inbound

  private async onRecord(record: IncomingRecord): Promise<void> {
    const decoded = decodeMessage(record.value);
    if (!decoded.ok) {
      this.logger('warn', 'Skipped an undecodable record', {
        topic: record.topic,
        partition: record.partition,
        offset: record.offset,
        code: decoded.code,
        reason: decoded.reason,
      });
      return;
    }
    const message = decoded.message;
    if (!acceptsMessage(message, { participantId: this.participantId, replicaId: this.replicaId })) {
      return;
    }
    if (this.status !== 'started') {
      return;
    }
    if (isReplayedHistory(message, this.startedAtMs, this.replayWindowMs)) {
      this.logger('debug', 'Skipped an order older than this replica', {
        messageType: message.messageType,
        timestamp: 'timestamp' in message ? message.timestamp : undefined,
      });
      return;
    }
    try {
      await this.dispatch(message);
    } catch (error) {
      this.logger('error', 'Failed to handle a message; skipped', {
        messageType: message.messageType,
        error: describeError(error),
      });
    }
  }

  private async dispatch(message: ParticipantMessage): Promise<void> {
    if (isGuarded(message) && (await this.parkIfStale(message))) {
      return;
    }
    switch (message.messageType) {
      case 'PARTICIPANT_REGISTER_ACK':
        this.registered = true;
        this.logger('info', 'Registration acknowledged', {
          participantId: this.participantId,
          replicaId: this.replicaId,
        });
        await this.sendStatus();
        return;
      case 'PARTICIPANT_STATUS_REQ':
        await this.sendStatus();
        return;
      case 'PARTICIPANT_SYNC_MSG':
        this.onSync(message);
        await this.releaseParked(false);
        return;
      case 'PARTICIPANT_PRIME':
        await this.onPrime(message);
        return;
      case 'AUTOMATION_COMPOSITION_DEPLOY':
        await this.onDeploy(message);
        return;
      case 'AUTOMATION_COMPOSITION_STATE_CHANGE':
        await this.onStateChange(message);
        return;
      case 'PROPERTIES_UPDATE':
        await this.onUpdate(message);
        return;
      case 'AUTOMATION_COMPOSITION_MIGRATION':
        await this.onMigration(message);
        return;
      case 'AUTOMATION_COMPOSITION_PREPARE':
        await this.onPrepare(message);
        return;
      case 'PARTICIPANT_DEREGISTER_ACK':
      case 'PARTICIPANT_REGISTER':
      case 'PARTICIPANT_DEREGISTER':
      case 'PARTICIPANT_STATUS':
      case 'PARTICIPANT_PRIME_ACK':
      case 'AUTOMATION_COMPOSITION_DEPLOY_ACK':
      case 'AUTOMATION_COMPOSITION_STATECHANGE_ACK':
      case 'PARTICIPANT_REQ_SYNC_MSG':
        return;
    }
  }

  /**
   * ONAP's revision guard (participant MsgExecutor): an order whose revision ids differ from the ones this
   * replica cached is parked, and the replica asks for a SYNC (PARTICIPANT_REQ_SYNC_MSG). Rule chosen here:
   * only a *different* cached revision parks; a replica with no cache entry at all proceeds, because every
   * order carries full DTOs (element and node-template properties) to act on.
   */
  private staleParts(
    message: GuardedMessage,
  ):
    Partial<Pick<ParticipantReqSync, 'compositionId' | 'compositionTargetId' | 'automationCompositionId'>> | undefined {
    const differs = (cached: Uuid | undefined, sent: Uuid | undefined): boolean =>
      cached !== undefined && sent !== undefined && cached.toLowerCase() !== sent.toLowerCase();
    const parts: Partial<
      Pick<ParticipantReqSync, 'compositionId' | 'compositionTargetId' | 'automationCompositionId'>
    > = {};
    const migration = message.messageType === 'AUTOMATION_COMPOSITION_MIGRATION' ? message : undefined;
    // ONAP's intermediary: a participant whose elements in a migration are all NEW has nothing of the source
    // composition or of the instance to be stale about; only the target composition matters to it.
    const onlyTarget = migration !== undefined && this.ownsOnlyNewElements(migration);
    const compositionId = message.compositionId;
    if (
      !onlyTarget &&
      compositionId !== undefined &&
      differs(this.cache.compositions.get(compositionId)?.revisionId, message.revisionIdComposition)
    ) {
      parts.compositionId = compositionId;
    }
    if (migration?.compositionTargetId !== undefined) {
      const target = this.cache.compositions.get(migration.compositionTargetId);
      if (differs(target?.revisionId, migration.revisionIdCompositionTarget)) {
        parts.compositionTargetId = migration.compositionTargetId;
      }
    }
    const instanceId = message.automationCompositionId;
    if (!onlyTarget && differs(this.cache.instances.get(instanceId)?.revisionId, message.revisionIdInstance)) {
      parts.automationCompositionId = instanceId;
    }
    return Object.keys(parts).length > 0 ? parts : undefined;
  }

  /** True when the migration names elements of this participant and every one of them is NEW. */
  private ownsOnlyNewElements(message: AutomationCompositionMigration): boolean {
    const states = new Map<Uuid, string | undefined>();
    for (const dto of this.myDtos(message.participantDtoList)) {
      const id = dtoElementId(dto);
      if (id !== undefined) {
        states.set(id, dto.instanceElementTarget?.state);
      }
    }
    for (const deploy of this.myDeploys(message.participantUpdatesList)) {
      states.set(deploy.id, deploy.migrationState ?? states.get(deploy.id));
    }
    return states.size > 0 && [...states.values()].every((state) => state === 'NEW');
  }

  private async parkIfStale(message: GuardedMessage): Promise<boolean> {
    const stale = this.staleParts(message);
    if (stale === undefined) {
      return false;
    }
    this.parked.push({ message, heartbeats: 0 });
    this.logger('info', 'Order parked: cached revision differs; requesting a sync', {
      messageType: message.messageType,
      messageId: message.messageId,
      ...stale,
    });
    const request: ParticipantReqSync = {
      messageType: 'PARTICIPANT_REQ_SYNC_MSG',
      messageId: randomUUID(),
      timestamp: this.now(),
      participantId: this.participantId,
      replicaId: this.replicaId,
      participantIdList: [],
      ...stale,
    };
    await this.publish(request);
    return true;
  }

  /**
   * Runs parked orders whose revisions now match (after a SYNC), in arrival order. `force` runs the ones
   * parked for two heartbeats anyway, so a lost SYNC cannot stall an order for ever.
   */
  private async releaseParked(force: boolean): Promise<void> {
    const waiting = this.parked.splice(0, this.parked.length);
    for (const entry of waiting) {
      if (force) {
        entry.heartbeats += 1;
      }
      const overdue = entry.heartbeats >= 2;
      if (this.staleParts(entry.message) === undefined || overdue) {
        if (overdue) {
          this.logger('warn', 'Parked order runs without a matching sync', { messageId: entry.message.messageId });
        }
        await this.runGuarded(entry.message);
      } else {
        this.parked.push(entry);
      }
    }
  }

  private async runGuarded(message: GuardedMessage): Promise<void> {
    switch (message.messageType) {
      case 'AUTOMATION_COMPOSITION_DEPLOY':
        return this.onDeploy(message);
      case 'AUTOMATION_COMPOSITION_STATE_CHANGE':
        return this.onStateChange(message);
      case 'PROPERTIES_UPDATE':
        return this.onUpdate(message);
      case 'AUTOMATION_COMPOSITION_MIGRATION':
        return this.onMigration(message);
      case 'AUTOMATION_COMPOSITION_PREPARE':
        return this.onPrepare(message);
    }
  }

  private isMe(participantId: Uuid | undefined): boolean {
    return participantId !== undefined && participantId.toLowerCase() === this.participantId;
  }

  private myDeploys(
    list: readonly { participantId: Uuid; acElementList: AcElementDeploy[] }[] | undefined,
  ): AcElementDeploy[] {
    return (list ?? []).filter((entry) => this.isMe(entry.participantId)).flatMap((entry) => entry.acElementList);
  }

  private myDtos(list: readonly ParticipantDto[] | undefined): AcElementDto[] {
    return (list ?? []).filter((entry) => this.isMe(entry.participantId)).flatMap((entry) => entry.elementDtos);
  }

  /**
   * Registers a new order, or — for a redelivered one — re-sends the acks already sent and returns
   * undefined so nothing runs twice.
   */
  private async beginOrder(messageId: Uuid): Promise<HandledOrder | undefined> {
    const seen = this.handled.get(messageId);
    if (seen !== undefined) {
      this.logger('info', 'Redelivered order: re-sending its acks, handlers not run again', {
        messageId,
        acks: seen.acks.size,
      });
      for (const ack of seen.acks.values()) {
        await this.publish(ack);
      }
      return undefined;
    }
    const order: HandledOrder = { invocations: new Map(), acks: new Map() };
    this.handled.set(messageId, order);
    return order;
  }

  private compositionElementFor(
    compositionId: Uuid | undefined,
    definition: ToscaConceptIdentifier,
    dto: CompositionElementDto | undefined,
  ): CompositionElement {
    return (
      this.cache.compositionElement(compositionId, definition) ??
      compositionElementFromDto(dto, compositionId ?? dto?.compositionId ?? '', definition)
    );
  }

  private dtoMap(dtos: readonly AcElementDto[]): Map<Uuid, AcElementDto> {
    const map = new Map<Uuid, AcElementDto>();
    for (const dto of dtos) {
      const id = dtoElementId(dto);
      if (id !== undefined) {
        map.set(id, dto);
      }
    }
    return map;
  }

  // PARTICIPANT_PRIME ---------------------------------------------------------------------------

  private async onPrime(message: ParticipantPrime): Promise<void> {
    const order = await this.beginOrder(message.messageId);
    if (order === undefined) {
      return;
    }
    const definitions = (message.participantDefinitionUpdates ?? [])
      .filter((entry) => this.isMe(entry.participantId))
      .flatMap((entry) => entry.automationCompositionElementDefinitionList);
    const dto = (message.primeDtoList ?? []).find((entry) => this.isMe(entry.participantId))?.compositionDto;
    const primeOrder = message.primeOrder ?? (definitions.length > 0 || dto !== undefined ? 'PRIME' : 'DEPRIME');
    const compositionId = message.compositionId;

    if (primeOrder === 'PRIME') {
      const composition = this.cache.storeComposition(
        compositionId,
        'PRIMING',
        definitions,
        dto,
        message.revisionIdComposition,
      );
      this.runComposition(order, message.messageId, 'prime', composition);
      return;
    }
    if (primeOrder === 'DEPRIME') {
      const composition = this.cache.compositions.get(compositionId);
      if (composition === undefined) {
        const result: CompositionResult = { ok: true, message: 'Already deprimed or never primed' };
        await this.sendPrimeAck(order, message.messageId, 'deprime', compositionId, 'COMMISSIONED', result, []);
        return;
      }
      composition.state = 'DEPRIMING';
      this.runComposition(order, message.messageId, 'deprime', composition);
      return;
    }
    this.logger('debug', 'PARTICIPANT_PRIME with primeOrder NONE ignored', { compositionId });
  }

  private runComposition(
    order: HandledOrder,
    messageId: Uuid,
    operation: CompositionOperation,
    composition: CachedComposition,
  ): void {
    const compositionId = composition.compositionId;
    const key = `composition:${compositionId}`;
    this.running.get(key)?.controller.abort(new Error('Superseded by a newer order'));
    const controller = new AbortController();
    this.running.set(key, { controller, compositionId });
    let reported = false;

    const finish = async (result: CompositionResult): Promise<void> => {
      if (reported) {
        this.logger('warn', `${operation} of a composition reported twice; later report ignored`, { compositionId });
        return;
      }
      reported = true;
      if (controller.signal.aborted) {
        this.logger('info', `${operation} report dropped: the operation was cancelled`, { compositionId });
        return;
      }
      if (this.running.get(key)?.controller === controller) {
        this.running.delete(key);
      }
      await this.finishComposition(order, messageId, operation, compositionId, result);
    };
    const report: CompositionReporter = {
      done: (result) => finish({ ...result, ok: true }),
      failed: (text) => finish({ ok: false, message: text }),
      get reported() {
        return reported;
      },
    };
    const ctx: CompositionContext = { messageId, report, signal: controller.signal };
    const handler = this.handler;
    const view = this.cache.compositionView(composition);

    this.track(async () => {
      if (handler[operation] === undefined) {
        await finish(this.unsupported());
        return;
      }
      order.invocations.set(compositionId, (order.invocations.get(compositionId) ?? 0) + 1);
      let outcome: CompositionOutcome;
      try {
        outcome = await handler[operation]?.(view, ctx);
      } catch (error) {
        this.logger('warn', `${operation} handler threw`, { compositionId, error: describeError(error) });
        await finish({ ok: false, message: `${operation} failed: ${describeError(error)}` });
        return;
      }
      if (outcome === 'pending') {
        return;
      }
      await finish(asResult<CompositionResult>(outcome, { ok: true }));
    });
  }

  private async finishComposition(
    order: HandledOrder,
    messageId: Uuid,
    operation: CompositionOperation,
    compositionId: Uuid,
    result: CompositionResult,
  ): Promise<void> {
    const state: AcTypeState =
      operation === 'prime' ? (result.ok ? 'PRIMED' : 'COMMISSIONED') : result.ok ? 'COMMISSIONED' : 'PRIMED';
    const composition = this.cache.compositions.get(compositionId);
    const outPropertiesList: ElementDefinitionOutProperties[] = [];
    if (composition !== undefined) {
      for (const [key, element] of composition.elements) {
        const reported = result.outProperties?.[key] ?? result.outProperties?.[element.definition.name];
        if (reported !== undefined) {
          element.outProperties = copy(reported);
        }
        outPropertiesList.push({
          elementDefinitionId: copy(element.definition),
          outProperties: copy(element.outProperties),
        });
      }
      composition.state = state;
      if (operation === 'deprime' && result.ok) {
        this.cache.compositions.delete(compositionId);
      }
    }
    await this.sendPrimeAck(order, messageId, operation, compositionId, state, result, outPropertiesList);
  }

  private async sendPrimeAck(
    order: HandledOrder,
    messageId: Uuid,
    operation: CompositionOperation,
    compositionId: Uuid,
    state: AcTypeState,
    result: CompositionResult,
    outPropertiesList: ElementDefinitionOutProperties[],
  ): Promise<void> {
    const ack: ParticipantPrimeAck = {
      messageType: 'PARTICIPANT_PRIME_ACK',
      responseTo: messageId,
      timestamp: this.now(),
      compositionId,
      participantId: this.participantId,
      replicaId: this.replicaId,
      compositionState: state,
      stateChangeResult: result.ok ? 'NO_ERROR' : 'FAILED',
      message: result.message ?? COMPOSITION_DONE_MESSAGES[operation],
      outPropertiesList,
    };
    order.acks.set(compositionId, ack);
    await this.publish(ack);
  }

  // AUTOMATION_COMPOSITION_DEPLOY ---------------------------------------------------------------

  private async onDeploy(message: AutomationCompositionDeploy): Promise<void> {
    const order = await this.beginOrder(message.messageId);
    if (order === undefined) {
      return;
    }
    const instanceId = message.automationCompositionId;
    const deploys = this.myDeploys(message.participantUpdatesList);
    const dtos = this.myDtos(message.participantDtoList);
    if (deploys.length === 0 && dtos.length === 0) {
      this.logger('debug', 'Deploy without elements of this participant', { instanceId });
      return;
    }
    const { instance, elementIds } = this.cache.upsertFromOrder(
      instanceId,
      message.compositionId ?? this.cache.instances.get(instanceId)?.compositionId,
      message.revisionIdInstance,
      deploys,
      dtos,
      message.firstStartPhase === true,
    );
    const dtoById = this.dtoMap(dtos);
    for (const elementId of elementIds) {
      const element = instance.elements.get(elementId);
      if (element === undefined || !this.hasWork(elementId, dtoById, deploys)) {
        continue;
      }
      const compositionElement = this.compositionElementFor(
        instance.compositionId,
        element.definition,
        dtoById.get(elementId)?.compositionElement,
      );
      if (compositionElement.startPhase !== message.startPhase) {
        continue;
      }
      this.runElement({
        order,
        messageId: message.messageId,
        operation: 'deploy',
        instanceId,
        element,
        compositionElement,
        phase: message.startPhase,
        invoke: (ctx) => this.handler.deploy(ctx),
      });
    }
  }

  // AUTOMATION_COMPOSITION_STATE_CHANGE ---------------------------------------------------------

  private async onStateChange(message: AutomationCompositionStateChange): Promise<void> {
    const order = await this.beginOrder(message.messageId);
    if (order === undefined) {
      return;
    }
    const instanceId = message.automationCompositionId;
    const dtos = this.myDtos(message.participantDtoList);
    const deployOrder = message.deployOrderedState;
    const lockOrder = message.lockOrderedState;
    const known = this.cache.instances.get(instanceId);
    if (known === undefined && (deployOrder === 'DELETE' || dtos.length === 0)) {
      // ONAP: an instance this replica never cached. A DELETE is answered at once (nothing to delete here);
      // other orders are not for this participant.
      if (deployOrder === 'DELETE') {
        const ack = this.deployAck(message.messageId, instanceId, true, 'Already deleted or never used', {});
        order.acks.set('', ack);
        await this.publish(ack);
      } else {
        this.logger('debug', 'State change for an instance this participant does not use', { instanceId });
      }
      return;
    }
    const operation = this.stateChangeOperation(deployOrder, lockOrder);
    if (operation === undefined) {
      this.logger('warn', 'State change without an order this participant handles', {
        instanceId,
        deployOrderedState: deployOrder,
        lockOrderedState: lockOrder,
      });
      return;
    }
    // The DTOs complete a cache that missed elements (e.g. a replica that started after the deploy).
    const instance =
      dtos.length > 0
        ? this.cache.upsertFromOrder(
            instanceId,
            known?.compositionId ?? message.compositionId,
            message.revisionIdInstance ?? known?.revisionId,
            [],
            dtos,
            false,
          ).instance
        : known;
    if (instance === undefined) {
      return;
    }
    if (operation === 'undeploy') {
      delete instance.compositionTargetId;
    }
    const dtoById = this.dtoMap(dtos);
    const elementIds = [...instance.elements.keys()];
    for (const elementId of elementIds) {
      const element = instance.elements.get(elementId);
      if (element === undefined || !this.hasWork(elementId, dtoById, [])) {
        continue;
      }
      const compositionElement = this.compositionElementFor(
        instance.compositionId ?? message.compositionId,
        element.definition,
        dtoById.get(elementId)?.compositionElement,
      );
      if (compositionElement.startPhase !== message.startPhase) {
        continue;
      }
      this.runElement({
        order,
        messageId: message.messageId,
        operation,
        instanceId,
        element,
        compositionElement,
        phase: message.startPhase,
        invoke: this.elementInvoker(operation),
      });
    }
  }

  /**
   * Whether an order asks this element to act. The acm-runtime lists in `participantDtoList` only the
   * elements that still have work (and marks the others' `orderedState` NONE), so a retry after a failure
   * redoes only what failed; ONAP's runtime lists every element, so nothing changes against it.
   */
  private hasWork(elementId: Uuid, dtoById: ReadonlyMap<Uuid, unknown>, deploys: readonly AcElementDeploy[]): boolean {
    if (deploys.some((deploy) => deploy.id === elementId && deploy.orderedState === 'NONE')) {
      return false;
    }
    return dtoById.size === 0 || dtoById.has(elementId);
  }

  private stateChangeOperation(
    deployOrder: AutomationCompositionStateChange['deployOrderedState'],
    lockOrder: AutomationCompositionStateChange['lockOrderedState'],
  ): 'deploy' | 'undeploy' | 'delete' | 'lock' | 'unlock' | undefined {
    if (deployOrder === 'UNDEPLOY' || deployOrder === 'DELETE' || deployOrder === 'DEPLOY') {
      return deployOrder === 'UNDEPLOY' ? 'undeploy' : deployOrder === 'DELETE' ? 'delete' : 'deploy';
    }
    if (lockOrder === 'LOCK' || lockOrder === 'UNLOCK') {
      return lockOrder === 'LOCK' ? 'lock' : 'unlock';
    }
    return undefined;
  }

  private elementInvoker(operation: 'deploy' | 'undeploy' | 'delete' | 'lock' | 'unlock'): ElementInvoker | undefined {
    const handler = this.handler;
    return handler[operation] === undefined ? undefined : (ctx) => handler[operation]?.(ctx);
  }

  // PROPERTIES_UPDATE ---------------------------------------------------------------------------

  private async onUpdate(message: PropertiesUpdate): Promise<void> {
    const order = await this.beginOrder(message.messageId);
    if (order === undefined) {
      return;
    }
    const instanceId = message.automationCompositionId;
    const deploys = this.myDeploys(message.participantUpdatesList);
    const dtos = this.myDtos(message.participantDtoList);
    const dtoById = this.dtoMap(dtos);
    const instance =
      this.cache.instances.get(instanceId) ??
      this.cache.upsertFromOrder(instanceId, message.compositionId, message.revisionIdInstance, deploys, dtos, false)
        .instance;
    const targets: { id: Uuid; properties: PropertyMap | undefined }[] =
      deploys.length > 0
        ? deploys.map((deploy) => ({ id: deploy.id, properties: deploy.properties }))
        : [...dtoById.entries()].map(([id, dto]) => ({ id, properties: dto.instanceElementTarget?.inProperties }));
    for (const target of targets) {
      const element = instance.elements.get(target.id);
      if (element === undefined) {
        continue;
      }
      const before = copy(element);
      const dtoBefore = dtoById.get(target.id)?.instanceElement?.inProperties;
      if (dtoBefore !== undefined) {
        before.properties = copy(dtoBefore);
      }
      element.properties = copy(
        target.properties ?? dtoById.get(target.id)?.instanceElementTarget?.inProperties ?? element.properties,
      );
      const updated = copy(element);
      const handler = this.handler;
      this.runElement({
        order,
        messageId: message.messageId,
        operation: 'update',
        instanceId,
        element: before,
        compositionElement: this.compositionElementFor(
          instance.compositionId,
          element.definition,
          dtoById.get(target.id)?.compositionElement,
        ),
        phase: 0,
        invoke:
          handler.update === undefined
            ? undefined
            : (ctx) => handler.update?.({ ...ctx, instanceElementUpdated: updated }),
      });
    }
  }

  // AUTOMATION_COMPOSITION_MIGRATION ------------------------------------------------------------

  private async onMigration(message: AutomationCompositionMigration): Promise<void> {
    const order = await this.beginOrder(message.messageId);
    if (order === undefined) {
      return;
    }
    const instanceId = message.automationCompositionId;
    const operation: 'migrate' | 'migratePrecheck' | 'rollbackMigration' =
      message.precheck === true ? 'migratePrecheck' : message.rollback === true ? 'rollbackMigration' : 'migrate';
    const stage = message.stage ?? 0;
    const deploys = this.myDeploys(message.participantUpdatesList);
    const dtos = this.myDtos(message.participantDtoList);
    const dtoById = this.dtoMap(dtos);
    // A precheck changes nothing, so an instance this replica does not hold is not cached for it: a cached
    // copy would carry the revision before the precheck and make the migration that follows look stale.
    const instance =
      this.cache.instances.get(instanceId) ??
      (operation === 'migratePrecheck'
        ? {
            instanceId,
            stateChangeResult: 'NO_ERROR' as const,
            elements: new Map<Uuid, InstanceElement>(),
            ...(message.compositionId !== undefined ? { compositionId: message.compositionId } : {}),
          }
        : this.cache.upsertFromOrder(instanceId, message.compositionId, message.revisionIdInstance, [], dtos, false)
            .instance);
    const sourceId = instance.compositionId ?? message.compositionId;
    const targetId = message.compositionTargetId ?? sourceId;
    if (operation !== 'migratePrecheck' && message.firstStage !== false && targetId !== undefined) {
      instance.compositionTargetId = targetId;
    }
    const targets: AcElementDeploy[] =
      deploys.length > 0
        ? deploys
        : [...dtoById.entries()].flatMap(([id, dto]) => {
            const definition = dtoDefinition(dto);
            return definition === undefined
              ? []
              : [{ id, definition, properties: dto.instanceElementTarget?.inProperties ?? {} }];
          });

    for (const target of targets) {
      const dto = dtoById.get(target.id);
      const migrationState =
        target.migrationState ??
        (dto?.instanceElementTarget?.state === 'NEW' || dto?.instanceElementTarget?.state === 'REMOVED'
          ? dto.instanceElementTarget.state
          : 'DEFAULT');
      const cached = instance.elements.get(target.id);
      const sourceElement: CompositionElement =
        cached === undefined
          ? compositionElementFromDto(undefined, sourceId ?? '', target.definition)
          : this.compositionElementFor(sourceId, cached.definition, dto?.compositionElement);
      const targetElement = this.compositionElementFor(targetId, target.definition, dto?.compositionElementTarget);
      const stages = stagesOf((migrationState === 'REMOVED' ? sourceElement : targetElement).inProperties, 'migrate');
      if (operation !== 'migratePrecheck' && !stages.includes(stage)) {
        continue;
      }
      // A migration rollback walks the stages downwards (ONAP getRollbackNextStage).
      const nextStage =
        operation === 'migratePrecheck'
          ? stage
          : operation === 'rollbackMigration'
            ? previousStageOf(stages, stage)
            : nextStageOf(stages, stage);
      const migrate: InstanceElement = {
        ...(cached === undefined
          ? { instanceId, id: target.id, outProperties: {}, deployState: 'DEPLOYED', lockState: 'LOCKED' }
          : copy(cached)),
        definition: copy(target.definition),
        properties: copy(target.properties ?? dto?.instanceElementTarget?.inProperties ?? cached?.properties ?? {}),
        migrationState,
      };
      let element: InstanceElement;
      if (cached !== undefined) {
        element = cached;
      } else if (operation === 'migratePrecheck') {
        element = copy(migrate);
      } else {
        element = copy(migrate);
        instance.elements.set(target.id, element);
      }
      const before: InstanceElement = cached === undefined ? { ...copy(migrate), properties: {} } : copy(cached);
      const handler = this.handler;
      this.runElement({
        order,
        messageId: message.messageId,
        operation,
        instanceId,
        element: before,
        compositionElement: sourceElement,
        phase: stage,
        invoke:
          handler[operation] === undefined
            ? undefined
            : (ctx) =>
                handler[operation]?.({
                  ...ctx,
                  compositionElementTarget: targetElement,
                  instanceElementMigrate: copy(migrate),
                  stage,
                  nextStage,
                }),
        ...(operation === 'migratePrecheck' ? {} : { staged: { stage, nextStage } }),
        removed: migrationState === 'REMOVED' && operation !== 'migratePrecheck',
        onFinal: (ok) => {
          if (!ok || operation === 'migratePrecheck') {
            return;
          }
          const current = this.cache.instances.get(instanceId);
          const now = current?.elements.get(target.id);
          if (now !== undefined) {
            // Migrate moves the element to the target; a rollback moves it back to what the order restores.
            now.definition = copy(target.definition);
            now.properties = copy(migrate.properties);
            now.migrationState = 'DEFAULT';
          }
          const transitional: readonly string[] = ['MIGRATING', 'MIGRATION_REVERTING'];
          if (
            current !== undefined &&
            ![...current.elements.values()].some((e) => transitional.includes(e.deployState))
          ) {
            if (targetId !== undefined) {
              current.compositionId = targetId;
            }
            delete current.compositionTargetId;
          }
        },
      });
    }
  }

  // AUTOMATION_COMPOSITION_PREPARE (prepare / review) -------------------------------------------

  private async onPrepare(message: AutomationCompositionPrepare): Promise<void> {
    const order = await this.beginOrder(message.messageId);
    if (order === undefined) {
      return;
    }
    const instanceId = message.automationCompositionId;
    const operation: 'prepare' | 'review' = message.preDeploy === false ? 'review' : 'prepare';
    const stage = message.stage ?? 0;
    const deploys = this.myDeploys(message.participantList);
    const dtos = this.myDtos(message.participantDtoList);
    const dtoById = this.dtoMap(dtos);
    let instance = this.cache.instances.get(instanceId);
    let elementIds: Uuid[];
    if (instance === undefined || deploys.length > 0) {
      if (deploys.length === 0 && dtos.length === 0) {
        this.logger('debug', `${operation} for an instance this participant does not use`, { instanceId });
        return;
      }
      const upserted = this.cache.upsertFromOrder(
        instanceId,
        message.compositionId ?? instance?.compositionId,
        message.revisionIdInstance,
        deploys,
        dtos,
        false,
      );
      instance = upserted.instance;
      elementIds = upserted.elementIds;
    } else {
      elementIds = dtoById.size > 0 ? [...dtoById.keys()] : [...instance.elements.keys()];
    }
    for (const elementId of elementIds) {
      const element = instance.elements.get(elementId);
      if (element === undefined) {
        continue;
      }
      const compositionElement = this.compositionElementFor(
        instance.compositionId,
        element.definition,
        dtoById.get(elementId)?.compositionElement,
      );
      const stages = operation === 'prepare' ? stagesOf(compositionElement.inProperties, 'prepare') : [stage];
      if (!stages.includes(stage)) {
        continue;
      }
      const nextStage = nextStageOf(stages, stage);
      const handler = this.handler;
      this.runElement({
        order,
        messageId: message.messageId,
        operation,
        instanceId,
        element,
        compositionElement,
        phase: stage,
        invoke:
          handler[operation] === undefined ? undefined : (ctx) => handler[operation]?.({ ...ctx, stage, nextStage }),
        ...(operation === 'prepare' ? { staged: { stage, nextStage } } : {}),
      });
    }
  }

  // PARTICIPANT_SYNC_MSG ------------------------------------------------------------------------

  private onSync(message: ParticipantSync): void {
    if ((message.excludeReplicas ?? []).some((replica) => replica.toLowerCase() === this.replicaId)) {
      return;
    }
    if (message.stateChangeResult === 'TIMEOUT') {
      this.cancelOperations(message.automationCompositionId, message.compositionId);
    }
    const instances = message.automationcompositionList ?? [];
    if (message.delete === true) {
      if (message.compositionId !== undefined && (message.state === 'COMMISSIONED' || instances.length === 0)) {
        if (message.automationCompositionId === undefined) {
          this.cache.compositions.delete(message.compositionId);
        }
      }
      for (const instance of instances) {
        this.cache.instances.delete(instance.automationCompositionId);
      }
      if (message.automationCompositionId !== undefined && instances.length === 0) {
        this.cache.instances.delete(message.automationCompositionId);
      }
      return;
    }
    const definitions = (message.participantDefinitionUpdates ?? [])
      .filter((entry) => this.isMe(entry.participantId))
      .flatMap((entry) => entry.automationCompositionElementDefinitionList);
    if (message.compositionId !== undefined && definitions.length > 0) {
      this.cache.storeComposition(
        message.compositionId,
        message.state ?? 'PRIMED',
        definitions,
        undefined,
        message.revisionIdComposition,
      );
    } else if (message.compositionId !== undefined && message.state !== undefined) {
      const composition = this.cache.compositions.get(message.compositionId);
      if (composition !== undefined) {
        composition.state = message.state;
        if (message.revisionIdComposition !== undefined) {
          composition.revisionId = message.revisionIdComposition;
        }
      }
    }
    for (const instance of instances) {
      const elements = (instance.acElementList ?? []).filter(
        (element) => element.participantId === undefined || this.isMe(element.participantId),
      );
      if (elements.length === 0) {
        continue;
      }
      const known = this.cache.instances.get(instance.automationCompositionId);
      this.cache.syncInstance(instance, elements, message.compositionId ?? known?.compositionId);
    }
  }

  /** Aborts the running operations of an instance (or, without one, of a composition's prime/deprime). */
  private cancelOperations(instanceId: Uuid | undefined, compositionId: Uuid | undefined): void {
    for (const [key, operation] of this.running) {
      const match =
        instanceId !== undefined
          ? operation.instanceId === instanceId
          : compositionId !== undefined &&
            operation.compositionId === compositionId &&
            operation.instanceId === undefined;
      if (match) {
        operation.controller.abort(new Error('Cancelled by the runtime (TIMEOUT)'));
        this.running.delete(key);
        this.logger('info', 'Operation cancelled by the runtime', { instanceId, compositionId });
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Element operations

  private unsupported(): { ok: true; message: string } | { ok: false; message: string } {
    return this.failUnsupported
      ? { ok: false, message: NOT_SUPPORTED_MESSAGE }
      : { ok: true, message: NOT_IMPLEMENTED_MESSAGE };
  }

  private runElement(job: ElementJob): void {
    const elementId = job.element.id;
    const key = `element:${job.instanceId}:${elementId}`;
    const previous = this.running.get(key);
    if (previous !== undefined) {
      previous.controller.abort(new Error('Superseded by a newer order'));
      this.logger('info', 'A newer order replaces the running operation of an element', {
        instanceId: job.instanceId,
        elementId,
      });
    }
    const controller = new AbortController();
    this.running.set(key, { controller, instanceId: job.instanceId });
    const snapshot = copy(job.element);
    const running = ELEMENT_OPERATIONS[job.operation].running;
    const cached = this.cache.instances.get(job.instanceId)?.elements.get(elementId);
    if (cached !== undefined) {
      if (running.deployState !== undefined) {
        cached.deployState = running.deployState;
      }
      if (running.lockState !== undefined) {
        cached.lockState = running.lockState;
      }
    }
    let reported = false;

    const finish = async (result: ElementResult): Promise<void> => {
      if (reported) {
        this.logger('warn', `${job.operation} of an element reported twice; later report ignored`, {
          instanceId: job.instanceId,
          elementId,
        });
        return;
      }
      reported = true;
      if (controller.signal.aborted) {
        this.logger('info', `${job.operation} report dropped: the operation was cancelled or replaced`, {
          instanceId: job.instanceId,
          elementId,
        });
        return;
      }
      if (this.running.get(key)?.controller === controller) {
        this.running.delete(key);
      }
      await this.finishElement(job, result);
    };
    const report: ElementReporter = {
      done: (result) => finish({ ...result, ok: true }),
      failed: (text, info) => finish({ ...info, ok: false, message: text }),
      info: async (info) => {
        await this.sendElementInfo(job.instanceId, elementId, info);
      },
      get reported() {
        return reported;
      },
    };
    const ctx: ElementContext = {
      messageId: job.messageId,
      instanceId: job.instanceId,
      compositionId: job.compositionElement.compositionId,
      compositionElement: copy(job.compositionElement),
      instanceElement: snapshot,
      phase: job.phase,
      report,
      signal: controller.signal,
    };

    this.track(async () => {
      if (job.invoke === undefined) {
        await finish(this.unsupported());
        return;
      }
      job.order.invocations.set(elementId, (job.order.invocations.get(elementId) ?? 0) + 1);
      let outcome: ElementOutcome;
      try {
        outcome = await job.invoke(ctx);
      } catch (error) {
        this.logger('warn', `${job.operation} handler threw`, {
          instanceId: job.instanceId,
          elementId,
          error: describeError(error),
        });
        await finish({ ok: false, message: `${job.operation} failed: ${describeError(error)}` });
        return;
      }
      if (outcome === 'pending') {
        return;
      }
      await finish(asResult<ElementResult>(outcome, { ok: true }));
    });
  }

  private async finishElement(job: ElementJob, result: ElementResult): Promise<void> {
    const spec = ELEMENT_OPERATIONS[job.operation];
    const elementId = job.element.id;
    const instance = this.cache.instances.get(job.instanceId);
    const cached = instance?.elements.get(elementId);
    const intermediate =
      result.ok && job.staged !== undefined && job.staged.nextStage !== job.staged.stage
        ? job.staged.nextStage
        : undefined;
    const states =
      intermediate !== undefined
        ? spec.running
        : result.ok && job.removed === true
          ? ({ deployState: 'DELETED', lockState: 'NONE' } as const)
          : result.ok
            ? spec.success
            : spec.failure;
    const element: InstanceElement = cached ?? copy(job.element);
    element.deployState = states.deployState ?? element.deployState;
    element.lockState = states.lockState ?? element.lockState;
    this.applyInfo(element, result);
    if (instance !== undefined && intermediate === undefined) {
      instance.stateChangeResult = result.ok ? 'NO_ERROR' : 'FAILED';
    }
    const message =
      result.message ??
      (intermediate !== undefined
        ? `stage ${job.staged?.stage ?? 0} ${spec.doneMessage}`
        : job.removed === true
          ? 'Deleted'
          : spec.doneMessage);
    const elementAck: AcElementDeployAck = {
      deployState: element.deployState,
      lockState: element.lockState,
      outProperties: copy(element.outProperties),
      result: result.ok,
      message,
    };
    if (element.operationalState !== undefined) {
      elementAck.operationalState = element.operationalState;
    }
    if (element.useState !== undefined) {
      elementAck.useState = element.useState;
    }
    if (element.deployState === 'DELETED') {
      this.cache.removeElement(job.instanceId, elementId);
    }
    if (intermediate === undefined) {
      job.onFinal?.(result.ok);
    }
    const ack = this.deployAck(job.messageId, job.instanceId, result.ok, message, { [elementId]: elementAck });
    ack.outPropertiesUpdated = result.outProperties !== undefined;
    if (intermediate !== undefined) {
      ack.stage = intermediate;
    }
    job.order.acks.set(elementId, ack);
    await this.publish(ack);
  }

  private applyInfo(element: InstanceElement, info: ElementInfo): void {
    if (info.outProperties !== undefined) {
      element.outProperties = copy(info.outProperties);
    }
    if (info.operationalState !== undefined) {
      element.operationalState = info.operationalState;
    }
    if (info.useState !== undefined) {
      element.useState = info.useState;
    }
  }

  private track(work: () => Promise<void>): void {
    const run = work().catch((error: unknown) => {
      this.logger('error', `${SDK_ERROR_PREFIX} operation failed unexpectedly`, { error: describeError(error) });
    });
    this.inFlight.add(run);
    void run.finally(() => this.inFlight.delete(run));
  }

  // ---------------------------------------------------------------------------------------------
  // Outbound

  private deployAck(
    messageId: Uuid,
    instanceId: Uuid,
    ok: boolean,
    message: string,
    resultMap: Record<Uuid, AcElementDeployAck>,
  ): AutomationCompositionDeployAck {
    return {
      messageType: 'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
      responseTo: messageId,
      timestamp: this.now(),
      participantId: this.participantId,
      replicaId: this.replicaId,
      automationCompositionId: instanceId,
      stateChangeResult: ok ? 'NO_ERROR' : 'FAILED',
      message,
      automationCompositionResultMap: resultMap,
    };
  }

  private statusMessage(): ParticipantStatus {
    return {
      messageType: 'PARTICIPANT_STATUS',
      messageId: randomUUID(),
      timestamp: this.now(),
      participantId: this.participantId,
      replicaId: this.replicaId,
      participantIdList: [],
      state: 'ON_LINE',
      participantSupportedElementType: this.supportedTypes.map((type) => ({ ...type })),
    };
  }

  private async sendRegister(): Promise<void> {
    await this.publish({
      messageType: 'PARTICIPANT_REGISTER',
      messageId: randomUUID(),
      timestamp: this.now(),
      participantId: this.participantId,
      replicaId: this.replicaId,
      participantIdList: [],
      participantSupportedElementType: this.supportedTypes.map((type) => ({ ...type })),
      intermediaryVersion: this.intermediaryVersion,
    });
  }

  private async heartbeat(): Promise<void> {
    if (this.status !== 'started') {
      return;
    }
    if (this.parked.length > 0) {
      await this.releaseParked(true);
    }
    if (this.registered) {
      await this.sendStatus();
    } else {
      await this.sendRegister();
    }
  }

  /** Counters of what this replica sent, retried and dropped (for metrics). */
  outboundStats(): OutboundStats {
    return this.outbound.stats();
  }

  /** Publishes on the message type's topic; a failed publish is queued and retried, never thrown. */
  private async publish(message: ParticipantMessage): Promise<void> {
    if (this.status === 'stopped' || this.status === 'new') {
      this.logger('debug', 'Participant not running; message not sent', { messageType: message.messageType });
      return;
    }
    await this.outbound.publish(topicFor(message.messageType, this.topics), encodeMessage(message));
  }

  private async closeSubscriptions(): Promise<void> {
    const subscriptions = this.subscriptions;
    this.subscriptions = [];
    await Promise.all(
      subscriptions.map((subscription) =>
        subscription.close().catch((error: unknown) => {
          this.logger('warn', 'Failed to close a subscription', { error: describeError(error) });
        }),
      ),
    );
  }

  private now(): string {
    return this.clock().toISOString();
  }
}

/** Orders that carry revision ids and pass the revision guard. */
type GuardedMessage =
  | AutomationCompositionDeploy
  | AutomationCompositionStateChange
  | PropertiesUpdate
  | AutomationCompositionMigration
  | AutomationCompositionPrepare;

function isGuarded(message: ParticipantMessage): message is GuardedMessage {
  return (
    message.messageType === 'AUTOMATION_COMPOSITION_DEPLOY' ||
    message.messageType === 'AUTOMATION_COMPOSITION_STATE_CHANGE' ||
    message.messageType === 'PROPERTIES_UPDATE' ||
    message.messageType === 'AUTOMATION_COMPOSITION_MIGRATION' ||
    message.messageType === 'AUTOMATION_COMPOSITION_PREPARE'
  );
}
