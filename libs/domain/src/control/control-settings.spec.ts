import { assertControlSettings, controlSettingProblems } from './control-settings';

describe(assertControlSettings.name, () => {
  it('accepts metadata without control settings or with sound ones', () => {
    expect(() => assertControlSettings(null, 'metadata')).not.toThrow();
    expect(() =>
      assertControlSettings({ maxWaitMs: 1000, maxRetryCount: 2, retryPolicy: { limit: 1 }, other: 'x' }, 'metadata'),
    ).not.toThrow();
  });

  it('refuses absurd values with VALIDATION_FAILED, one line per field and rule', () => {
    expect(() =>
      assertControlSettings({ maxWaitMs: -5, retryPolicy: { limit: 3, backoff: { factor: 1e6 } } }, 'metadata'),
    ).toThrow(
      expect.objectContaining({
        code: 'VALIDATION_FAILED',
        message:
          'metadata.maxWaitMs: must be an integer from 0 to 86400000, got -5\n' +
          'metadata.retryPolicy.backoff.factor: must be a number from 1 to 10, got 1000000',
      }),
    );
    expect(controlSettingProblems({ retryPolicy: { limit: -1 } }, 'metadata')).toEqual([
      { field: 'metadata.retryPolicy.limit', rule: 'must be an integer from 0 to 100, got -1' },
    ]);
  });
});
