import { decideRetry, effectiveRetryPolicy, parseRetryPolicy, retryDelayMs } from './retry-policy';

const policy = { limit: 3, backoff: { durationMs: 1_000, factor: 2, maxDurationMs: 3_000 } };

describe(parseRetryPolicy.name, () => {
  it('accepts Argo CD shape and fills the backoff defaults', () => {
    expect(
      parseRetryPolicy({ limit: 2, backoff: { durationMs: 100, factor: 1.5, maxDurationMs: 400 } }, 'retryPolicy'),
    ).toEqual({ policy: { limit: 2, backoff: { durationMs: 100, factor: 1.5, maxDurationMs: 400 } }, problems: [] });
    expect(parseRetryPolicy({ limit: 1 }, 'retryPolicy').policy).toEqual({
      limit: 1,
      backoff: { durationMs: 5_000, factor: 2, maxDurationMs: 180_000 },
    });
    expect(parseRetryPolicy(undefined, 'retryPolicy')).toEqual({ policy: null, problems: [] });
  });

  it.each([
    [{ limit: -1 }, 'retryPolicy.limit', /integer from 0 to 100/],
    [{ limit: 1_000_000 }, 'retryPolicy.limit', /integer from 0 to 100/],
    [{}, 'retryPolicy.limit', /is required/],
    [{ limit: 1, backoff: { durationMs: 0 } }, 'retryPolicy.backoff.durationMs', /integer from 1/],
    [{ limit: 1, backoff: { factor: 0.5 } }, 'retryPolicy.backoff.factor', /number from 1 to 10/],
    [{ limit: 1, backoff: { factor: 1e6 } }, 'retryPolicy.backoff.factor', /number from 1 to 10/],
    [
      { limit: 1, backoff: { durationMs: 500, maxDurationMs: 100 } },
      'retryPolicy.backoff.maxDurationMs',
      /not be less/,
    ],
    [{ limit: 1, backoff: 'fast' }, 'retryPolicy.backoff', /must be an object/],
    [{ limit: 1, retries: 3 }, 'retryPolicy.retries', /not a retry policy field/],
    ['often', 'retryPolicy', /must be an object/],
  ])('refuses %j naming %s', (raw, field, rule) => {
    const { policy: parsed, problems } = parseRetryPolicy(raw, 'retryPolicy');
    expect(parsed).toBeNull();
    expect(problems).toContainEqual({ field, rule: expect.stringMatching(rule) });
  });
});

describe(retryDelayMs.name, () => {
  it('multiplies by the factor at every attempt and caps at maxDurationMs', () => {
    expect([1, 2, 3, 4].map((attempt) => retryDelayMs(policy, attempt))).toEqual([1_000, 2_000, 3_000, 3_000]);
  });
});

describe(decideRetry.name, () => {
  it('retries up to the limit, each attempt with its number, delay and due time', () => {
    expect(decideRetry(policy, 0, 10_000)).toEqual({ kind: 'RETRY', attempt: 1, delayMs: 1_000, dueAt: 11_000 });
    expect(decideRetry(policy, 2, 10_000)).toEqual({ kind: 'RETRY', attempt: 3, delayMs: 3_000, dueAt: 13_000 });
    expect(decideRetry(policy, 3, 10_000)).toEqual({ kind: 'GIVE_UP', attempts: 3 });
  });

  it('gives up at once without a policy: retries are off unless asked for', () => {
    expect(decideRetry(null, 0, 0)).toEqual({ kind: 'GIVE_UP', attempts: 0 });
  });

  it('prefers the instance policy to the definition one', () => {
    const other = { ...policy, limit: 9 };
    expect(effectiveRetryPolicy(other, policy)).toBe(other);
    expect(effectiveRetryPolicy(null, policy)).toBe(policy);
  });
});
