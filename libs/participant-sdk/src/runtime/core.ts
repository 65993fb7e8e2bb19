/**
 * What every part of a participant replica shares: its identity, the author's handler, the caches, the
 * memory of handled orders, the running operations, and the one way out (`publish`). The public
 * {@link Participant} owns one; inbound dispatch, the revision guard, the order handlers and the element
 * runner receive it instead of reaching into each other.
 */
import { topicFor, encodeMessage } from '@acm/contracts';
import type {
  AcElementDeploy,
  AcElementDto,
  CompositionElementDto,
  ParticipantDto,
  ParticipantMessage,
  ParticipantSupportedElementType,
  ParticipantTopics,
  ToscaConceptIdentifier,
  Uuid,
} from '@acm/contracts';
import { describeError } from '@acm/messaging';

import { ParticipantCache, compositionElementFromDto, dtoElementId } from '../cache';
import { LruMap } from '../lru';
import type { OutboundQueue } from '../outbound-queue';
import { NOT_IMPLEMENTED_MESSAGE, NOT_SUPPORTED_MESSAGE } from '../operations';
import type { CompositionElement, ElementHandler, ParticipantLogger } from '../types';
import { FinishedElements } from './finished-elements';
import { inPublishSpan } from './kafka-spans';

/** What the participant remembers of one handled order. */
export interface HandledOrder {
  /** Handler invocations per target (element id, or composition id for prime/deprime). */
  invocations: Map<string, number>;
  /** Acks sent for the order, per target ('' for an order-level ack such as "Already deleted"). */
  acks: Map<string, ParticipantMessage>;
}

export interface RunningOperation {
  controller: AbortController;
  instanceId?: Uuid;
  compositionId?: Uuid;
  /** The resend fingerprint of a running element operation (see finished-elements.ts). */
  fingerprint?: string;
}

export type ParticipantStatusName = 'new' | 'starting' | 'started' | 'stopping' | 'stopped';

export interface ParticipantCoreOptions {
  participantId: Uuid;
  replicaId: Uuid;
  topics: ParticipantTopics;
  handler: ElementHandler;
  logger: ParticipantLogger;
  failUnsupported: boolean;
  clock: () => Date;
  idempotenceCapacity: number;
  supportedTypes: ParticipantSupportedElementType[];
  outbound: OutboundQueue;
}

export class ParticipantCore {
  readonly participantId: Uuid;
  readonly replicaId: Uuid;
  readonly topics: ParticipantTopics;
  readonly handler: ElementHandler;
  readonly logger: ParticipantLogger;
  readonly failUnsupported: boolean;
  readonly clock: () => Date;
  readonly supportedTypes: ParticipantSupportedElementType[];
  readonly outbound: OutboundQueue;
  readonly cache = new ParticipantCache();
  /** Results of finished element operations, so a resent phase is answered without acting again. */
  readonly finished: FinishedElements;
  /** Orders by `messageId` (bounded): a redelivered order never runs a handler again. */
  private readonly handled: LruMap<Uuid, HandledOrder>;
  /** Running element and composition operations by key (element, or `composition:<id>`). */
  private readonly running = new Map<string, RunningOperation>();
  private readonly inFlight = new Set<Promise<void>>();
  private lifecycle: ParticipantStatusName = 'new';
  private registrationAcknowledged = false;
  private startedAt = 0;

  constructor(options: ParticipantCoreOptions) {
    this.participantId = options.participantId;
    this.replicaId = options.replicaId;
    this.topics = options.topics;
    this.handler = options.handler;
    this.logger = options.logger;
    this.failUnsupported = options.failUnsupported;
    this.clock = options.clock;
    this.supportedTypes = options.supportedTypes;
    this.outbound = options.outbound;
    this.handled = new LruMap(options.idempotenceCapacity);
    this.finished = new FinishedElements(options.idempotenceCapacity);
  }

  now(): string {
    return this.clock().toISOString();
  }

  get status(): ParticipantStatusName {
    return this.lifecycle;
  }

  /** When the replica started (ms since the epoch): orders older than that are replayed history. */
  get startedAtMs(): number {
    return this.startedAt;
  }

  /** True once the runtime acknowledged this replica's registration, until it stops. */
  get registered(): boolean {
    return this.registrationAcknowledged;
  }

  /** Moves the replica's lifecycle on: starting records when, stopped forgets the registration. */
  enter(status: ParticipantStatusName): void {
    this.lifecycle = status;
    if (status === 'starting') {
      this.startedAt = this.clock().getTime();
    }
    if (status === 'stopped') {
      this.registrationAcknowledged = false;
    }
  }

  markRegistered(): void {
    this.registrationAcknowledged = true;
  }

  /** A new order to remember, or undefined (nothing remembered) when `messageId` was handled before. */
  rememberedOrder(messageId: Uuid): HandledOrder | undefined {
    return this.handled.get(messageId);
  }

  rememberOrder(messageId: Uuid): HandledOrder {
    const order: HandledOrder = { invocations: new Map(), acks: new Map() };
    this.handled.set(messageId, order);
    return order;
  }

