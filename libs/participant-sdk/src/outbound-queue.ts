/**
 * What a participant sends, kept until the bus takes it. A publish that fails (broker down or
 * restarting) is retried with exponential backoff instead of being dropped, in the order the messages
 * were sent, so an ACK finished during a broker outage still reaches the runtime afterwards. Memory is
 * bounded: past `capacity` waiting messages the oldest is dropped, counted, and the first drop of an
 * outage logged as an error.
 */
import { describeError } from '@acm/messaging';
import type { OutgoingRecord } from '@acm/messaging';

import type { ParticipantLogger } from './types';

/** Timers for the retry delay (tests inject fake ones). */
export interface RetryTimers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Node's timers, unref'd so a pending retry alone never keeps a process alive. */
export const nodeRetryTimers: RetryTimers = {
  setTimeout(callback, ms) {
    const handle = setTimeout(callback, ms);
    handle.unref();
    return handle;
  },
  clearTimeout(handle) {
    clearTimeout(handle as NodeJS.Timeout);
  },
};

/**
 * Messages that may wait for the broker; default 10 000 (an ACK is about 1 KiB, so ~10 MiB at most).
 *
 * @publicApi Default of `outboundCapacity`.
 */
export const DEFAULT_OUTBOUND_CAPACITY = 10_000;

/** Records sent in one publish when a backlog drains (consecutive records of one topic only). */
const DRAIN_BATCH = 500;

/** Counters of the outbound queue, for metrics. */
export interface OutboundStats {
  /** Messages the bus acknowledged. */
  sent: number;
  /** Failed publish attempts (each is retried). */
  failedAttempts: number;
  /** Messages dropped because the queue was full, or still waiting when it closed. */
  dropped: number;
  /** Messages waiting now. */
  waiting: number;
}

export interface OutboundQueueOptions {
  /** Publishes records to a topic; rejects when the bus did not take them. */
  send(topic: string, records: readonly OutgoingRecord[]): Promise<void>;
  capacity?: number;
  /** Delay after the first failure; doubles per failure up to `maxDelayMs`. Defaults 100 ms and 5 000 ms. */
  initialDelayMs?: number;
  maxDelayMs?: number;
  logger: ParticipantLogger;
  timers?: RetryTimers;
}

interface Waiting {
  topic: string;
  record: OutgoingRecord;
  /** Settles the publish that queued the record: sent, or kept for a retry. */
  settled: () => void;
}

/**
 * FIFO of outgoing messages with retry; one publish in flight at a time, so the send order is kept. A send starts
 * on the next turn of the event loop, not at once, so that what a handler's work queues in one turn (the
 * element infos and acks of the elements of one order) leaves in one request to the broker: each request to a
 * broker with `acks: -1` costs a round trip, and an ack queued behind another request arrives that much later.
 */
export class OutboundQueue {
  private readonly waiting: Waiting[] = [];
  private readonly capacity: number;
  private readonly initialDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly timers: RetryTimers;
  private readonly counters = { sent: 0, failedAttempts: 0, dropped: 0 };
  /** Records handed to the bus and not yet acknowledged (kept out of `waiting` so a drop never hits them). */
  private inFlight: Waiting[] = [];
  private draining = false;
  private drainScheduled = false;
  private retryHandle: unknown = undefined;
  private failuresInARow = 0;
  private overflowReported = false;
  private closed = false;

  constructor(private readonly options: OutboundQueueOptions) {
    this.capacity = Math.max(1, options.capacity ?? DEFAULT_OUTBOUND_CAPACITY);
    this.initialDelayMs = options.initialDelayMs ?? 100;
    this.maxDelayMs = options.maxDelayMs ?? 5_000;
    this.timers = options.timers ?? nodeRetryTimers;
  }

  stats(): OutboundStats {
    return { ...this.counters, waiting: this.waiting.length + this.inFlight.length };
  }

  /**
   * Queues a message; it leaves with what else is queued in the same turn, behind anything still waiting.
   * Resolves once it was sent or kept for a retry (or dropped); never rejects.
   */
  publish(topic: string, record: OutgoingRecord): Promise<void> {
    return new Promise<void>((settled) => this.enqueue(topic, record, settled));
  }

