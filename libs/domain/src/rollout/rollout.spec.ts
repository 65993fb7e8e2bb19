import { DomainError } from '../errors';
import { isRefusal } from '../refusal';
import type { Rollout, RolloutInput, RolloutStep } from './rollout';
import { decideRollout, newRollout, parseRolloutRequest } from './rollout';

const COMPOSITION = '11111111-1111-4111-8111-111111111111';
const ids = (count: number): string[] =>
  Array.from({ length: count }, (_, index) => `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`);

function rolloutOf(count: number, strategy: Record<string, unknown>): Rollout {
  const request = parseRolloutRequest({ order: 'DEPLOY', compositionId: COMPOSITION, strategy });
  return newRollout('r-1', request, ids(count), 1_000);
}

function step(rollout: Rollout, input: RolloutInput): RolloutStep {
  const decision = decideRollout(rollout, input);
  if (isRefusal(decision)) {
    throw new Error(`refused: ${decision.message}`);
  }
  return decision;
}

function validationMessage(body: unknown): string {
  try {
    parseRolloutRequest(body);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe('VALIDATION_FAILED');
    return (error as DomainError).message;
  }
  throw new Error('accepted');
}

describe('parseRolloutRequest', () => {
  const valid = { order: 'DEPLOY', compositionId: COMPOSITION, strategy: { batchSize: 2 } };

  it('reads a request with defaults: threshold 0, pause on failure, every instance of the composition', () => {
    expect(parseRolloutRequest(valid)).toEqual({
      order: 'DEPLOY',
      compositionId: COMPOSITION,
      instanceIds: null,
      strategy: { batchSize: { kind: 'count', count: 2 }, failureThreshold: 0, onFailure: 'pause' },
    });
    expect(parseRolloutRequest({ ...valid, strategy: { batchSize: '25%', onFailure: 'continue' } }).strategy).toEqual({
      batchSize: { kind: 'percent', percent: 25 },
      failureThreshold: 0,
      onFailure: 'continue',
    });
  });

  it.each([
    [{ ...valid, order: 'MIGRATE' }, /^order: must be one of DEPLOY, UNDEPLOY, LOCK, UNLOCK/],
    [{ ...valid, compositionId: 'x' }, /^compositionId: must be a uuid/],
    [{ ...valid, instanceIds: [] }, /^instanceIds: the selection is empty/],
    [{ ...valid, instanceIds: [ids(1)[0], ids(1)[0]] }, /^instanceIds\[1\]: .* selected twice/],
    [{ ...valid, strategy: { batchSize: 0 } }, /^strategy.batchSize: must be a whole number .* at least 1/],
    [{ ...valid, strategy: { batchSize: '101%' } }, /^strategy.batchSize: a percentage must be from 1% to 100%/],
    [{ ...valid, strategy: { batchSize: '0%' } }, /^strategy.batchSize: a percentage must be from 1% to 100%/],
    [
      { ...valid, strategy: { batchSize: 2, failureThreshold: 3 } },
      /^strategy.failureThreshold: 3 is above the batch size 2/,
    ],
    [
      { ...valid, strategy: { batchSize: 2, onFailure: 'rollback' } },
      /^strategy.onFailure: must be one of pause, continue/,
    ],
    [{ ...valid, strategy: undefined }, /^strategy: is required/],
  ])('refuses %j naming the field and the rule', (body, message) => {
    expect(validationMessage(body)).toMatch(message);
  });

  it('refuses an empty resolved selection and a threshold above a percentage batch', () => {
    const request = parseRolloutRequest({ ...valid, strategy: { batchSize: '10%', failureThreshold: 2 } });
    expect(() => newRollout('r', request, [], 0)).toThrow(/^compositionId: the selection is empty/);
    expect(() => newRollout('r', request, ids(10), 0)).toThrow(
      /^strategy.failureThreshold: 2 is above the batch size 1/,
    );
  });
});

