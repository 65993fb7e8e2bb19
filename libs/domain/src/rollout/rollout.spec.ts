import { DomainError } from '../errors';
import { isRefusal } from '../refusal';
import type { Rollout, RolloutInput, RolloutStep } from './rollout';
import { bakeHealthVerdict, decideRollout, newRollout, parseRolloutRequest } from './rollout';

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
      filter: null,
      compositionTargetId: null,
      patch: null,
      strategy: {
        batchSize: { kind: 'count', count: 2 },
        maxInFlight: null,
        failureThreshold: { kind: 'count', count: 0 },
        totalFailureThreshold: null,
        onFailure: 'pause',
        rollbackAll: false,
        canary: null,
        pauseBetweenBatches: 0,
        batchBy: null,
        batchOrder: [],
        skipRefused: false,
        bakeTime: 0,
      },
    });
    expect(
      parseRolloutRequest({ ...valid, strategy: { batchSize: '25%', onFailure: 'continue', failureThreshold: '10%' } })
        .strategy,
    ).toMatchObject({
      batchSize: { kind: 'percent', percent: 25 },
      failureThreshold: { kind: 'percent', percent: 10 },
      onFailure: 'continue',
    });
  });

  it.each([
    [{ ...valid, order: 'PRIME' }, /^order: must be one of DEPLOY, UNDEPLOY, LOCK, UNLOCK, UPDATE, MIGRATE/],
    [{ ...valid, order: 'MIGRATE' }, /^compositionTargetId: MIGRATE needs the target composition's uuid/],
    [{ ...valid, compositionTargetId: COMPOSITION }, /^compositionTargetId: only MIGRATE takes a target/],
    [{ ...valid, order: 'UPDATE' }, /^update: UPDATE needs \{ "elements"/],
    [
      { ...valid, order: 'UPDATE', update: { elements: { Db: {} } } },
      /^update.elements.Db: must be an object of at least one/,
    ],
    [{ ...valid, update: { elements: { Db: { a: 1 } } } }, /^update: only UPDATE takes a property patch/],
    [
      { ...valid, strategy: { batchSize: 2, failureThreshold: '101%' } },
      /^strategy.failureThreshold: a percentage must be from 0% to 100%/,
    ],
    [
      { ...valid, strategy: { batchSize: 2, totalFailureThreshold: '150%' } },
      /^strategy.totalFailureThreshold: a percentage/,
    ],
    [
      { ...valid, strategy: { batchSize: 2, failureThreshold: -1 } },
      /^strategy.failureThreshold: must be a whole number of failures per batch/,
    ],
    [
      { ...valid, strategy: { batchSize: 2, maxInFlight: 0 } },
      /^strategy.maxInFlight: must be a whole number of instances in flight from 1/,
    ],
    [
      { ...valid, strategy: { batchSize: 2, canary: 0 } },
      /^strategy.canary: must be a whole number of instances from 1/,
    ],
    [
      { ...valid, strategy: { batchSize: 2, pauseBetweenBatches: -5 } },
      /^strategy.pauseBetweenBatches: must be a whole number of milliseconds/,
    ],
    [
      { ...valid, strategy: { batchSize: 2, rollbackAll: true } },
      /^strategy.rollbackAll: applies only with onFailure rollback/,
    ],
    [{ ...valid, strategy: { batchSize: 2, batchOrder: ['dev'] } }, /^strategy.batchOrder: needs strategy.batchBy/],
    [
      { ...valid, strategy: { batchSize: 2, batchBy: 'site' } },
      /^strategy.batchOrder: with batchBy, must list the values of metadata.site/,
    ],
    [
      { ...valid, strategy: { batchSize: 2, batchBy: 'site', batchOrder: ['a', 'a'] } },
      /^strategy.batchOrder\[1\]: "a" is listed twice/,
    ],
    [{ ...valid, strategy: { batchSize: 2, skipRefused: 'yes' } }, /^strategy.skipRefused: must be true or false/],
    [
      { ...valid, strategy: { batchSize: 2, bakeTime: 1.5 } },
      /^strategy.bakeTime: must be a whole number of seconds from 0 to 86400, got 1.5/,
    ],
    [{ ...valid, strategy: { batchSize: 2, bakeTime: -1 } }, /^strategy.bakeTime: must be a whole number of seconds/],
    [
      { ...valid, strategy: { batchSize: 2, bakeTime: 86_401 } },
      /^strategy.bakeTime: must be a whole number of seconds from 0 to 86400/,
    ],
    [{ ...valid, strategy: { batchSize: 2, bakeTime: '30' } }, /^strategy.bakeTime: must be a whole number/],
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
      { ...valid, strategy: { batchSize: 2, onFailure: 'undo' } },
      /^strategy.onFailure: must be one of pause, continue, rollback/,
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

  it('never has more than maxInFlight instances in flight, and fills the batch as instances end', () => {
    const [a, b, c, d] = ids(4) as [string, string, string, string];
    const started = step(rolloutOf(4, { batchSize: 3, maxInFlight: 2 }), { kind: 'START' });
    expect(started.orders).toEqual([a, b]);
    const next = step(started.rollout, { kind: 'OPERATION_ENDED', instanceId: a, outcome: 'DONE' });
    expect(next.orders).toEqual([c]);
    let rollout = step(next.rollout, { kind: 'OPERATION_ENDED', instanceId: b, outcome: 'DONE' }).rollout;
    const last = step(rollout, { kind: 'OPERATION_ENDED', instanceId: c, outcome: 'DONE' });
    expect(last.orders).toEqual([d]);
    rollout = step(last.rollout, { kind: 'OPERATION_ENDED', instanceId: d, outcome: 'DONE' }).rollout;
    expect(rollout.state).toBe('COMPLETED');
  });

  it('judges a percentage threshold on the batch size, and a total threshold over the rollout', () => {
    const all = ids(6);
    // 50% of a batch of 2 allows 1 failure per batch; the total allows 1.
    let rollout = step(
      rolloutOf(6, { batchSize: 2, failureThreshold: '50%', totalFailureThreshold: 1, onFailure: 'continue' }),
      { kind: 'START' },
    ).rollout;
    rollout = step(rollout, { kind: 'OPERATION_ENDED', instanceId: all[0]!, outcome: 'FAILED' }).rollout;
    const second = step(rollout, { kind: 'OPERATION_ENDED', instanceId: all[1]!, outcome: 'DONE' });
    expect(second.orders).toEqual([all[2], all[3]]);
    rollout = step(second.rollout, { kind: 'OPERATION_ENDED', instanceId: all[2]!, outcome: 'FAILED' }).rollout;
    const stopped = step(rollout, { kind: 'OPERATION_ENDED', instanceId: all[3]!, outcome: 'DONE' });
    expect(stopped.orders).toEqual([]);
    expect(stopped.rollout.state).toBe('FAILED');
    expect(stopped.rollout.reason).toBe('the rollout had 2 failures, over the total threshold 1');
    expect(stopped.rollout.instances.slice(4).map((item) => item.state)).toEqual(['PENDING', 'PENDING']);
  });

  it('stops ordering a batch over its threshold, and rolls back its completed instances with onFailure rollback', () => {
    const [a, b, c, d, e] = ids(5) as [string, string, string, string, string];
    let rollout = step(rolloutOf(5, { batchSize: 2, maxInFlight: 1, onFailure: 'rollback' }), {
      kind: 'START',
    }).rollout;
    rollout = step(rollout, { kind: 'OPERATION_ENDED', instanceId: a, outcome: 'DONE' }).rollout;
    rollout = step(rollout, { kind: 'OPERATION_ENDED', instanceId: b, outcome: 'DONE' }).rollout;
    // batch 2: c fails, so d is never ordered; c's batch has nothing DONE to roll back: FAILED at once
    const failed = step(rollout, { kind: 'OPERATION_ENDED', instanceId: c, outcome: 'FAILED', reason: 'boom' });
    expect(failed.orders).toEqual([]);
    expect(failed.rollbacks).toEqual([]);
    expect(failed.rollout.state).toBe('FAILED');
    expect(failed.rollout.reason).toBe('batch 2 had 1 failures, over the threshold 0; rolled back');
    expect(failed.rollout.instances.map((item) => item.state)).toEqual([
      'DONE',
      'DONE',
      'FAILED',
      'PENDING',
      'PENDING',
    ]);
    expect(e).toBeDefined();
    void d;
  });

  it('rolls back the failing batch, then with rollbackAll the batches before it, newest first, within maxInFlight', () => {
    const all = ids(6);
    const start = (rollbackAll: boolean): Rollout =>
      step(rolloutOf(6, { batchSize: 3, failureThreshold: 1, maxInFlight: 2, onFailure: 'rollback', rollbackAll }), {
        kind: 'START',
      }).rollout;
    const endBatches = (rollout: Rollout): RolloutStep => {
      let current = rollout;
      for (const id of all.slice(0, 3)) {
        current = step(current, { kind: 'OPERATION_ENDED', instanceId: id, outcome: 'DONE' }).rollout;
      }
      current = step(current, { kind: 'OPERATION_ENDED', instanceId: all[3]!, outcome: 'FAILED' }).rollout;
      current = step(current, { kind: 'OPERATION_ENDED', instanceId: all[4]!, outcome: 'DONE' }).rollout;
      return step(current, { kind: 'OPERATION_ENDED', instanceId: all[5]!, outcome: 'FAILED' });
    };
    const only = endBatches(start(false));
    expect(only.rollout.state).toBe('ROLLING_BACK');
    expect(only.rollbacks).toEqual([all[4]]);
    const onlyDone = step(only.rollout, { kind: 'OPERATION_ENDED', instanceId: all[4]!, outcome: 'DONE' }).rollout;
    expect(onlyDone.state).toBe('FAILED');
    expect(onlyDone.instances.map((item) => item.state)).toEqual([
      'DONE',
      'DONE',
      'DONE',
      'FAILED',
      'ROLLED_BACK',
      'FAILED',
    ]);

    const every = endBatches(start(true));
    expect(every.rollbacks).toEqual([all[4]]);
    const batchOne = step(every.rollout, { kind: 'OPERATION_ENDED', instanceId: all[4]!, outcome: 'DONE' });
    expect(batchOne.rollbacks).toEqual([all[0], all[1]]);
    let rollout = step(batchOne.rollout, { kind: 'OPERATION_ENDED', instanceId: all[0]!, outcome: 'FAILED' });
    expect(rollout.rollbacks).toEqual([all[2]]);
    rollout = step(rollout.rollout, { kind: 'OPERATION_ENDED', instanceId: all[1]!, outcome: 'DONE' });
    rollout = step(rollout.rollout, { kind: 'OPERATION_ENDED', instanceId: all[2]!, outcome: 'DONE' });
    expect(rollout.rollout.state).toBe('FAILED');
    expect(rollout.rollout.reason).toBe(
      'batch 2 had 2 failures, over the threshold 1; rolled back, 1 rollback(s) failed',
    );
    expect(rollout.rollout.instances.map((item) => item.state)).toEqual([
      'ROLLBACK_FAILED',
      'ROLLED_BACK',
      'ROLLED_BACK',
      'FAILED',
      'ROLLED_BACK',
      'FAILED',
    ]);
  });

  it('waits for promote after a successful canary batch', () => {
    const all = ids(5);
    const started = step(rolloutOf(5, { batchSize: 2, canary: 1 }), { kind: 'START' });
    expect(started.rollout.batchCount).toBe(3);
    expect(started.orders).toEqual([all[0]]);
    const canary = step(started.rollout, { kind: 'OPERATION_ENDED', instanceId: all[0]!, outcome: 'DONE' });
    expect(canary.orders).toEqual([]);
    expect(canary.rollout.state).toBe('WAITING_PROMOTION');
    expect(isRefusal(decideRollout(canary.rollout, { kind: 'RESUME' }))).toBe(true);
    const promoted = step(canary.rollout, { kind: 'PROMOTE' });
    expect(promoted.rollout.state).toBe('RUNNING');
    expect(promoted.orders).toEqual([all[1], all[2]]);
    const again = decideRollout(promoted.rollout, { kind: 'PROMOTE' });
    expect(isRefusal(again) && again.message).toBe(
      'Rollout r-1 is RUNNING: promote is allowed only when WAITING_PROMOTION',
    );
  });

  it('answers when the next batch is due after pauseBetweenBatches and starts it only at that time', () => {
    const [a, b] = ids(2) as [string, string];
    const started = step(rolloutOf(2, { batchSize: 1, pauseBetweenBatches: 5_000 }), { kind: 'START' });
    const ended = decideRollout(started.rollout, { kind: 'OPERATION_ENDED', instanceId: a, outcome: 'DONE' }, 10_000);
    if (isRefusal(ended)) {
      throw new Error('refused');
    }
    expect(ended.orders).toEqual([]);
    expect(ended.dueAt).toBe(15_000);
    const early = decideRollout(ended.rollout, { kind: 'TICK' }, 14_999);
    expect(!isRefusal(early) && early.orders).toEqual([]);
    const due = decideRollout(ended.rollout, { kind: 'TICK' }, 15_000);
    expect(!isRefusal(due) && due.orders).toEqual([b]);
  });

  it('orders batches by a metadata key in batchOrder, never mixing groups, and refuses other values', () => {
    const all = ids(5);
    const request = parseRolloutRequest({
      order: 'DEPLOY',
      compositionId: COMPOSITION,
      strategy: { batchSize: 2, batchBy: 'site', batchOrder: ['dev', 'prod'], skipRefused: true },
    });
    const sites = ['prod', 'dev', 'prod', 'lab', 'dev'];
    const rollout = newRollout(
      'r',
      request,
      all.map((instanceId, index) => ({ instanceId, metadata: { site: sites[index] }, refusal: null })),
      0,
    );
    expect(rollout.instances.map((item) => [item.instanceId, item.batch])).toEqual([
      [all[1], 0],
      [all[4], 0],
      [all[0], 1],
      [all[2], 1],
    ]);
    expect(rollout.refused).toEqual([
      { instanceId: all[3], reason: 'metadata.site is "lab", not in strategy.batchOrder' },
    ]);
  });

  it('refuses a selection with instances that refuse the order unless skipRefused, listing each', () => {
    const all = ids(2);
    const selection = [
      { instanceId: all[0]!, metadata: null, refusal: null },
      { instanceId: all[1]!, metadata: null, refusal: 'it is DEPLOYED' },
    ];
    const strict = parseRolloutRequest({ order: 'DEPLOY', compositionId: COMPOSITION, strategy: { batchSize: 1 } });
    expect(() => newRollout('r', strict, selection, 0)).toThrow(
      `order: DEPLOY is refused for 1 selected instance(s): ${all[1]}: it is DEPLOYED; set strategy.skipRefused to start without them`,
    );
    const lenient = { ...strict, strategy: { ...strict.strategy, skipRefused: true } };
    expect(newRollout('r', lenient, selection, 0).instances.map((item) => item.instanceId)).toEqual([all[0]]);
    expect(() => newRollout('r', lenient, [selection[1]!], 0)).toThrow(/every selected instance refuses the order/);
  });

  describe('bakeTime', () => {
    /** A fake clock: each input is decided at the time given. */
    function at(rollout: Rollout, input: RolloutInput, now: number): RolloutStep {
      const decision = decideRollout(rollout, input, now);
      if (isRefusal(decision)) {
        throw new Error(`refused: ${decision.message}`);
      }
      return decision;
    }
    const [a, b, c, d] = ids(4) as [string, string, string, string];
    const started = (strategy: Record<string, unknown>): Rollout =>
      at(rolloutOf(4, { batchSize: 2, bakeTime: 30, ...strategy }), { kind: 'START' }, 1_000).rollout;

    it('keeps an ended batch baking for bakeTime, due at its end, and starts the next batch only then', () => {
      let rollout = at(started({}), { kind: 'OPERATION_ENDED', instanceId: a, outcome: 'DONE' }, 2_000).rollout;
      const ended = at(rollout, { kind: 'OPERATION_ENDED', instanceId: b, outcome: 'DONE' }, 5_000);
      expect(ended.orders).toEqual([]);
      expect(ended.dueAt).toBe(35_000);
      expect(ended.rollout.bakingUntil).toBe(35_000);
      expect(ended.rollout.instances.find((item) => item.instanceId === a)?.doneAt).toBe(2_000);
      rollout = ended.rollout;
      const early = at(rollout, { kind: 'TICK' }, 34_999);
      expect(early.orders).toEqual([]);
      expect(early.dueAt).toBe(35_000);
      const due = at(early.rollout, { kind: 'TICK' }, 35_000);
      expect(due.orders).toEqual([c, d]);
      expect(due.rollout.bakingUntil).toBeNull();
      // the last batch bakes too before the rollout completes
      rollout = at(due.rollout, { kind: 'OPERATION_ENDED', instanceId: c, outcome: 'DONE' }, 36_000).rollout;
      rollout = at(rollout, { kind: 'OPERATION_ENDED', instanceId: d, outcome: 'DONE' }, 37_000).rollout;
      expect(rollout.state).toBe('RUNNING');
      expect(at(rollout, { kind: 'TICK' }, 66_999).rollout.state).toBe('RUNNING');
      expect(at(rollout, { kind: 'TICK' }, 67_000).rollout.state).toBe('COMPLETED');
    });

    it('starts the pause between batches after the bake', () => {
      let rollout = at(
        started({ pauseBetweenBatches: 5_000 }),
        { kind: 'OPERATION_ENDED', instanceId: a, outcome: 'DONE' },
        2_000,
      ).rollout;
      const ended = at(rollout, { kind: 'OPERATION_ENDED', instanceId: b, outcome: 'DONE' }, 3_000);
      expect(ended.dueAt).toBe(33_000);
      rollout = ended.rollout;
      const baked = at(rollout, { kind: 'TICK' }, 33_000);
      expect(baked.orders).toEqual([]);
      expect(baked.dueAt).toBe(38_000);
      expect(at(baked.rollout, { kind: 'TICK' }, 37_999).orders).toEqual([]);
      expect(at(baked.rollout, { kind: 'TICK' }, 38_000).orders).toEqual([c, d]);
    });

    it('bakes the canary batch before waiting for promote, and not again after it', () => {
      let rollout = at(rolloutOf(4, { batchSize: 2, canary: 1, bakeTime: 30 }), { kind: 'START' }, 1_000).rollout;
      rollout = at(rollout, { kind: 'OPERATION_ENDED', instanceId: a, outcome: 'DONE' }, 2_000).rollout;
      expect(rollout.state).toBe('RUNNING');
      expect(rollout.bakingUntil).toBe(32_000);
      rollout = at(rollout, { kind: 'TICK' }, 32_000).rollout;
      expect(rollout.state).toBe('WAITING_PROMOTION');
      expect(at(rollout, { kind: 'PROMOTE' }, 40_000).orders).toEqual([b, c]);
    });

    function baking(strategy: Record<string, unknown>): Rollout {
      let rollout = at(started(strategy), { kind: 'OPERATION_ENDED', instanceId: a, outcome: 'DONE' }, 2_000).rollout;
      rollout = at(rollout, { kind: 'OPERATION_ENDED', instanceId: b, outcome: 'DONE' }, 3_000).rollout;
      expect(rollout.bakingUntil).toBe(33_000);
      return rollout;
    }
    const unhealthy: RolloutInput = { kind: 'INSTANCE_UNHEALTHY', instanceId: b, reason: 'Api is Degraded' };

    it('pauses when an instance turns unhealthy during the bake with onFailure pause; resume bakes it again', () => {
      const paused = at(baking({ onFailure: 'pause' }), unhealthy, 10_000).rollout;
      expect(paused.state).toBe('PAUSED');
      expect(paused.reason).toBe('batch 1 had 1 failures, over the threshold 0');
      expect(paused.instances.find((item) => item.instanceId === b)).toMatchObject({
        state: 'UNHEALTHY',
        reason: 'Api is Degraded',
      });
      expect(paused.bakingUntil).toBeNull();
      expect(at(paused, { kind: 'TICK' }, 50_000).orders).toEqual([]);
      const resumed = at(paused, { kind: 'RESUME' }, 60_000);
      expect(resumed.orders).toEqual([]);
      expect(resumed.rollout.bakingUntil).toBe(90_000);
      expect(at(resumed.rollout, { kind: 'TICK' }, 90_000).orders).toEqual([c, d]);
    });

    it('rolls back the batch, the unhealthy instance too, and ends FAILED with onFailure rollback', () => {
      const rolling = at(baking({ onFailure: 'rollback' }), unhealthy, 10_000);
      expect(rolling.rollout.state).toBe('ROLLING_BACK');
      expect(rolling.rollbacks).toEqual([a, b]);
      let rollout = at(rolling.rollout, { kind: 'OPERATION_ENDED', instanceId: a, outcome: 'DONE' }, 11_000).rollout;
      rollout = at(rollout, { kind: 'OPERATION_ENDED', instanceId: b, outcome: 'DONE' }, 12_000).rollout;
      expect(rollout.state).toBe('FAILED');
      expect(rollout.reason).toBe('batch 1 had 1 failures, over the threshold 0; rolled back');
      expect(rollout.instances.map((item) => item.state)).toEqual(['ROLLED_BACK', 'ROLLED_BACK', 'PENDING', 'PENDING']);
    });

    it('bakes on with a failure within the threshold, and with continue ends FAILED after the last batch', () => {
      const tolerated = at(baking({ failureThreshold: 1 }), unhealthy, 10_000);
      expect(tolerated.rollout.state).toBe('RUNNING');
      expect(tolerated.dueAt).toBe(33_000);
      expect(at(tolerated.rollout, { kind: 'TICK' }, 33_000).orders).toEqual([c, d]);
      const going = at(baking({ onFailure: 'continue' }), unhealthy, 10_000);
      expect(going.rollout.state).toBe('RUNNING');
      let rollout = at(going.rollout, { kind: 'TICK' }, 33_000).rollout;
      rollout = at(rollout, { kind: 'OPERATION_ENDED', instanceId: c, outcome: 'DONE' }, 34_000).rollout;
      rollout = at(rollout, { kind: 'OPERATION_ENDED', instanceId: d, outcome: 'DONE' }, 35_000).rollout;
      rollout = at(rollout, { kind: 'TICK' }, 65_000).rollout;
      expect(rollout.state).toBe('FAILED');
      expect(rollout.reason).toBe('batches over the failure threshold: 1');
    });

    it('ignores unhealthy reports outside a bake, of another batch, or of an instance not DONE', () => {
      const running = started({});
      expect(at(running, { kind: 'INSTANCE_UNHEALTHY', instanceId: a, reason: 'x' }, 1_500).rollout).toBe(running);
      const bakingNow = baking({});
      expect(at(bakingNow, { kind: 'INSTANCE_UNHEALTHY', instanceId: c, reason: 'x' }, 4_000).rollout).toBe(bakingNow);
      const once = at(bakingNow, { kind: 'INSTANCE_UNHEALTHY', instanceId: a, reason: 'x' }, 4_000).rollout;
      expect(at(once, { kind: 'INSTANCE_UNHEALTHY', instanceId: a, reason: 'y' }, 5_000).rollout).toBe(once);
    });
  });
});

describe('bakeHealthVerdict', () => {
  const healthy = { name: 'Api', health: { state: 'Healthy' as const, since: 0, reason: null }, gateHolds: true };

  it('finds an element observed Degraded or Missing after the instance was done, or a gate that fails', () => {
    expect(bakeHealthVerdict(1_000, [healthy, { ...healthy, name: 'Db', health: null }])).toBeNull();
    expect(
      bakeHealthVerdict(1_000, [
        healthy,
        { name: 'Db', health: { state: 'Degraded', since: 1_000, reason: 'slow' }, gateHolds: true },
      ]),
    ).toBe('unhealthy during the bake: Db is Degraded (slow)');
    expect(
      bakeHealthVerdict(1_000, [
        { name: 'Db', health: { state: 'Missing', since: 2_000, reason: null }, gateHolds: true },
      ]),
    ).toBe('unhealthy during the bake: Db is Missing');
    expect(bakeHealthVerdict(1_000, [{ ...healthy, gateHolds: false }])).toBe(
      'unhealthy during the bake: the health gate of Api no longer holds',
    );
  });

  it('never judges on a health recorded before the instance was done (a stale status) while the bake runs', () => {
    expect(
      bakeHealthVerdict(1_000, [
        { name: 'Db', health: { state: 'Degraded', since: 999, reason: null }, gateHolds: true },
      ]),
    ).toBeNull();
  });

  it('judges an element still Degraded or Missing when the bake ends, whenever it turned so', () => {
    const stale = { name: 'Db', health: { state: 'Degraded' as const, since: 999, reason: 'slow' }, gateHolds: true };
    expect(bakeHealthVerdict(1_000, [stale], true)).toBe('unhealthy during the bake: Db is Degraded (slow)');
    expect(bakeHealthVerdict(1_000, [{ ...stale, health: { ...stale.health, state: 'Missing' } }], true)).toBe(
      'unhealthy during the bake: Db is Missing (slow)',
    );
    expect(bakeHealthVerdict(1_000, [{ ...stale, health: { ...stale.health, state: 'Healthy' } }], true)).toBeNull();
    expect(bakeHealthVerdict(1_000, [{ ...stale, health: { ...stale.health, state: 'Unknown' } }], true)).toBeNull();
  });
});