  private enqueue(topic: string, record: OutgoingRecord, settled: () => void): void {
    if (this.closed) {
      this.counters.dropped += 1;
      this.options.logger('warn', 'Outbound queue closed; message dropped', { topic });
      settled();
      return;
    }
    if (this.waiting.length >= this.capacity) {
      this.waiting.shift()?.settled();
      this.counters.dropped += 1;
      if (!this.overflowReported) {
        this.overflowReported = true;
        this.options.logger('error', 'Outbound queue full: dropping the oldest waiting messages', {
          capacity: this.capacity,
          failuresInARow: this.failuresInARow,
        });
      }
    }
    this.waiting.push({ topic, record, settled });
    if (this.retryHandle !== undefined) {
      // The broker is refusing: the record waits for the retry, and that is its answer.
      settled();
      return;
    }
    this.scheduleDrain();
  }

  /** Starts a drain on the next turn unless one is running, scheduled, or waiting out a retry delay. */
  private scheduleDrain(): void {
    if (this.draining || this.drainScheduled || this.retryHandle !== undefined) {
      return;
    }
    this.drainScheduled = true;
    setImmediate(() => {
      this.drainScheduled = false;
      void this.drain();
    });
  }

  /** Stops retrying; what still waits is dropped (and counted). */
  close(): void {
    this.closed = true;
    if (this.retryHandle !== undefined) {
      this.timers.clearTimeout(this.retryHandle);
      this.retryHandle = undefined;
    }
    if (this.waiting.length > 0) {
      this.options.logger('warn', 'Outbound queue closed with messages still waiting; they are dropped', {
        waiting: this.waiting.length,
      });
      this.counters.dropped += this.waiting.length;
      this.waiting.splice(0).forEach((entry) => entry.settled());
    }
  }

  private async drain(): Promise<void> {
    if (this.draining || this.retryHandle !== undefined) {
      return;
    }
    this.draining = true;
    try {
      while (this.waiting.length > 0 && !this.closed) {
        const topic = this.waiting[0]!.topic;
        let count = 1;
        while (count < this.waiting.length && count < DRAIN_BATCH && this.waiting[count]!.topic === topic) {
          count += 1;
        }
        this.inFlight = this.waiting.splice(0, count);
        try {
          await this.options.send(
            topic,
            this.inFlight.map((entry) => entry.record),
          );
        } catch (error) {
          // Back at the head, ahead of anything queued meanwhile.
          this.waiting.unshift(...this.inFlight);
          this.inFlight = [];
          this.scheduleRetry(error);
          // Kept for the retry: every publish waiting now has its answer.
          this.waiting.forEach((entry) => entry.settled());
          return;
        }
        this.counters.sent += this.inFlight.length;
        this.inFlight.forEach((entry) => entry.settled());
        this.inFlight = [];
        if (this.failuresInARow > 0) {
          this.options.logger('info', 'Outbound messages are being delivered again', {
            failedAttempts: this.failuresInARow,
            stillWaiting: this.waiting.length,
          });
          this.failuresInARow = 0;
          this.overflowReported = false;
        }
      }
    } finally {
      this.draining = false;
    }
  }

  private scheduleRetry(error: unknown): void {
    this.failuresInARow += 1;
    this.counters.failedAttempts += 1;
    const delayMs = Math.min(this.maxDelayMs, this.initialDelayMs * 2 ** Math.min(this.failuresInARow - 1, 30));
    // One warning per outage; the following attempts at debug level.
    this.options.logger(this.failuresInARow === 1 ? 'warn' : 'debug', 'Publish failed; retrying', {
      waiting: this.waiting.length,
      attempt: this.failuresInARow,
      delayMs,
      error: describeError(error),
    });
    if (this.closed) {
      return;
    }
    this.retryHandle = this.timers.setTimeout(() => {
      this.retryHandle = undefined;
      void this.drain();
    }, delayMs);
  }
}
