/**
 * The MessageBus port: topics of keyed string records, consumer groups, per-key order. It knows
 * nothing about participant messages (decoding is `@acm/contracts`' job), so the same port carries
 * any payload and two adapters can honour it: Kafka in production, in-memory for unit and e2e tests.
 *
 * Semantics every adapter guarantees (checked by `testing/message-bus.contract.ts`):
 * - within one group each record is handled by exactly one subscriber of that group; different groups
 *   each get every record;
 * - records with the same key are handled in publish order, one at a time; different keys may be
 *   handled concurrently;
 * - a handler failure the subscription's `isTransientFailure` recognises is retried on the same record
 *   with exponential backoff (`redelivery.ts`), and the partition waits: the record's offset is not
 *   committed until the handler succeeds, so a closed subscription or another member resumes at it;
 * - any other handler failure (throw or rejection) is logged and its record skipped: the subscriber
 *   never crashes, and the next record of the partition follows (its offset is committed);
 * - `subscribe` resolves only once the subscription is receiving, so a record published after it
 *   resolves is never missed; a new group starts at the end of the topic unless `fromBeginning`; a
 *   group whose committed positions are lost while it runs resumes at the oldest retained record;
 * - `Subscription.close` stops delivery and resolves after the handler calls in flight have finished.
 *
 * `subscribeBatch` gives the same guarantees with a handler that takes the records of one partition in order,
 * as many as are ready (a Kafka fetch): a transient failure retries the same batch; no offset of a batch is
 * committed before its handler resolves; a batch that fails otherwise is delivered again one record at a time,
 * so only the record that can never apply is skipped (and reported to `onSkipped`).
 */

/** A record to publish. `key` decides the partition (same key ⇒ same order); null spreads records. */
export interface OutgoingRecord {
  key: string | null;
  value: string;
  headers?: Record<string, string>;
}

/** A record as a subscriber receives it. */
export interface IncomingRecord {
  topic: string;
  partition: number;
  /** Position in the partition, as a decimal string (Kafka offsets exceed 2^53). */
  offset: string;
  key: string | null;
  value: string;
  /** Record time in epoch milliseconds, as a decimal string (Kafka's form). */
  timestamp: string;
  headers: Record<string, string>;
}

/** Handles one record; a rejection is retried when transient, else logged and the record skipped. */
export type RecordHandler = (record: IncomingRecord) => Promise<void>;

export interface SubscribeOptions {
  topic: string;
  /** Consumer group: subscribers sharing it share the records; each group sees all records. */
  groupId: string;
  /** For a group with no committed position: start at the oldest retained record instead of the end. */
  fromBeginning?: boolean;
  handler: RecordHandler;
  /**
   * True for a failure that may clear by itself (a database outage, a serialization conflict): the record
   * is then retried until it applies instead of being skipped. Absent: every failure skips the record.
   * The bus does not know what is transient; the subscriber does.
   */
  isTransientFailure?: (error: unknown) => boolean;
}

/** Handles the records of one partition, in order; resolving means every one of them is applied. */
export type BatchHandler = (records: readonly IncomingRecord[]) => Promise<void>;

export interface SubscribeBatchOptions extends Omit<SubscribeOptions, 'handler'> {
  handler: BatchHandler;
  /** Called for each record skipped after failing alone with a failure that is not transient (for a counter). */
  onSkipped?: (record: IncomingRecord, error: unknown) => void;
}

/** A live subscription. */
export interface Subscription {
  /** Stops delivery, waits for in-flight handler calls, leaves the group. Idempotent. */
  close(): Promise<void>;
}

/**
 * The port. An abstract class rather than an interface so it can serve as a NestJS injection token
 * without this library importing NestJS.
 */
export abstract class MessageBus {
  private readonly recordsLostListeners = new Set<() => void>();

  /**
   * Calls `listener` each time the bus finds that records it had already delivered to the broker may be
   * gone: the broker came back as a new, empty cluster, so what was on its lost disk and not yet consumed
   * (orders, acks) will never arrive. A publisher that keeps its own record of open work (the runtime's
   * operations) sends it again. Returns a function that removes the listener. The in-memory bus loses
   * records only with its process, so it never calls it.
   */
  onRecordsLost(listener: () => void): () => void {
    this.recordsLostListeners.add(listener);
    return () => this.recordsLostListeners.delete(listener);
  }

  /** For adapters: tells every `onRecordsLost` listener; a throwing listener does not stop the others. */
  protected reportRecordsLost(): void {
    for (const listener of [...this.recordsLostListeners]) {
      try {
        listener();
      } catch {
        // A listener's own failure is its business; the bus carries on.
      }
    }
  }

  /** Appends records to a topic; resolves when the broker has acknowledged all of them. */
  abstract publish(topic: string, records: readonly OutgoingRecord[]): Promise<void>;

  /** Starts delivering the topic's records to `handler`; resolves once receiving (see class docs). */
  abstract subscribe(options: SubscribeOptions): Promise<Subscription>;

  /** As `subscribe`, delivering the records of a partition in batches (see the class docs). */
  abstract subscribeBatch(options: SubscribeBatchOptions): Promise<Subscription>;

  /** Closes every subscription and connection; the bus cannot be used afterwards. */
  abstract close(): Promise<void>;

  /** Resolves when the bus can carry records now (readiness probes); rejects with the reason otherwise. */
  abstract ping(): Promise<void>;

  /**
   * Records of a topic that a group has not handled yet (end positions minus committed positions, summed over
   * partitions): the consumer lag. A group that never committed counts from the end of the topic.
   */
  abstract lag(topic: string, groupId: string): Promise<number>;
}

/** Log levels the adapters emit. */
export type BusLogLevel = 'error' | 'warn' | 'info' | 'debug';

/**
 * Where adapters write their logs (handler failures, client warnings). A function so callers can
 * route it to NestJS's Logger, pino or a test spy without this library depending on any of them.
 */
export type BusLogger = (level: BusLogLevel, message: string, context?: Record<string, unknown>) => void;

/** Default logger: warnings and errors to stderr, the rest dropped. */
export const consoleBusLogger: BusLogger = (level, message, context) => {
  if (level === 'error' || level === 'warn') {
    console.error(`[messaging] ${level.toUpperCase()} ${message}`, context ?? '');
  }
};

const TOPIC_NAME = /^[a-zA-Z0-9._-]{1,249}$/;

/** Kafka's topic naming rule, enforced by both adapters so tests fail the same way production would. */
export function assertTopicName(topic: string): void {
  if (!TOPIC_NAME.test(topic) || topic === '.' || topic === '..') {
    throw new Error(`Invalid topic name ${JSON.stringify(topic)}: use 1-249 of [a-zA-Z0-9._-]`);
  }
}

/** A printable summary of an unknown thrown value, for logs. */
export function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
