import { WAITING, applySignal, isWaitConditionOverdue, waitConditionSettingsOf } from './wait-condition';

const two = { count: 2, timeoutMs: 1_000 };

describe(applySignal.name, () => {
  it('counts SUCCESS signals until count, ignoring a duplicated id', () => {
    const first = applySignal(two, WAITING, { id: 's1', status: 'SUCCESS', reason: null });
    expect(first.effect).toBe('COUNTED');
    const duplicate = applySignal(two, first.state, { id: 's1', status: 'SUCCESS', reason: null });
    expect(duplicate).toEqual({ state: first.state, effect: 'DUPLICATE' });
    const second = applySignal(two, duplicate.state, { id: 's2', status: 'SUCCESS', reason: 'checked' });
    expect(second.effect).toBe('COMPLETED');
    expect(second.state).toEqual({ signalIds: ['s1', 's2'], successes: 2, outcome: 'COMPLETED' });
    expect(applySignal(two, second.state, { id: 's3', status: 'FAILURE', reason: null }).effect).toBe('ALREADY_DONE');
  });

  it('fails on a FAILURE signal', () => {
    expect(applySignal(two, WAITING, { id: 'f', status: 'FAILURE', reason: 'no' })).toEqual({
      state: { signalIds: ['f'], successes: 0, outcome: 'FAILED' },
      effect: 'FAILED',
    });
  });

  it('times out at its own timeout from dispatch while waiting', () => {
    expect(isWaitConditionOverdue(two, WAITING, 100, 1_099)).toBe(false);
    expect(isWaitConditionOverdue(two, WAITING, 100, 1_100)).toBe(true);
    expect(isWaitConditionOverdue({ count: 1, timeoutMs: null }, WAITING, 0, 1e12)).toBe(false);
  });
});

describe(waitConditionSettingsOf.name, () => {
  it('reads count and timeout (seconds) with defaults, naming bad fields', () => {
    expect(waitConditionSettingsOf({}).settings).toEqual({ count: 1, timeoutMs: null });
    expect(waitConditionSettingsOf({ count: 3, timeout: 60 }).settings).toEqual({ count: 3, timeoutMs: 60_000 });
    expect(waitConditionSettingsOf({ count: 0, timeout: -1 }).problems.map((p) => p.field)).toEqual([
      'properties.count',
      'properties.timeout',
    ]);
  });
});
