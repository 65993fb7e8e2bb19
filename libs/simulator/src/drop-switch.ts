/**
 * The simulator's "drop next N messages" switch (not in ONAP's simulator): a fault to inject on purpose, so
 * a test can prove that the runtime heals a lost order (its resend after maxWaitMs) with no operator action.
 * Armed through the control API (`PUT /drop`), it swallows the next `count` runtime-to-participant messages
 * addressed to this participant, of the listed `messageTypes` (all types when absent), before the SDK sees
 * them: no handler runs, nothing is cached, nothing is answered, and the messageId is not remembered, so the
 * same message delivered again is handled normally.
 */
import { MESSAGE_ROUTES, MESSAGE_TYPES, acceptsMessage, decodeMessage, isForOthers } from '@acm/contracts';
import type { MessageType, ParticipantIdentity, ParticipantMessage, Uuid } from '@acm/contracts';
import { MessageBus } from '@acm/messaging';
import type {
  IncomingRecord,
  OutgoingRecord,
  SubscribeBatchOptions,
  SubscribeOptions,
  Subscription,
} from '@acm/messaging';
import type { ParticipantLogger } from '@acm/participant-sdk';

/** The message types the switch may drop: every runtime-to-participant type. */
export const DROPPABLE_MESSAGE_TYPES: readonly MessageType[] = MESSAGE_TYPES.filter(
  (type) => MESSAGE_ROUTES[type].direction === 'RUNTIME_TO_PARTICIPANT',
);

/** Most dropped messages listed by `GET /drop` (the count goes on). */
export const DROPPED_LOG_CAPACITY = 1000;
/** The largest `count` accepted: more is a typo, not a test. */
export const MAX_DROP_COUNT = 1_000_000;

export interface DroppedMessage {
  messageId: Uuid | undefined;
  messageType: MessageType;
  automationCompositionId?: Uuid;
  compositionId?: Uuid;
  droppedAt: string;
}

export interface DropSwitchState {
  /** Messages still to drop. */
  remaining: number;
  /** The types dropped; absent = every droppable type. */
  messageTypes?: MessageType[];
  /** Messages dropped since the simulator started. */
  droppedCount: number;
  /** The most recent dropped messages, oldest first. */
  dropped: DroppedMessage[];
}

export type DropRequest = { count: number; messageTypes?: MessageType[] };

export type DropRequestParse = { ok: true; request: DropRequest } | { ok: false; problems: string[] };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads a `PUT /drop` body; every problem names its field and the rule. */
export function parseDropRequest(body: unknown): DropRequestParse {
  if (!isObject(body)) {
    return { ok: false, problems: ['body: must be a JSON object {"count": N, "messageTypes": [...]}'] };
  }
  const problems: string[] = [];
  for (const field of Object.keys(body)) {
    if (field !== 'count' && field !== 'messageTypes') {
      problems.push(`${field}: unknown field (allowed: count, messageTypes)`);
    }
  }
  const count = body['count'];
  if (count === undefined || count === null) {
    problems.push('count: is required');
  } else if (typeof count !== 'number' || !Number.isInteger(count) || count < 0 || count > MAX_DROP_COUNT) {
    problems.push(`count: must be an integer from 0 to ${MAX_DROP_COUNT}, got ${JSON.stringify(count)}`);
  }
  const types = body['messageTypes'];
  let messageTypes: MessageType[] | undefined;
  if (types !== undefined && types !== null) {
    if (!Array.isArray(types) || types.length === 0) {
      problems.push('messageTypes: must be a non-empty array of message types when given');
    } else {
      messageTypes = [];
      types.forEach((type: unknown, index) => {
        const known = DROPPABLE_MESSAGE_TYPES.find((droppable) => droppable === type);
        if (known === undefined) {
          problems.push(
            `messageTypes[${index}]: ${JSON.stringify(type)} is not a runtime-to-participant message type (one of ${DROPPABLE_MESSAGE_TYPES.join(', ')})`,
          );
        } else if (!messageTypes?.includes(known)) {
          messageTypes?.push(known);
        }
      });
    }
  }
  if (problems.length > 0 || typeof count !== 'number') {
    return { ok: false, problems };
  }
  return { ok: true, request: { count, ...(messageTypes === undefined ? {} : { messageTypes }) } };
}

