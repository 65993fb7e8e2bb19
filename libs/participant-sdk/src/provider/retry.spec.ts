import { ManualTimers } from '../testing/scripted-runtime';
import { ResourceClientError } from './resource-client';
import { DEFAULT_RESOURCE_RETRY_POLICY, ResourceCallFailedError, retryDelaysMs, withRetry } from './retry';

/** Lets pending promise callbacks run until `condition` holds (bounded: no clock involved). */
async function until(condition: () => boolean): Promise<void> {
  for (let turn = 0; turn < 1000 && !condition(); turn += 1) {
    await new Promise((resolve) => setImmediate(resolve));
  }
  expect(condition()).toBe(true);
}

/** A call that throws the given errors in turn, then answers "ok". */
function scripted(errors: Error[]): { action: () => Promise<string>; calls: () => number } {
  let calls = 0;
  return {
    action: () => {
      const error = errors[calls];
      calls += 1;
      return error === undefined ? Promise.resolve('ok') : Promise.reject(error);
    },
    calls: () => calls,
  };
}

describe(withRetry.name, () => {
  it('waits 2 s, 4 s and 8 s between calls by default', () => {
    expect(retryDelaysMs(DEFAULT_RESOURCE_RETRY_POLICY)).toEqual([2000, 4000, 8000]);
    expect(retryDelaysMs({ retries: 2, baseDelayMs: 100 })).toEqual([100, 200]);
  });

  it.each<[number, 'read' | 'write']>([
    [429, 'write'],
    [502, 'write'],
    [503, 'read'],
    [504, 'write'],
    [401, 'read'],
  ])('retries status %p on a %s with growing waits, on the SDK timers', async (status, kind) => {
    const timers = new ManualTimers();
    const call = scripted([new ResourceClientError('busy', status), new ResourceClientError('busy', status)]);
    const result = withRetry('create(db)', kind, call.action, { policy: DEFAULT_RESOURCE_RETRY_POLICY, timers });

    await until(() => timers.active === 1);
    expect(timers.periods).toEqual([2000]);
    timers.tick();
    await until(() => call.calls() === 2 && timers.active === 1);
    expect(timers.periods).toEqual([4000]);
    timers.tick();

    await expect(result).resolves.toBe('ok');
    expect(call.calls()).toBe(3);
    expect(timers.active).toBe(0);
  });

  it.each<[string, Error, 'read' | 'write']>([
    ['401 on a write', new ResourceClientError('expired', 401), 'write'],
    ['400', new ResourceClientError('bad spec', 400), 'write'],
    ['500', new ResourceClientError('bug', 500), 'read'],
    ['an error without a status', new Error('socket hang up'), 'read'],
  ])('does not retry %s', async (_, error, kind) => {
    const timers = new ManualTimers();
    const call = scripted([error]);
    const result = withRetry('update(db)', kind, call.action, { policy: DEFAULT_RESOURCE_RETRY_POLICY, timers });
    await expect(result).rejects.toBeInstanceOf(ResourceCallFailedError);
    expect(call.calls()).toBe(1);
    expect(timers.active).toBe(0);
  });

  it('asks isTransient, when given, which errors to retry (a refused connection has no status)', async () => {
    const timers = new ManualTimers();
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const call = scripted([refused, new ResourceClientError('bug', 500)]);
    const isTransient = (error: unknown): boolean => (error as { code?: string }).code === 'ECONNREFUSED';
    const result = withRetry('GET /x', 'read', call.action, {
      policy: DEFAULT_RESOURCE_RETRY_POLICY,
      timers,
      isTransient,
    });
    await until(() => timers.active === 1);
    timers.tick();
    await expect(result).rejects.toThrow('GET /x failed after 2 attempts (status 500): bug');
    expect(call.calls()).toBe(2);
  });

  it('gives up after the last retry, naming the call, the attempts and the last error', async () => {
    const timers = new ManualTimers();
    const unavailable = new ResourceClientError('Service Unavailable', 503);
    const call = scripted([unavailable, unavailable, unavailable, unavailable]);
    const result = withRetry('getState(db)', 'read', call.action, { policy: DEFAULT_RESOURCE_RETRY_POLICY, timers });
    const periods: number[] = [];
    for (let wait = 0; wait < 3; wait += 1) {
      await until(() => timers.active === 1);
      periods.push(...timers.periods);
      timers.tick();
    }
    await expect(result).rejects.toThrow('getState(db) failed after 4 attempts (status 503): Service Unavailable');
    expect(periods).toEqual([2000, 4000, 8000]);
    expect(call.calls()).toBe(4);
  });

  it('stops waiting when the operation is cancelled', async () => {
    const timers = new ManualTimers();
    const abort = new AbortController();
    const call = scripted([new ResourceClientError('busy', 503)]);
    const result = withRetry('resume(db)', 'write', call.action, {
      policy: DEFAULT_RESOURCE_RETRY_POLICY,
      timers,
      signal: abort.signal,
    });
    await until(() => timers.active === 1);
    abort.abort();
    await expect(result).rejects.toThrow('resume(db) failed after 1 attempt (status 503): busy');
    expect(call.calls()).toBe(1);
    expect(timers.active).toBe(0);
  });
});