  /** A remembered order, without making it recent. */
  peekOrder(messageId: Uuid): HandledOrder | undefined {
    return this.handled.peek(messageId);
  }

  /** The remembered orders, oldest first. */
  rememberedOrders(): IterableIterator<[Uuid, HandledOrder]> {
    return this.handled.entriesInOrder();
  }

  runningOperation(key: string): Readonly<RunningOperation> | undefined {
    return this.running.get(key);
  }

  /** Records a running operation; one already running under the key is aborted and returned. */
  beginOperation(key: string, operation: RunningOperation): RunningOperation | undefined {
    const previous = this.running.get(key);
    previous?.controller.abort(new Error('Superseded by a newer order'));
    this.running.set(key, operation);
    return previous;
  }

  /** Forgets a running operation once it reported, unless a newer one took its key. */
  endOperation(key: string, controller: AbortController): void {
    if (this.running.get(key)?.controller === controller) {
      this.running.delete(key);
    }
  }

  /** Aborts (with `reason`) and forgets the running operations that `matches` selects; returns how many. */
  abortOperations(matches: (operation: RunningOperation) => boolean, reason: () => unknown): number {
    let aborted = 0;
    for (const [key, operation] of this.running) {
      if (matches(operation)) {
        operation.controller.abort(reason());
        this.running.delete(key);
        aborted += 1;
      }
    }
    return aborted;
  }

  /** Resolves when no tracked work is left, including work that tracked work started. */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) {
      await Promise.all([...this.inFlight]);
    }
  }

  /**
   * Publishes on the message type's topic; a failed publish is queued and retried, never thrown. `headers` (the W3C
   * trace context of an element handler's span) leave with the record; none when tracing is off.
   */
  async publish(message: ParticipantMessage, headers: Record<string, string> = {}): Promise<void> {
    if (this.status === 'stopped' || this.status === 'new') {
      this.logger('debug', 'Participant not running; message not sent', { messageType: message.messageType });
      return;
    }
    const record = encodeMessage(message);
    const topic = topicFor(message.messageType, this.topics);
    await inPublishSpan(topic, message.messageType, headers, (sent) =>
      this.outbound.publish(topic, Object.keys(sent).length === 0 ? record : { ...record, headers: sent }),
    );
  }

  /** Runs handler work outside the record handler, so `whenIdle` and shutdown can wait for it. */
  track(work: () => Promise<void>): void {
    const run = work().catch((error: unknown) => {
      this.logger('error', 'Participant operation failed unexpectedly', { error: describeError(error) });
    });
    this.inFlight.add(run);
    void run.finally(() => this.inFlight.delete(run));
  }

  /** The answer to an optional operation the handler does not implement. */
  unsupported(): { ok: true; message: string } | { ok: false; message: string } {
    return this.failUnsupported
      ? { ok: false, message: NOT_SUPPORTED_MESSAGE }
      : { ok: true, message: NOT_IMPLEMENTED_MESSAGE };
  }

  isMe(participantId: Uuid | undefined): boolean {
    return participantId !== undefined && participantId.toLowerCase() === this.participantId;
  }

  myDeploys(list: readonly { participantId: Uuid; acElementList: AcElementDeploy[] }[] | undefined): AcElementDeploy[] {
    return (list ?? []).filter((entry) => this.isMe(entry.participantId)).flatMap((entry) => entry.acElementList);
  }

  myDtos(list: readonly ParticipantDto[] | undefined): AcElementDto[] {
    return (list ?? []).filter((entry) => this.isMe(entry.participantId)).flatMap((entry) => entry.elementDtos);
  }

  compositionElementFor(
    compositionId: Uuid | undefined,
    definition: ToscaConceptIdentifier,
    dto: CompositionElementDto | undefined,
  ): CompositionElement {
    return (
      this.cache.compositionElement(compositionId, definition) ??
      compositionElementFromDto(dto, compositionId ?? dto?.compositionId ?? '', definition)
    );
  }
}

export function dtoMap(dtos: readonly AcElementDto[]): Map<Uuid, AcElementDto> {
  const map = new Map<Uuid, AcElementDto>();
  for (const dto of dtos) {
    const id = dtoElementId(dto);
    if (id !== undefined) {
      map.set(id, dto);
    }
  }
  return map;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A handler's return value as a result; anything unexpected counts as success (logged by the caller). */
export function asResult<R extends { ok: boolean }>(outcome: unknown, fallback: R): R {
  return isObject(outcome) && typeof outcome['ok'] === 'boolean' ? (outcome as unknown as R) : fallback;
}

/**
 * Whether an order asks this element to act. The acm-runtime lists in `participantDtoList` only the
 * elements that still have work (and marks the others' `orderedState` NONE), so a retry after a failure
 * redoes only what failed; ONAP's runtime lists every element, so nothing changes against it.
 */
export function hasWork(
  elementId: Uuid,
  dtoById: ReadonlyMap<Uuid, unknown>,
  deploys: readonly AcElementDeploy[],
): boolean {
  if (deploys.some((deploy) => deploy.id === elementId && deploy.orderedState === 'NONE')) {
    return false;
  }
  return dtoById.size === 0 || dtoById.has(elementId);
}
