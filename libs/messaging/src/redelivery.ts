/**
 * What both adapters do when a handler fails: a transient failure (the subscriber's own classification,
 * e.g. "the database is unavailable") is retried on the same record with exponential backoff, and the
 * record's position is not committed until the handler succeeds; any other failure is logged and the
 * record skipped. Shared so the in-memory twin and the Kafka adapter cannot drift apart.
 */
import { describeError } from './message-bus';
import type { BatchHandler, BusLogger, IncomingRecord, RecordHandler } from './message-bus';

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

/** Where a failure happened, for the logs. */
interface FailureSite {
  topic: string;
  partition: number;
  offset: string;
  records?: number;
}

/** Runs `work` until it succeeds, fails with a failure that is not transient, or the subscription stops. */
async function attemptUntilSettled(
  work: () => Promise<void>,
  site: FailureSite,
  context: Omit<DeliveryContext, 'handler'>,
  onFinalFailure: (error: unknown) => void,
): Promise<DeliveryOutcome> {
  for (let attempt = 1; ; attempt += 1) {
    if (context.signal.aborted) {
      return 'stopped';
    }
    try {
      // Inside the try: a handler that throws synchronously is treated like one that rejects.
      await work();
      if (attempt > 1) {
        context.logger('info', 'Message handler recovered; record applied', {
          ...site,
          groupId: context.groupId,
          attempts: attempt,
        });
      }
      return 'applied';
    } catch (error) {
      if (context.isTransientFailure?.(error) !== true) {
        onFinalFailure(error);
        return 'skipped';
      }
      const delayMs = redeliveryDelay(context.backoff, attempt);
      // The first failure of an outage is worth a warning; the following ones would flood the log.
      context.logger(attempt === 1 ? 'warn' : 'debug', 'Message handler failed transiently; retrying the record', {
        ...site,
        groupId: context.groupId,
        error: describeError(error),
        attempt,
        delayMs,
      });
      await context.beforeWait?.();
      await pause(delayMs, context.signal);
    }
  }
}

/** Runs the handler on one record until it applies, is skipped as permanently failed, or the subscription stops. */
export function deliverUntilSettled(record: IncomingRecord, context: DeliveryContext): Promise<DeliveryOutcome> {
  const site = { topic: record.topic, partition: record.partition, offset: record.offset };
  return attemptUntilSettled(
    () => context.handler(record),
    site,
    context,
    (error) => {
      context.logger('error', 'Message handler failed; record skipped', {
        ...site,
        groupId: context.groupId,
        error: describeError(error),
      });
    },
  );
}

export interface BatchDeliveryContext extends Omit<DeliveryContext, 'handler'> {
  handler: BatchHandler;
  onSkipped?: (record: IncomingRecord, error: unknown) => void;
}

/**
 * How a batch's handling ended: `settled` leading records are done (applied or skipped) and may be committed;
 * `stopped` when the subscription closed before the rest was.
 */
export interface BatchOutcome {
  settled: number;
  stopped: boolean;
}

/**
 * Runs the handler on a batch until it applies (transient failures retry the whole batch, in place). A batch that
 * fails otherwise is handed over one record at a time, each with the same rule, so one record that can never apply
 * costs only itself: it is skipped, logged and reported, and the records around it apply.
 */
export async function deliverBatchUntilSettled(
  records: readonly IncomingRecord[],
  context: BatchDeliveryContext,
): Promise<BatchOutcome> {
  const first = records[0];
  if (first === undefined) {
    return { settled: 0, stopped: false };
  }
  const site = { topic: first.topic, partition: first.partition, offset: first.offset, records: records.length };
  let failure: unknown;
  const whole = await attemptUntilSettled(
    () => context.handler(records),
    site,
    context,
    (error) => {
      failure = error;
    },
  );
  if (whole !== 'skipped') {
    return { settled: whole === 'applied' ? records.length : 0, stopped: whole === 'stopped' };
  }
  if (records.length === 1) {
    skip(first, failure, context);
    return { settled: 1, stopped: false };
  }
  context.logger('warn', 'Message batch failed; applying its records one at a time', {
    ...site,
    groupId: context.groupId,
    error: describeError(failure),
  });
  for (const [index, record] of records.entries()) {
    const outcome = await attemptUntilSettled(
      () => context.handler([record]),
      { topic: record.topic, partition: record.partition, offset: record.offset },
      context,
      (error) => skip(record, error, context),
    );
    if (outcome === 'stopped') {
      return { settled: index, stopped: true };
    }
  }
  return { settled: records.length, stopped: false };
}

function skip(record: IncomingRecord, error: unknown, context: BatchDeliveryContext): void {
  context.logger('error', 'Message handler failed; record skipped', {
    topic: record.topic,
    partition: record.partition,
    offset: record.offset,
    groupId: context.groupId,
    error: describeError(error),
  });
  context.onSkipped?.(record, error);
}
