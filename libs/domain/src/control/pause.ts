/**
 * Pause accounting: a paused operation dispatches nothing new, and the time it spends paused does not count
 * against its deadlines (the hard one and the resend and no-progress clocks): on resume every clock moves by
 * the pause's length.
 */
export interface PauseState {
  /** Epoch ms of the pause in progress, null when running. */
  readonly pausedAt: number | null;
  /** Paused time already over, summed. */
  readonly pausedMs: number;
}

export const NOT_PAUSED: PauseState = { pausedAt: null, pausedMs: 0 };

export function isPaused(state: PauseState): boolean {
  return state.pausedAt !== null;
}

/** Pausing an already paused operation changes nothing (the first pause's start is kept). */
export function pause(state: PauseState, now: number): PauseState {
  return state.pausedAt !== null ? state : { ...state, pausedAt: now };
}

/** Ends the pause; `shiftMs` is how far every deadline of the operation moves. */
export function resume(state: PauseState, now: number): { readonly state: PauseState; readonly shiftMs: number } {
  if (state.pausedAt === null) {
    return { state, shiftMs: 0 };
  }
  const shiftMs = Math.max(0, now - state.pausedAt);
  return { state: { pausedAt: null, pausedMs: state.pausedMs + shiftMs }, shiftMs };
}

/**
 * Whether a deadline has passed at `now`, not counting a pause in progress: a paused operation is never
 * overdue (its deadline moves when it resumes).
 */
export function isPastDeadline(deadlineAt: number, state: PauseState, now: number): boolean {
  return state.pausedAt === null && now > deadlineAt;
}
