/**
 * The participant runtime: ONAP's participant intermediary in TypeScript. It speaks the participant
 * protocol on a MessageBus (registration, heartbeats, the accept rule, caches, phase and stage filters,
 * acks) and calls the author's {@link ElementHandler} for the elements it owns. This file is the public
 * face and the lifecycle (start, heartbeat, stop); the protocol lives in `runtime/`:
 * `inbound.ts` (dispatch), `revision-guard.ts`, `orders/*` (one handler per order), `element-runner.ts`,
 * `finished-elements.ts` (resends), `outbound.ts` (acks and heartbeats).
 *
 * Design notes:
 * - Record handlers never wait for element handlers: an order is cached and its element operations are
 *   started, then the record is done, so a slow deploy never blocks the partition (ONAP runs listener
 *   calls on a thread pool for the same reason).
 * - One STATECHANGE_ACK per element, sent as soon as that element finishes, answering the order's
 *   `messageId` in `responseTo` (ONAP keeps the same per-element message identification).
 * - Orders are remembered by `messageId` (bounded LRU): a redelivered order never runs a handler again;
 *   the acks already sent for it are sent again instead. A phase the runtime sends again under a new
 *   `messageId` is recognised per element (finished-elements.ts) and answered the same way.
 */
import { randomUUID } from 'node:crypto';

import { DEFAULT_TOPICS } from '@acm/contracts';
import type { ParticipantTopics, PropertyMap, ToscaConceptIdentifier, Uuid } from '@acm/contracts';
import { MIN_SIGNING_SECRET_LENGTH, describeError, signRecord } from '@acm/messaging';
import type { IncomingRecord, MessageBus, RecordSigningKey, Subscription } from '@acm/messaging';

