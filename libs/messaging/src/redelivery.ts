/**
 * What both adapters do when a handler fails: a transient failure (the subscriber's own classification,
 * e.g. "the database is unavailable") is retried on the same record with exponential backoff, and the
 * record's position is not committed until the handler succeeds; any other failure is logged and the
 * record skipped. Shared so the in-memory twin and the Kafka adapter cannot drift apart.
 */
import { describeError } from './message-bus';
import type { BusLogger, IncomingRecord, RecordHandler } from './message-bus';

/** Delays between attempts on one record after transient failures: doubling from `initialMs`, at most `maxMs`. */
export interface RedeliveryBackoff {
  initialMs: number;
  maxMs: number;
}

/** 100 ms, 200 ms, … capped at 5 s: quick recovery from a blip, little load during a long outage. */
export const DEFAULT_REDELIVERY_BACKOFF: RedeliveryBackoff = { initialMs: 100, maxMs: 5_000 };

/** The delay before attempt `attempt + 1`, counting the first retry as attempt 1. */
export function redeliveryDelay(backoff: RedeliveryBackoff, attempt: number): number {
  return Math.min(backoff.maxMs, backoff.initialMs * 2 ** Math.min(attempt - 1, 30));
}

/** How a record's handling ended. `stopped`: the subscription closed while retrying; the record stays uncommitted. */
export type DeliveryOutcome = 'applied' | 'skipped' | 'stopped';

export interface DeliveryContext {
  handler: RecordHandler;
  isTransientFailure: ((error: unknown) => boolean) | undefined;
  backoff: RedeliveryBackoff;
  logger: BusLogger;
  groupId: string;
  /** Aborted when the subscription closes: a pending retry gives up at once. */
  signal: AbortSignal;
  /** Called before each wait (Kafka: a heartbeat, so a long retry does not cost the group membership). */
  beforeWait?: () => Promise<void>;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve();
      return;
    }
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });
}

/** Runs the handler on one record until it applies, is skipped as permanently failed, or the subscription stops. */
export async function deliverUntilSettled(record: IncomingRecord, context: DeliveryContext): Promise<DeliveryOutcome> {
  for (let attempt = 1; ; attempt += 1) {
    if (context.signal.aborted) {
      return 'stopped';
    }
    try {
      // Inside the try: a handler that throws synchronously is treated like one that rejects.
      await context.handler(record);
      if (attempt > 1) {
        context.logger('info', 'Message handler recovered; record applied', {
          topic: record.topic,
          partition: record.partition,
          offset: record.offset,
          groupId: context.groupId,
          attempts: attempt,
        });
      }
      return 'applied';
    } catch (error) {
      const where = {
        topic: record.topic,
        partition: record.partition,
        offset: record.offset,
        groupId: context.groupId,
        error: describeError(error),
      };
      if (context.isTransientFailure?.(error) !== true) {
        context.logger('error', 'Message handler failed; record skipped', where);
        return 'skipped';
      }
      const delayMs = redeliveryDelay(context.backoff, attempt);
      // The first failure of an outage is worth a warning; the following ones would flood the log.
      context.logger(attempt === 1 ? 'warn' : 'debug', 'Message handler failed transiently; retrying the record', {
        ...where,
        attempt,
        delayMs,
      });
      await context.beforeWait?.();
      await pause(delayMs, context.signal);
    }
  }
}