describe('decideRollout', () => {
  it('splits the selection into batches in the order given and orders the first batch on START', () => {
    const created = rolloutOf(5, { batchSize: 2 });
    expect(created.batchCount).toBe(3);
    expect(created.instances.map((item) => item.batch)).toEqual([0, 0, 1, 1, 2]);
    const started = step(created, { kind: 'START' });
    expect(started.orders).toEqual(ids(2));
    expect(started.rollout.instances.map((item) => item.state)).toEqual([
      'ORDERED',
      'ORDERED',
      'PENDING',
      'PENDING',
      'PENDING',
    ]);
    expect(step(started.rollout, { kind: 'START' }).orders).toEqual([]);
  });

  it('starts the next batch only when every instance of the current one ended, and completes after the last', () => {
    const [a, b, c] = ids(3) as [string, string, string];
    let rollout = step(rolloutOf(3, { batchSize: 2 }), { kind: 'START' }).rollout;
    let next = step(rollout, { kind: 'OPERATION_ENDED', instanceId: a, outcome: 'DONE' });
    expect(next.orders).toEqual([]);
    next = step(next.rollout, { kind: 'OPERATION_ENDED', instanceId: b, outcome: 'DONE' });
    expect(next.orders).toEqual([c]);
    rollout = step(next.rollout, { kind: 'OPERATION_ENDED', instanceId: c, outcome: 'DONE' }).rollout;
    expect(rollout.state).toBe('COMPLETED');
    expect(rollout.instances.every((item) => item.state === 'DONE')).toBe(true);
  });

  it('ignores an outcome of an instance it did not order, or already recorded', () => {
    const [a, , c] = ids(3) as [string, string, string];
    const started = step(rolloutOf(3, { batchSize: 2 }), { kind: 'START' }).rollout;
    expect(step(started, { kind: 'OPERATION_ENDED', instanceId: c, outcome: 'DONE' }).rollout).toBe(started);
    const once = step(started, { kind: 'OPERATION_ENDED', instanceId: a, outcome: 'FAILED', reason: 'x' }).rollout;
    expect(step(once, { kind: 'OPERATION_ENDED', instanceId: a, outcome: 'DONE' }).rollout).toBe(once);
  });

  it('pauses a batch over the threshold with onFailure pause; resume goes on and the rollout ends FAILED', () => {
    const [a, b, c] = ids(3) as [string, string, string];
    let rollout = step(rolloutOf(3, { batchSize: 2, failureThreshold: 0 }), { kind: 'START' }).rollout;
    rollout = step(rollout, { kind: 'OPERATION_ENDED', instanceId: a, outcome: 'FAILED', reason: 'boom' }).rollout;
    const paused = step(rollout, { kind: 'OPERATION_ENDED', instanceId: b, outcome: 'DONE' });
    expect(paused.orders).toEqual([]);
    expect(paused.rollout.state).toBe('PAUSED');
    expect(paused.rollout.reason).toBe('batch 1 had 1 failures, over the threshold 0');
    const resumed = step(paused.rollout, { kind: 'RESUME' });
    expect(resumed.orders).toEqual([c]);
    const ended = step(resumed.rollout, { kind: 'OPERATION_ENDED', instanceId: c, outcome: 'DONE' }).rollout;
    expect(ended.state).toBe('FAILED');
    expect(ended.reason).toBe('batches over the failure threshold: 1');
  });

  it('goes on past a failing batch with onFailure continue, and tolerates failures within the threshold', () => {
    const [a, b, c] = ids(3) as [string, string, string];
    let rollout = step(rolloutOf(3, { batchSize: 2, failureThreshold: 1, onFailure: 'continue' }), {
      kind: 'START',
    }).rollout;
    rollout = step(rollout, { kind: 'ORDER_REFUSED', instanceId: a, reason: 'not allowed' }).rollout;
    const next = step(rollout, { kind: 'OPERATION_ENDED', instanceId: b, outcome: 'DONE' });
    expect(next.orders).toEqual([c]);
    const ended = step(next.rollout, { kind: 'OPERATION_ENDED', instanceId: c, outcome: 'DONE' }).rollout;
    expect(ended.state).toBe('COMPLETED');
    expect(ended.instances[0]).toMatchObject({ state: 'REFUSED', reason: 'not allowed' });
  });

  it('holds the next batch while paused by request and starts it on resume', () => {
    const [a, b, c] = ids(3) as [string, string, string];
    let rollout = step(rolloutOf(3, { batchSize: 2 }), { kind: 'START' }).rollout;
    rollout = step(rollout, { kind: 'PAUSE' }).rollout;
    rollout = step(rollout, { kind: 'OPERATION_ENDED', instanceId: a, outcome: 'DONE' }).rollout;
    const held = step(rollout, { kind: 'OPERATION_ENDED', instanceId: b, outcome: 'DONE' });
    expect(held.orders).toEqual([]);
    expect(held.rollout.state).toBe('PAUSED');
    expect(step(held.rollout, { kind: 'RESUME' }).orders).toEqual([c]);
  });

  it('cancels: no batch starts after it, outcomes of instances in flight are still recorded', () => {
    const [a, b] = ids(3) as [string, string, string];
    let rollout = step(rolloutOf(3, { batchSize: 2 }), { kind: 'START' }).rollout;
    rollout = step(rollout, { kind: 'CANCEL' }).rollout;
    expect(rollout.state).toBe('CANCELLED');
    rollout = step(rollout, { kind: 'OPERATION_ENDED', instanceId: a, outcome: 'DONE' }).rollout;
    const after = step(rollout, { kind: 'OPERATION_ENDED', instanceId: b, outcome: 'DONE' });
    expect(after.orders).toEqual([]);
    expect(after.rollout.state).toBe('CANCELLED');
    expect(after.rollout.instances.map((item) => item.state)).toEqual(['DONE', 'DONE', 'PENDING']);
  });

  it('refuses pause, resume and cancel the state does not allow, naming the state', () => {
    const started = step(rolloutOf(2, { batchSize: 2 }), { kind: 'START' }).rollout;
    const resume = decideRollout(started, { kind: 'RESUME' });
    expect(isRefusal(resume) && resume.message).toBe('Rollout r-1 is RUNNING: resume is allowed only when PAUSED');
    const cancelled = step(started, { kind: 'CANCEL' }).rollout;
    expect(isRefusal(decideRollout(cancelled, { kind: 'PAUSE' }))).toBe(true);
    expect(isRefusal(decideRollout(cancelled, { kind: 'CANCEL' }))).toBe(true);
  });
});