import {
  DEFAULT_HEARTBEAT_MS,
  DEFAULT_IDEMPOTENCE_CAPACITY,
  DEFAULT_INTERMEDIARY_VERSION,
  consoleParticipantLogger,
  defaultGroupId,
  nodeTimers,
} from './defaults';
import { OutboundQueue } from './outbound-queue';
import type { OutboundStats, RetryTimers } from './outbound-queue';
import { DEFAULT_REPLAY_WINDOW_MS } from './replay-window';
import { ParticipantCore } from './runtime/core';
import { InboundDispatcher } from './runtime/inbound';
import { DEFAULT_OBSERVE_TICK_MS, ObserveSchedule, observableElements, observeAndReport } from './runtime/observe';
import { registerMessage, sendStatus } from './runtime/outbound';
import { sendCompositionInfo, sendElementInfo } from './runtime/pushes';
import type {
  Composition,
  ElementHandler,
  ReportedElementInfo,
  Instance,
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
  /**
   * Signs every record sent (HMAC-SHA256 in record headers, `@acm/messaging`'s `signRecord`) as `principal`, with a
   * secret of at least 32 characters that only this participant and the runtime hold, so a runtime with this
   * participant in its `PARTICIPANT_BINDINGS` refuses records that claim its participantId without it. Absent, records
   * leave unsigned, as ONAP's participants send them.
   */
  signing?: RecordSigningKey;
  /** How often the observe schedule looks for elements due (ms); default 1 000. Only with a handler's `observe`. */
  observeTickMs?: number;
  /** The observe schedule's jitter source, a number in [0, 1); default `Math.random` (tests inject a fixed one). */
  random?: () => number;
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
  private readonly logger: ParticipantLogger;
  private readonly intermediaryVersion: string;
  private readonly timers: ParticipantTimers;
  private readonly outbound: OutboundQueue;
  private readonly core: ParticipantCore;
  private readonly inbound: InboundDispatcher;
  private subscriptions: Subscription[] = [];
  private heartbeatHandle: unknown;
  private readonly observeSchedule: ObserveSchedule;

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
    this.logger = options.logger ?? consoleParticipantLogger;
    this.intermediaryVersion = options.intermediaryVersion ?? DEFAULT_INTERMEDIARY_VERSION;
    this.timers = options.timers ?? nodeTimers;
    const signing = options.signing;
    if (signing !== undefined && signing.secret.length < MIN_SIGNING_SECRET_LENGTH) {
      throw new Error(`signing.secret must hold at least ${MIN_SIGNING_SECRET_LENGTH} characters`);
    }
    this.outbound = new OutboundQueue({
      // Signed at each attempt, not when queued, and on the wall clock (not the injectable message clock): a record that
      // waited out a broker outage still carries a signing time close to the time the broker stamps it, which is what
      // the runtime checks.
      send: (topic, records) =>
        this.bus.publish(
          topic,
          signing === undefined ? records : records.map((record) => signRecord(topic, record, signing, Date.now())),
        ),
      capacity: options.outboundCapacity,
      logger: this.logger,
      timers: options.retryTimers,
    });
    this.core = new ParticipantCore({
      participantId: this.participantId,
      replicaId: this.replicaId,
      topics: this.topics,
      handler: options.handler,
      logger: this.logger,
      failUnsupported: options.failUnsupportedOperation ?? false,
      clock: options.clock ?? (() => new Date()),
      idempotenceCapacity: options.idempotenceCapacity ?? DEFAULT_IDEMPOTENCE_CAPACITY,
      supportedTypes: options.supportedElementTypes.map((type) => ({
        id: randomUUID(),
        typeName: type.typeName,
        typeVersion: type.typeVersion,
      })),
      outbound: this.outbound,
    });
    this.inbound = new InboundDispatcher(this.core, options.replayWindowMs ?? DEFAULT_REPLAY_WINDOW_MS);
    this.observeSchedule = new ObserveSchedule(
      this.core,
      this.timers,
      options.random ?? Math.random,
      options.observeTickMs ?? DEFAULT_OBSERVE_TICK_MS,
    );
  }

  // Lifecycle -----------------------------------------------------------------------------------

  /**
   * Subscribes the operation topic (shared group) and the sync topic (a random group per replica, so
   * every replica sees every sync message), sends PARTICIPANT_REGISTER, and starts the heartbeat
   * (REGISTER until acknowledged, then STATUS).
   */
  async start(): Promise<void> {
    const core = this.core;
    if (core.status !== 'new') {
      throw new Error(`Participant ${this.participantId} cannot start: it is ${core.status}`);
    }
    core.enter('starting');
    const handler = (record: IncomingRecord): Promise<void> => this.inbound.onRecord(record);
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
      core.enter('new');
      throw error;
    }
    core.enter('started');
    this.heartbeatHandle = this.timers.setInterval(() => {
      void this.heartbeat();
    }, this.heartbeatMs);
    this.observeSchedule.start();
    await core.publish(registerMessage(core, this.intermediaryVersion));
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
    const core = this.core;
    if (core.status !== 'started') {
      return;
    }
    core.enter('stopping');
    this.timers.clearInterval(this.heartbeatHandle);
    this.observeSchedule.stop();
    await this.closeSubscriptions();
    core.abortOperations(
      () => true,
      () => new Error('Participant stopped'),
    );
    await core.publish({
      messageType: 'PARTICIPANT_DEREGISTER',
      messageId: randomUUID(),
      timestamp: core.now(),
      participantId: this.participantId,
      replicaId: this.replicaId,
      participantIdList: [],
    });
    core.enter('stopped');
    this.outbound.close();
    this.logger('info', 'Participant stopped', { participantId: this.participantId, replicaId: this.replicaId });
  }

  /**
   * Runs the handler's `observe` over every deployed element now and reports the findings (one STATUS per instance),
   * as on the runtime's STATUS_REQ; resolves with the number of elements reported (0 without `observe`).
   */
  observeNow(): Promise<number> {
    return observeAndReport(this.core, observableElements(this.core));
  }

  /** True once the runtime acknowledged this replica's registration. */
  get isRegistered(): boolean {
    return this.core.registered;
  }

  /** Resolves when no element or composition operation is running (handy in tests and for graceful shutdown). */
  async whenIdle(): Promise<void> {
    await this.core.idle();
  }

  private async heartbeat(): Promise<void> {
    if (this.core.status !== 'started') {
      return;
    }
    if (this.inbound.guard.parkedCount > 0) {
      await this.inbound.guard.releaseParked(true);
    }
    if (this.core.registered) {
      await sendStatus(this.core);
    } else {
      await this.core.publish(registerMessage(this.core, this.intermediaryVersion));
    }
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

  // Queries and pushes (ONAP's ParticipantIntermediaryApi) -----------------------------------------

  /** The compositions this replica has cached (its own element definitions only). */
  getCompositions(): Composition[] {
    const cache = this.core.cache;
    return [...cache.compositions.values()].map((composition) => cache.compositionView(composition));
  }

  getComposition(compositionId: Uuid): Composition | undefined {
    const composition = this.core.cache.compositions.get(compositionId.toLowerCase());
    return composition === undefined ? undefined : this.core.cache.compositionView(composition);
  }

  /** The instances this replica has cached (its own elements only). */
  getInstances(): Instance[] {
    const cache = this.core.cache;
    return [...cache.instances.values()].map((instance) => cache.instanceView(instance));
  }

  getInstance(instanceId: Uuid): Instance | undefined {
    const instance = this.core.cache.instances.get(instanceId.toLowerCase());
    return instance === undefined ? undefined : this.core.cache.instanceView(instance);
  }

  /**
   * How many times a handler ran for one order and target (element id; the composition id for
   * prime/deprime). Redeliveries never increase it. 0 for unknown or forgotten orders.
   */
  handlerInvocations(messageId: Uuid, targetId: Uuid): number {
    return this.core.peekOrder(messageId.toLowerCase())?.invocations.get(targetId.toLowerCase()) ?? 0;
  }

  /**
   * Every remembered (order, target) pair with its handler run count, for observability and tests that
   * prove a redelivered order never ran a handler twice.
   */
  handlerInvocationLog(): Array<{ messageId: Uuid; targetId: Uuid; invocations: number }> {
    return [...this.core.rememberedOrders()].flatMap(([messageId, order]) =>
      [...order.invocations].map(([targetId, invocations]) => ({ messageId, targetId, invocations })),
    );
  }

  /** Sends a PARTICIPANT_STATUS heartbeat now. */
  async sendStatus(): Promise<void> {
    await sendStatus(this.core);
  }

  /**
   * Pushes an element's runtime information (ONAP's `sendAcElementInfo`): updates the cache and sends a
   * STATUS with `automationCompositionInfoList`. Fields left out keep their cached values.
   * Returns false (and sends nothing) when the element is unknown.
   */
  async sendElementInfo(instanceId: Uuid, elementId: Uuid, info: ReportedElementInfo): Promise<boolean> {
    return sendElementInfo(this.core, instanceId, elementId, info);
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
    return sendCompositionInfo(this.core, compositionId, definition, outProperties);
  }

  /** Counters of what this replica sent, retried and dropped (for metrics). */
  outboundStats(): OutboundStats {
    return this.outbound.stats();
  }
}
