/**
 * Test doubles for participant authors: a runtime you script by hand (send orders as ONAP-shaped JSON,
 * wait for the participant's messages) and a manual heartbeat timer. They use only the MessageBus port,
 * so the same test runs on the in-memory bus or on Kafka.
 */
import { randomUUID } from 'node:crypto';

import { DEFAULT_TOPICS, MESSAGE_ROUTES, decodeMessage, isMessageType, topicFor } from '@acm/contracts';
import type { MessageOf, MessageType, ParticipantMessage, ParticipantTopics } from '@acm/contracts';
import type { MessageBus, Subscription } from '@acm/messaging';

import type { ParticipantTimers } from '../types';

/**
 * @publicApi Options of {@link ScriptedRuntime}.
 */
export interface ScriptedRuntimeOptions {
  bus: MessageBus;
  topics?: ParticipantTopics;
  /** Consumer group of the fake runtime on the operation topic; a fresh one by default. */
  groupId?: string;
  /** How long `waitFor` waits before failing with a readable error; default 10 000 ms. */
  waitTimeoutMs?: number;
}

interface Waiter {
  matches(message: ParticipantMessage): boolean;
  wake(): void;
}

/**
 * A fake ACM runtime driven by the test: it records every participant-to-runtime message on the
 * operation topic and sends whatever JSON the test gives it, on the topic ONAP's runtime would use.
 *
 * @publicApi For participant authors' tests: exercise a handler through the real protocol without a runtime.
 */
export class ScriptedRuntime {
  /** Every participant-to-runtime message seen since `start`, in arrival order. */
  readonly received: ParticipantMessage[] = [];

  private readonly bus: MessageBus;
  private readonly topics: ParticipantTopics;
  private readonly groupId: string;
  private readonly waitTimeoutMs: number;
  private readonly waiters = new Set<Waiter>();
  private subscription: Subscription | undefined;

  constructor(options: ScriptedRuntimeOptions) {
    this.bus = options.bus;
    this.topics = options.topics ?? DEFAULT_TOPICS;
    this.groupId = options.groupId ?? `scripted-runtime-${randomUUID()}`;
    this.waitTimeoutMs = options.waitTimeoutMs ?? 10_000;
  }

  /** Subscribes the operation topic; call before starting the participant so its REGISTER is seen. */
  async start(): Promise<void> {
    this.subscription = await this.bus.subscribe({
      topic: this.topics.operation,
      groupId: this.groupId,
      handler: (record) => {
        const decoded = decodeMessage(record.value);
        if (decoded.ok && MESSAGE_ROUTES[decoded.message.messageType].direction === 'PARTICIPANT_TO_RUNTIME') {
          this.received.push(decoded.message);
          for (const waiter of this.waiters) {
            if (waiter.matches(decoded.message)) {
              waiter.wake();
            }
          }
        }
        return Promise.resolve();
      },
    });
  }

  async close(): Promise<void> {
    await this.subscription?.close();
    this.subscription = undefined;
  }

  /**
   * Sends a runtime-to-participant message given as a plain JSON object (ONAP's shape); it goes to the
   * topic its `messageType` travels on, keyed like ONAP (compositionId, else participantId).
   */
  async send(message: Record<string, unknown>): Promise<void> {
    const type = message['messageType'];
    if (!isMessageType(type)) {
      throw new Error(`ScriptedRuntime.send: unknown messageType ${JSON.stringify(type)}`);
    }
    const key = message['compositionId'] ?? message['participantId'];
    await this.bus.publish(topicFor(type, this.topics), [
      { key: typeof key === 'string' ? key : null, value: JSON.stringify(message) },
    ]);
  }

  /** Publishes a raw record value (e.g. garbage) on a topic role. */
  async sendRaw(value: string, role: 'operation' | 'sync' = 'operation', key: string | null = null): Promise<void> {
    await this.bus.publish(this.topics[role], [{ key, value }]);
  }

  /** Messages of a type received so far, optionally filtered. */
  messages<T extends MessageType>(type: T, predicate: (message: MessageOf<T>) => boolean = () => true): MessageOf<T>[] {
    return this.received.filter(
      (message): message is MessageOf<T> => message.messageType === type && predicate(message as MessageOf<T>),
    );
  }

  /** Resolves with the first message of a type (already received or future) that matches. */
  async waitFor<T extends MessageType>(
    type: T,
    predicate: (message: MessageOf<T>) => boolean = () => true,
  ): Promise<MessageOf<T>> {
    const [first] = await this.waitForCount(type, 1, predicate);
    return first as MessageOf<T>;
  }

  /** Resolves with the first `count` matching messages once that many have arrived. */
  async waitForCount<T extends MessageType>(
    type: T,
    count: number,
    predicate: (message: MessageOf<T>) => boolean = () => true,
  ): Promise<MessageOf<T>[]> {
    const current = (): MessageOf<T>[] => this.messages(type, predicate);
    if (current().length >= count) {
      return current().slice(0, count);
    }
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        matches: (message) =>
          message.messageType === type && predicate(message as MessageOf<T>) && current().length >= count,
        wake: () => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(
          new Error(
            `ScriptedRuntime: ${count} × ${type} not received within ${this.waitTimeoutMs} ms (got ${current().length}; all received: ${this.received
              .map((message) => message.messageType)
              .join(', ')})`,
          ),
        );
      }, this.waitTimeoutMs);
      timer.unref();
      this.waiters.add(waiter);
    });
    return current().slice(0, count);
  }

  /** Acknowledges a PARTICIPANT_REGISTER like ONAP's runtime: REGISTER_ACK on the sync topic, targeted at the replica. */
  async acknowledgeRegistration(register: MessageOf<'PARTICIPANT_REGISTER'>): Promise<void> {
    await this.send({
      messageType: 'PARTICIPANT_REGISTER_ACK',
      responseTo: register.messageId,
      timestamp: new Date().toISOString(),
      participantId: register.participantId,
      replicaId: register.replicaId,
      message: 'Participant Register Ack',
    });
  }
}

/**
 * A heartbeat timer that fires only when the test calls {@link ManualTimers.tick}.
 *
 * @publicApi Pass as `timers` to a Participant in tests, so heartbeats need no sleeping.
 */
export class ManualTimers implements ParticipantTimers {
  private readonly callbacks = new Map<number, { callback: () => void; ms: number }>();
  private nextHandle = 1;

  setInterval(callback: () => void, ms: number): unknown {
    const handle = this.nextHandle;
    this.nextHandle += 1;
    this.callbacks.set(handle, { callback, ms });
    return handle;
  }

  clearInterval(handle: unknown): void {
    if (typeof handle === 'number') {
      this.callbacks.delete(handle);
    }
  }

  /** Number of live intervals. */
  get active(): number {
    return this.callbacks.size;
  }

  /** The periods of the live intervals. */
  get periods(): number[] {
    return [...this.callbacks.values()].map((entry) => entry.ms);
  }

  /** Fires every live interval once. */
  tick(): void {
    for (const { callback } of [...this.callbacks.values()]) {
      callback();
    }
  }
}
