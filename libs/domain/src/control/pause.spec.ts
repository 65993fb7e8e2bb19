import { NOT_PAUSED, isPastDeadline as isOverdue, isPaused, pause, resume } from './pause';

describe('pause accounting', () => {
  it('does not count paused time against a deadline', () => {
    const deadlineAt = 10_000;
    const paused = pause(NOT_PAUSED, 4_000);
    expect(isPaused(paused)).toBe(true);
    // Far past the deadline while paused: not overdue.
    expect(isOverdue(deadlineAt, paused, 50_000)).toBe(false);
    const { state, shiftMs } = resume(paused, 9_000);
    expect(shiftMs).toBe(5_000);
    expect(state).toEqual({ pausedAt: null, pausedMs: 5_000 });
    expect(isOverdue(deadlineAt + shiftMs, state, 14_999)).toBe(false);
    expect(isOverdue(deadlineAt + shiftMs, state, 15_001)).toBe(true);
  });

  it('keeps the first start of a repeated pause and sums several pauses', () => {
    const once = pause(NOT_PAUSED, 1_000);
    expect(pause(once, 2_000)).toBe(once);
    const first = resume(once, 3_000).state;
    const second = resume(pause(first, 10_000), 10_500);
    expect(second).toEqual({ state: { pausedAt: null, pausedMs: 2_500 }, shiftMs: 500 });
  });

  it('resume without a pause moves nothing', () => {
    expect(resume(NOT_PAUSED, 5)).toEqual({ state: NOT_PAUSED, shiftMs: 0 });
  });
});
