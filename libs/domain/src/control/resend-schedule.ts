/**
 * Resend after maxWaitMs (ONAP's historical `updateParameters.maxWaitMs` / `maxRetryCount`, removed from ONAP in
 * 2023): when the elements of an open phase have had no answer for a while, supervision sends the phase again,
 * with exponential backoff between attempts, a bounded number of times; the operation's deadline still applies.
 */
export interface ResendSettings {
  /** Silence that triggers the first resend; 0 turns resends off. */
  readonly maxWaitMs: number;
  /** How many times a phase is sent again before only the deadline is left. */
  readonly maxRetryCount: number;
}

/**
 * ONAP's own legacy defaults (20 s, 3 resends). With the doubling below the resends leave at 20 s, 60 s and 140 s
 * of silence: all three fit inside ONAP's default operation deadline (MAX_OPERATION_WAIT, 200 s), and a 20 s
 * silence is far beyond a healthy participant's answer time (milliseconds), so a slow participant is not flooded.
 */
export const DEFAULT_RESEND_SETTINGS: ResendSettings = { maxWaitMs: 20_000, maxRetryCount: 3 };

/** Upper bounds that keep a setting from being absurd (a day of silence, a hundred resends). */
export const RESEND_LIMITS = { maxWaitMs: 24 * 3600 * 1000, maxRetryCount: 100 } as const;

/** The silence before resend number `attempt` (1-based): maxWaitMs, then doubled at every attempt. */
export function resendDelayMs(settings: ResendSettings, attempt: number): number {
  return settings.maxWaitMs * 2 ** Math.max(0, attempt - 1);
}

export type ResendDecision =
  | { readonly kind: 'WAIT'; readonly dueAt: number }
  | { readonly kind: 'RESEND'; readonly attempt: number; readonly nextDueAt: number | null }
  | { readonly kind: 'EXHAUSTED' }
  | { readonly kind: 'OFF' };

/** When the next resend falls due (the same state as `decideResend`); null when resends are off or exhausted. */
export function nextResendAt(
  settings: ResendSettings,
  state: { readonly lastProgressAt: number; readonly resentSoFar: number },
): number | null {
  if (settings.maxWaitMs <= 0 || settings.maxRetryCount <= 0 || state.resentSoFar >= settings.maxRetryCount) {
    return null;
  }
  return state.lastProgressAt + resendDelayMs(settings, state.resentSoFar + 1);
}

/**
 * Whether the open phase is due a resend at `now`. `lastProgressAt` is the last time anything moved (the phase
 * opened, an element was dispatched, an ACK or a STATUS progress arrived, a resend left); `resentSoFar` counts
 * the resends since that progress. Paused time is the caller's to subtract (see pause.ts).
 */
export function decideResend(
  settings: ResendSettings,
  state: { readonly lastProgressAt: number; readonly resentSoFar: number },
  now: number,
): ResendDecision {
  if (settings.maxWaitMs <= 0 || settings.maxRetryCount <= 0) {
    return { kind: 'OFF' };
  }
  const dueAt = nextResendAt(settings, state);
  if (dueAt === null) {
    return { kind: 'EXHAUSTED' };
  }
  const attempt = state.resentSoFar + 1;
  if (now < dueAt) {
    return { kind: 'WAIT', dueAt };
  }
  const nextDueAt = attempt < settings.maxRetryCount ? now + resendDelayMs(settings, attempt + 1) : null;
  return { kind: 'RESEND', attempt, nextDueAt };
}

export interface SettingProblem {
  readonly field: string;
  readonly rule: string;
}

function integerIn(value: unknown, field: string, min: number, max: number, problems: SettingProblem[]): number | null {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isSafeInteger(number) || number < min || number > max) {
    problems.push({ field, rule: `must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}` });
    return null;
  }
  return number;
}

/**
 * A definition's own resend settings (`metadata.maxWaitMs`, `metadata.maxRetryCount`) over the runtime's; a
 * value that is absent keeps the runtime's. Problems name the field so commissioning can refuse with 400.
 */
export function resendSettingsOf(
  metadata: Readonly<Record<string, unknown>> | null | undefined,
  defaults: ResendSettings,
  fieldPrefix = 'metadata',
): { readonly settings: ResendSettings; readonly problems: readonly SettingProblem[] } {
  const problems: SettingProblem[] = [];
  const read = (key: keyof ResendSettings, min: number): number => {
    const raw = metadata?.[key];
    if (raw === undefined || raw === null) {
      return defaults[key];
    }
    return integerIn(raw, `${fieldPrefix}.${key}`, min, RESEND_LIMITS[key], problems) ?? defaults[key];
  };
  return { settings: { maxWaitMs: read('maxWaitMs', 0), maxRetryCount: read('maxRetryCount', 0) }, problems };
}
