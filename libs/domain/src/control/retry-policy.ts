import type { SettingProblem } from './resend-schedule';

/**
 * Automatic retries of failed elements, in Argo CD's shape (`retry.limit`, `backoff.duration/factor/maxDuration`),
 * off unless a definition's metadata or an instance asks for it.
 */
export interface RetryPolicy {
  /** Retries after the first failure; 0 means none. */
  readonly limit: number;
  readonly backoff: {
    /** Delay before the first retry. */
    readonly durationMs: number;
    /** Multiplier of the delay at every further retry. */
    readonly factor: number;
    /** Cap of the delay. */
    readonly maxDurationMs: number;
  };
}

/** Argo CD's defaults for what the policy leaves out: 5 s, doubled, capped at 3 min. */
export const DEFAULT_BACKOFF = { durationMs: 5_000, factor: 2, maxDurationMs: 180_000 } as const;

/** Bounds past which a value is a mistake rather than a choice (400, naming the field). */
export const RETRY_LIMITS = { limit: 100, durationMs: 24 * 3600 * 1000, factor: 10 } as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Validates a `retryPolicy` object; `field` is where it was found (`metadata.retryPolicy`, `retryPolicy`).
 * Every problem is listed, each naming its field and the rule it breaks.
 */
export function parseRetryPolicy(
  raw: unknown,
  field: string,
): { readonly policy: RetryPolicy | null; readonly problems: readonly SettingProblem[] } {
  if (raw === undefined || raw === null) {
    return { policy: null, problems: [] };
  }
  if (!isRecord(raw)) {
    return { policy: null, problems: [{ field, rule: 'must be an object {limit, backoff}' }] };
  }
  const problems: SettingProblem[] = [];
  const integer = (value: unknown, name: string, min: number, max: number, fallback: number): number => {
    if (value === undefined) {
      return fallback;
    }
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
      problems.push({ field: name, rule: `must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}` });
      return fallback;
    }
    return value;
  };
  const limit = integer(raw['limit'], `${field}.limit`, 0, RETRY_LIMITS.limit, 0);
  if (raw['limit'] === undefined) {
    problems.push({ field: `${field}.limit`, rule: 'is required' });
  }
  const backoff = raw['backoff'] ?? {};
  if (!isRecord(backoff)) {
    problems.push({ field: `${field}.backoff`, rule: 'must be an object {durationMs, factor, maxDurationMs}' });
    return { policy: null, problems };
  }
  const durationMs = integer(
    backoff['durationMs'],
    `${field}.backoff.durationMs`,
    1,
    RETRY_LIMITS.durationMs,
    DEFAULT_BACKOFF.durationMs,
  );
  const maxDurationMs = integer(
    backoff['maxDurationMs'],
    `${field}.backoff.maxDurationMs`,
    1,
    RETRY_LIMITS.durationMs,
    Math.max(DEFAULT_BACKOFF.maxDurationMs, durationMs),
  );
  const rawFactor = backoff['factor'];
  let factor: number = DEFAULT_BACKOFF.factor;
  if (rawFactor !== undefined) {
    if (
      typeof rawFactor !== 'number' ||
      !Number.isFinite(rawFactor) ||
      rawFactor < 1 ||
      rawFactor > RETRY_LIMITS.factor
    ) {
      problems.push({
        field: `${field}.backoff.factor`,
        rule: `must be a number from 1 to ${RETRY_LIMITS.factor}, got ${JSON.stringify(rawFactor)}`,
      });
    } else {
      factor = rawFactor;
    }
  }
  if (maxDurationMs < durationMs) {
    problems.push({
      field: `${field}.backoff.maxDurationMs`,
      rule: `must not be less than backoff.durationMs (${durationMs}), got ${maxDurationMs}`,
    });
  }
  for (const key of Object.keys(raw)) {
    if (key !== 'limit' && key !== 'backoff') {
      problems.push({ field: `${field}.${key}`, rule: 'is not a retry policy field (limit, backoff)' });
    }
  }
  for (const key of Object.keys(backoff)) {
    if (key !== 'durationMs' && key !== 'factor' && key !== 'maxDurationMs') {
      problems.push({
        field: `${field}.backoff.${key}`,
        rule: 'is not a backoff field (durationMs, factor, maxDurationMs)',
      });
    }
  }
  return problems.length > 0
    ? { policy: null, problems }
    : { policy: { limit, backoff: { durationMs, factor, maxDurationMs } }, problems };
}

/** The delay before retry number `attempt` (1-based): durationMs · factor^(attempt-1), capped at maxDurationMs. */
export function retryDelayMs(policy: RetryPolicy, attempt: number): number {
  const { durationMs, factor, maxDurationMs } = policy.backoff;
  return Math.min(maxDurationMs, Math.round(durationMs * factor ** Math.max(0, attempt - 1)));
}

export type RetryDecision =
  | { readonly kind: 'RETRY'; readonly attempt: number; readonly delayMs: number; readonly dueAt: number }
  | { readonly kind: 'GIVE_UP'; readonly attempts: number };

/** After a FAILED element result: schedule retry `retriedSoFar + 1` of the failed elements, or give up (FAILED). */
export function decideRetry(policy: RetryPolicy | null, retriedSoFar: number, now: number): RetryDecision {
  if (policy === null || retriedSoFar >= policy.limit) {
    return { kind: 'GIVE_UP', attempts: retriedSoFar };
  }
  const attempt = retriedSoFar + 1;
  const delayMs = retryDelayMs(policy, attempt);
  return { kind: 'RETRY', attempt, delayMs, dueAt: now + delayMs };
}

/** The instance's own policy wins over its definition's; either may be absent (then no retries). */
export function effectiveRetryPolicy(
  instancePolicy: RetryPolicy | null,
  definitionPolicy: RetryPolicy | null,
): RetryPolicy | null {
  return instancePolicy ?? definitionPolicy;
}
