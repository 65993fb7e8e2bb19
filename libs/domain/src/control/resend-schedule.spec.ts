import { DEFAULT_RESEND_SETTINGS, decideResend, resendDelayMs, resendSettingsOf } from './resend-schedule';

const settings = { maxWaitMs: 1_000, maxRetryCount: 3 };

describe(decideResend.name, () => {
  it('waits until maxWaitMs of silence, then resends with the delay doubling at every attempt', () => {
    expect(decideResend(settings, { lastProgressAt: 0, resentSoFar: 0 }, 999)).toEqual({ kind: 'WAIT', dueAt: 1_000 });
    expect(decideResend(settings, { lastProgressAt: 0, resentSoFar: 0 }, 1_000)).toEqual({
      kind: 'RESEND',
      attempt: 1,
      nextDueAt: 3_000,
    });
    // The second resend waits 2 s after the first one left (the first resend is the last progress).
    expect(decideResend(settings, { lastProgressAt: 1_000, resentSoFar: 1 }, 2_999)).toEqual({
      kind: 'WAIT',
      dueAt: 3_000,
    });
    expect(decideResend(settings, { lastProgressAt: 1_000, resentSoFar: 1 }, 3_000)).toMatchObject({
      kind: 'RESEND',
      attempt: 2,
    });
    expect(decideResend(settings, { lastProgressAt: 3_000, resentSoFar: 2 }, 7_000)).toEqual({
      kind: 'RESEND',
      attempt: 3,
      nextDueAt: null,
    });
  });

  it('stops after maxRetryCount resends: only the deadline is left', () => {
    expect(decideResend(settings, { lastProgressAt: 0, resentSoFar: 3 }, 1e9)).toEqual({ kind: 'EXHAUSTED' });
  });

  it('is off when maxWaitMs or maxRetryCount is 0', () => {
    expect(decideResend({ maxWaitMs: 0, maxRetryCount: 3 }, { lastProgressAt: 0, resentSoFar: 0 }, 1e9)).toEqual({
      kind: 'OFF',
    });
    expect(decideResend({ maxWaitMs: 10, maxRetryCount: 0 }, { lastProgressAt: 0, resentSoFar: 0 }, 1e9)).toEqual({
      kind: 'OFF',
    });
  });

  it('fits the three default resends inside ONAP default operation deadline (200 s)', () => {
    const total = [1, 2, 3].reduce((sum, attempt) => sum + resendDelayMs(DEFAULT_RESEND_SETTINGS, attempt), 0);
    expect(total).toBe(140_000);
    expect(total).toBeLessThan(200_000);
  });
});

describe(resendSettingsOf.name, () => {
  it('takes a definition override over the runtime defaults, strings of digits included', () => {
    expect(resendSettingsOf({ maxWaitMs: 500, maxRetryCount: '5' }, settings)).toEqual({
      settings: { maxWaitMs: 500, maxRetryCount: 5 },
      problems: [],
    });
    expect(resendSettingsOf(null, settings).settings).toEqual(settings);
  });

  it.each([
    [{ maxWaitMs: -1 }, 'metadata.maxWaitMs'],
    [{ maxWaitMs: 1.5 }, 'metadata.maxWaitMs'],
    [{ maxRetryCount: 1_000 }, 'metadata.maxRetryCount'],
    [{ maxRetryCount: 'many' }, 'metadata.maxRetryCount'],
  ])('refuses %j naming %s', (metadata, field) => {
    const { settings: kept, problems } = resendSettingsOf(metadata, settings);
    expect(problems).toEqual([{ field, rule: expect.stringMatching(/^must be an integer from \d+ to \d+/) }]);
    expect(kept).toEqual(settings);
  });
});
