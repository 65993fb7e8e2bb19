/**
 * Wait conditions (Heat's OS::Heat::WaitCondition / WaitConditionHandle): an element type the runtime handles
 * itself, with no participant. It completes once it has `count` SUCCESS signals, fails on a FAILURE signal and
 * times out at its `timeout`. Signals are idempotent by id.
 */
export const WAIT_CONDITION_TYPE = 'org.onap.policy.clamp.acm.WaitCondition';

export interface WaitConditionSettings {
  /** SUCCESS signals needed. */
  readonly count: number;
  /** Milliseconds from the element's dispatch; null: the operation's deadline only. */
  readonly timeoutMs: number | null;
}

export interface Signal {
  readonly id: string;
  readonly status: 'SUCCESS' | 'FAILURE';
  readonly reason: string | null;
}

export interface WaitConditionState {
  readonly signalIds: readonly string[];
  readonly successes: number;
  readonly outcome: 'WAITING' | 'COMPLETED' | 'FAILED' | 'TIMED_OUT';
}

export const WAITING: WaitConditionState = { signalIds: [], successes: 0, outcome: 'WAITING' };

export type SignalEffect = 'DUPLICATE' | 'COUNTED' | 'COMPLETED' | 'FAILED' | 'ALREADY_DONE';

/** Reads `count` (default 1, 1..1000) and `timeout` (seconds, as Heat) from the element's properties. */
export function waitConditionSettingsOf(properties: Readonly<Record<string, unknown>>): {
  readonly settings: WaitConditionSettings;
  readonly problems: ReadonlyArray<{ readonly field: string; readonly rule: string }>;
} {
  const problems: Array<{ field: string; rule: string }> = [];
  const count = properties['count'] ?? 1;
  const timeout = properties['timeout'];
  const validCount = typeof count === 'number' && Number.isSafeInteger(count) && count >= 1 && count <= 1000;
  if (!validCount) {
    problems.push({
      field: 'properties.count',
      rule: `must be an integer from 1 to 1000, got ${JSON.stringify(count)}`,
    });
  }
  const validTimeout =
    timeout === undefined ||
    (typeof timeout === 'number' && Number.isSafeInteger(timeout) && timeout >= 1 && timeout <= 7 * 24 * 3600);
  if (!validTimeout) {
    problems.push({
      field: 'properties.timeout',
      rule: `must be a number of seconds from 1 to ${7 * 24 * 3600}, got ${JSON.stringify(timeout)}`,
    });
  }
  return {
    settings: {
      count: validCount ? count : 1,
      timeoutMs: validTimeout && typeof timeout === 'number' ? timeout * 1000 : null,
    },
    problems,
  };
}

/** One signal: a known id changes nothing; SUCCESS counts towards `count`; FAILURE fails the condition. */
export function applySignal(
  settings: WaitConditionSettings,
  state: WaitConditionState,
  signal: Signal,
): { readonly state: WaitConditionState; readonly effect: SignalEffect } {
  if (state.signalIds.includes(signal.id)) {
    return { state, effect: 'DUPLICATE' };
  }
  if (state.outcome !== 'WAITING') {
    return { state: { ...state, signalIds: [...state.signalIds, signal.id] }, effect: 'ALREADY_DONE' };
  }
  const signalIds = [...state.signalIds, signal.id];
  if (signal.status === 'FAILURE') {
    return { state: { ...state, signalIds, outcome: 'FAILED' }, effect: 'FAILED' };
  }
  const successes = state.successes + 1;
  const done = successes >= settings.count;
  return {
    state: { signalIds, successes, outcome: done ? 'COMPLETED' : 'WAITING' },
    effect: done ? 'COMPLETED' : 'COUNTED',
  };
}

/** A waiting condition past its own timeout (counted from its dispatch) times out. */
export function isWaitConditionOverdue(
  settings: WaitConditionSettings,
  state: WaitConditionState,
  dispatchedAt: number,
  now: number,
): boolean {
  return state.outcome === 'WAITING' && settings.timeoutMs !== null && now - dispatchedAt >= settings.timeoutMs;
}
