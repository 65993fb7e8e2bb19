import { refuseTemplateSettingProblems } from './template-settings';

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

/** Where a wait condition keeps its state: a key of its element's outProperties (shown in GET, kept by the row). */
export const WAIT_STATE_PROPERTY = 'waitCondition';

/** The state of a wait condition as its element stores it: the state above, for one operation. */
export interface StoredWaitState extends WaitConditionState {
  /** The operation whose deploy started the wait: signals of an older deploy's wait are not counted in it. */
  readonly operationId: string;
  readonly startedAt: number;
  readonly count: number;
  readonly timeoutMs: number | null;
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((entry) => typeof entry === 'string');
}

const OUTCOMES: ReadonlySet<string> = new Set(['WAITING', 'COMPLETED', 'FAILED', 'TIMED_OUT']);

/** The stored state of a wait condition, or null when it never waited (or the stored value is not one). */
export function storedWaitStateOf(outProperties: Readonly<Record<string, unknown>>): StoredWaitState | null {
  const raw = outProperties[WAIT_STATE_PROPERTY];
  if (typeof raw !== 'object' || raw === null) {
    return null;
  }
  const value = raw as Record<string, unknown>;
  const { operationId, startedAt, signalIds, successes, outcome, count, timeoutMs } = value;
  if (
    typeof operationId !== 'string' ||
    typeof startedAt !== 'number' ||
    !isStringArray(signalIds) ||
    typeof successes !== 'number' ||
    typeof outcome !== 'string' ||
    !OUTCOMES.has(outcome) ||
    typeof count !== 'number' ||
    (timeoutMs !== null && typeof timeoutMs !== 'number')
  ) {
    return null;
  }
  return {
    operationId,
    startedAt,
    signalIds,
    successes,
    outcome: outcome as WaitConditionState['outcome'],
    count,
    timeoutMs,
  };
}

/** The outProperties of an element with its wait state replaced. */
export function withWaitState(
  outProperties: Readonly<Record<string, unknown>>,
  state: StoredWaitState,
): Record<string, unknown> {
  return { ...outProperties, [WAIT_STATE_PROPERTY]: { ...state, signalIds: [...state.signalIds] } };
}

/** Limits of a signal's fields, checked where it enters (the REST body). */
export const SIGNAL_LIMITS = { idLength: 200, reasonLength: 1000 } as const;

/** A signal body's problems, each naming the field and the rule; the signal when there are none. */
export function parseSignal(body: unknown): {
  readonly signal: Signal | null;
  readonly problems: ReadonlyArray<{ readonly field: string; readonly rule: string }>;
} {
  const problems: Array<{ field: string; rule: string }> = [];
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { signal: null, problems: [{ field: 'body', rule: 'must be a JSON object {status, id, reason?}' }] };
  }
  const { status, id, reason } = body as Record<string, unknown>;
  if (status !== 'SUCCESS' && status !== 'FAILURE') {
    problems.push({
      field: 'status',
      rule: `must be SUCCESS or FAILURE, got ${String(JSON.stringify(status)).slice(0, 40)}`,
    });
  }
  const idPattern = /^[A-Za-z0-9._:-]+$/;
  if (typeof id !== 'string' || id.length === 0 || id.length > SIGNAL_LIMITS.idLength || !idPattern.test(id)) {
    problems.push({
      field: 'id',
      rule: `must be a string of 1 to ${SIGNAL_LIMITS.idLength} characters from A-Z a-z 0-9 . _ : -`,
    });
  }
  if (
    reason !== undefined &&
    reason !== null &&
    (typeof reason !== 'string' || reason.length > SIGNAL_LIMITS.reasonLength)
  ) {
    problems.push({ field: 'reason', rule: `must be a string of at most ${SIGNAL_LIMITS.reasonLength} characters` });
  }
  if (problems.length > 0) {
    return { signal: null, problems };
  }
  return {
    signal: {
      id: id as string,
      status: status as Signal['status'],
      reason: typeof reason === 'string' ? reason : null,
    },
    problems,
  };
}

/** Refuses wait conditions whose `count` or `timeout` is absurd, naming the node template and the field. */
export function assertWaitConditionSettings(
  elements: ReadonlyArray<{ readonly name: string; readonly properties?: Readonly<Record<string, unknown>> }>,
): void {
  refuseTemplateSettingProblems(
    elements.map((element) => ({
      name: element.name,
      problems: waitConditionSettingsOf(element.properties ?? {}).problems,
    })),
  );
}