export class DropSwitch {
  private remaining = 0;
  private messageTypes: MessageType[] | undefined;
  private droppedCount = 0;
  private readonly dropped: DroppedMessage[] = [];

  constructor(private readonly clock: () => Date = () => new Date()) {}

  /** Replaces the switch: the next `count` matching messages are dropped (0 disarms it). */
  arm(request: DropRequest): void {
    this.remaining = request.count;
    this.messageTypes = request.messageTypes === undefined ? undefined : [...request.messageTypes];
  }

  /** False when nothing is left to drop, so the bus need not decode records. */
  get armed(): boolean {
    return this.remaining > 0;
  }

  /** True when this message is to be dropped; counts and records it. */
  take(message: ParticipantMessage): boolean {
    if (this.remaining === 0 || (this.messageTypes !== undefined && !this.messageTypes.includes(message.messageType))) {
      return false;
    }
    this.remaining -= 1;
    this.droppedCount += 1;
    this.dropped.push({
      messageId: 'messageId' in message ? message.messageId : undefined,
      messageType: message.messageType,
      ...('automationCompositionId' in message && message.automationCompositionId !== undefined
        ? { automationCompositionId: message.automationCompositionId }
        : {}),
      ...(message.compositionId === undefined ? {} : { compositionId: message.compositionId }),
      droppedAt: this.clock().toISOString(),
    });
    if (this.dropped.length > DROPPED_LOG_CAPACITY) {
      this.dropped.shift();
    }
    return true;
  }

  state(): DropSwitchState {
    return {
      remaining: this.remaining,
      ...(this.messageTypes === undefined ? {} : { messageTypes: [...this.messageTypes] }),
      droppedCount: this.droppedCount,
      dropped: this.dropped.map((entry) => ({ ...entry })),
    };
  }
}

/**
 * The participant's bus with the switch in front of every subscription. Only messages this participant
 * would accept count: a message for another participant on the shared topic is passed on untouched (the
 * SDK ignores it), so it never uses up the count.
 */
export class DroppingMessageBus extends MessageBus {
  constructor(
    private readonly inner: MessageBus,
    private readonly dropSwitch: DropSwitch,
    private readonly identity: () => ParticipantIdentity,
    private readonly logger: ParticipantLogger,
  ) {
    super();
  }

  /** Losses are the inner bus's to notice: listeners go to it. */
  override onRecordsLost(listener: () => void): () => void {
    return this.inner.onRecordsLost(listener);
  }

  override ping(): Promise<void> {
    return this.inner.ping();
  }

  override lag(topic: string, groupId: string): Promise<number> {
    return this.inner.lag(topic, groupId);
  }

  override publish(topic: string, records: readonly OutgoingRecord[]): Promise<void> {
    return this.inner.publish(topic, records);
  }

  override subscribe(options: SubscribeOptions): Promise<Subscription> {
    const handler = options.handler;
    return this.inner.subscribe({
      ...options,
      handler: (record: IncomingRecord) => (this.drops(record) ? Promise.resolve() : handler(record)),
    });
  }

  override subscribeBatch(options: SubscribeBatchOptions): Promise<Subscription> {
    const handler = options.handler;
    return this.inner.subscribeBatch({
      ...options,
      handler: (records: readonly IncomingRecord[]) => handler(records.filter((record) => !this.drops(record))),
    });
  }

  /** The bus belongs to whoever created the simulator; closing it is theirs to do. */
  override close(): Promise<void> {
    return Promise.resolve();
  }

  private drops(record: IncomingRecord): boolean {
    if (!this.dropSwitch.armed) {
      return false;
    }
    const identity = this.identity();
    if (isForOthers(record.value, identity)) {
      return false;
    }
    const decoded = decodeMessage(record.value);
    if (!decoded.ok || !acceptsMessage(decoded.message, identity) || !this.dropSwitch.take(decoded.message)) {
      return false;
    }
    const message = decoded.message;
    this.logger('warn', 'Dropped an inbound message (drop switch)', {
      messageType: message.messageType,
      messageId: 'messageId' in message ? message.messageId : undefined,
      remaining: this.dropSwitch.state().remaining,
    });
    return true;
  }
}
