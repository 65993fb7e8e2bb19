import type { ParticipantTimers } from '../types';
import { isTransientError, statusOf } from './resource-client';

/**
 * How transient client errors are retried: up to `retries` more calls, waiting `baseDelayMs`, then
 * twice as long each time (2 s, 4 s, 8 s by default).
 *
 * @publicApi Option `retry` of the resource provider handler.
 */
export interface ResourceRetryPolicy {
  retries: number;
  baseDelayMs: number;
}

export const DEFAULT_RESOURCE_RETRY_POLICY: ResourceRetryPolicy = { retries: 3, baseDelayMs: 2000 };

/** The waits before each retry of a policy. */
export function retryDelaysMs(policy: ResourceRetryPolicy): number[] {
  return Array.from({ length: policy.retries }, (_, index) => policy.baseDelayMs * 2 ** index);
}

/** Read through a function: TypeScript would otherwise keep a check made before an await. */
function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

/** Waits `ms` on the SDK's timers (so tests drive it with ManualTimers), or until `signal` aborts. */
function wait(ms: number, timers: ParticipantTimers, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const finish = (): void => {
      timers.clearInterval(handle);
      signal?.removeEventListener('abort', finish);
      resolve();
    };
    const handle = timers.setInterval(finish, ms);
    signal?.addEventListener('abort', finish, { once: true });
  });
}

/**
 * A call failed for good: it names the call, how often it was tried, and the last error, so the
 * element's diagnostic says what to look at.
 */
export class ResourceCallFailedError extends Error {
  override readonly name = 'ResourceCallFailedError';

  constructor(
    readonly call: string,
    readonly attempts: number,
    readonly lastError: unknown,
  ) {
    const status = statusOf(lastError);
    const reason = lastError instanceof Error ? lastError.message : String(lastError);
    super(
      `${call} failed after ${attempts} attempt${attempts === 1 ? '' : 's'}` +
        `${status === undefined ? '' : ` (status ${status})`}: ${reason}`,
    );
  }
}

export interface RetryOptions {
  readonly policy: ResourceRetryPolicy;
  readonly timers: ParticipantTimers;
  readonly signal?: AbortSignal;
  /** Told before each wait, e.g. to log it. */
  readonly onRetry?: (attempt: number, delayMs: number, error: unknown) => void;
  /**
   * Which errors are worth another call; default {@link isTransientError} (a status of 429, 502, 503 or 504, or 401
   * on a read). A client whose failures carry no status (a refused connection) says so here.
   */
  readonly isTransient?: (error: unknown, kind: 'read' | 'write') => boolean;
}

/** Runs `action`, retrying transient errors by the policy; any other error, or the last one, ends it. */
export async function withRetry<T>(
  call: string,
  kind: 'read' | 'write',
  action: () => Promise<T>,
  options: RetryOptions,
): Promise<T> {
  const delays = retryDelaysMs(options.policy);
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await action();
    } catch (error) {
      const delay = delays[attempt - 1];
      const transient = (options.isTransient ?? isTransientError)(error, kind);
      if (delay === undefined || !transient || isAborted(options.signal)) {
        throw new ResourceCallFailedError(call, attempt, error);
      }
      options.onRetry?.(attempt, delay, error);
      await wait(delay, options.timers, options.signal);
      if (isAborted(options.signal)) {
        throw new ResourceCallFailedError(call, attempt, error);
      }
    }
  }
}
