import { isRefusal } from '../refusal';
import type { Rollout, RolloutInput } from './rollout';
import { decideRollout, newRollout, parseRolloutRequest } from './rollout';
import type { RolloutActor } from './rollout-history';
import { rolloutEvents } from './rollout-history';

const COMPOSITION = '11111111-1111-4111-8111-111111111111';
const RULES: RolloutActor = { kind: 'runtime', rule: 'rollout' };
const PERSON: RolloutActor = { kind: 'request', user: 'runtimeUser', requestId: 'r-1' };

function step(rollout: Rollout, input: RolloutInput): Rollout {
  const decision = decideRollout(rollout, input, 0);
  if (isRefusal(decision)) {
    throw new Error(decision.message);
  }
  return decision.rollout;
}

describe('rolloutEvents', () => {
  const request = parseRolloutRequest({
    order: 'DEPLOY',
    compositionId: COMPOSITION,
    strategy: { batchSize: 1, onFailure: 'rollback', rollbackAll: true },
  });
  const created = newRollout('r', request, ['a', 'b'], 0);

  it('records the creation, then each batch start and end, instance order and end, and state change', () => {
    expect(rolloutEvents(null, created, 5, PERSON)).toEqual([
      { at: 5, actor: PERSON, kind: 'CREATED', batch: null, instanceId: null, state: 'RUNNING', reason: null },
    ]);
    const started = step(created, { kind: 'START' });
    expect(
      rolloutEvents(created, started, 6, RULES).map((event) => [event.kind, event.batch, event.instanceId]),
    ).toEqual([
      ['BATCH_STARTED', 1, null],
      ['INSTANCE_ORDERED', 1, 'a'],
    ]);
    const next = step(started, { kind: 'OPERATION_ENDED', instanceId: 'a', outcome: 'DONE' });
    expect(rolloutEvents(started, next, 7, RULES).map((event) => [event.kind, event.batch, event.instanceId])).toEqual([
      ['INSTANCE_ENDED', 1, 'a'],
      ['BATCH_ENDED', 1, null],
      ['BATCH_STARTED', 2, null],
      ['INSTANCE_ORDERED', 2, 'b'],
    ]);
  });

  it('records rollbacks and the state the rollout ended in, with its reason', () => {
    const running = step(step(created, { kind: 'START' }), {
      kind: 'OPERATION_ENDED',
      instanceId: 'a',
      outcome: 'DONE',
    });
    const rollingBack = step(running, { kind: 'OPERATION_ENDED', instanceId: 'b', outcome: 'FAILED', reason: 'x' });
    expect(
      rolloutEvents(running, rollingBack, 8, RULES).map((event) => [event.kind, event.instanceId, event.state]),
    ).toEqual([
      ['INSTANCE_ENDED', 'b', 'FAILED'],
      ['BATCH_ENDED', null, null],
      ['ROLLBACK_ORDERED', 'a', 'ROLLING_BACK'],
      ['STATE_CHANGED', null, 'ROLLING_BACK'],
    ]);
    const failed = step(rollingBack, { kind: 'OPERATION_ENDED', instanceId: 'a', outcome: 'DONE' });
    expect(rolloutEvents(rollingBack, failed, 9, RULES)).toEqual([
      { at: 9, actor: RULES, kind: 'ROLLBACK_ENDED', batch: 1, instanceId: 'a', state: 'ROLLED_BACK', reason: null },
      {
        at: 9,
        actor: RULES,
        kind: 'STATE_CHANGED',
        batch: null,
        instanceId: null,
        state: 'FAILED',
        reason: 'batch 2 had 1 failures, over the threshold 0; rolled back',
      },
    ]);
  });

  it('records an instance found unhealthy during the bake, also when it is rolled back in the same step', () => {
    const baking = parseRolloutRequest({
      order: 'DEPLOY',
      compositionId: COMPOSITION,
      strategy: { batchSize: 1, onFailure: 'rollback', bakeTime: 10 },
    });
    const ordered = step(newRollout('r', baking, ['a', 'b'], 0), { kind: 'START' });
    const done = step(ordered, { kind: 'OPERATION_ENDED', instanceId: 'a', outcome: 'DONE' });
    expect(done.bakingUntil).toBe(10_000);
    const rolling = step(done, { kind: 'INSTANCE_UNHEALTHY', instanceId: 'a', reason: 'unhealthy during the bake' });
    expect(rolling.state).toBe('ROLLING_BACK');
    expect(
      rolloutEvents(done, rolling, 8, RULES).map((event) => [event.kind, event.instanceId, event.state, event.reason]),
    ).toEqual([
      ['INSTANCE_ENDED', 'a', 'UNHEALTHY', 'unhealthy during the bake'],
      ['ROLLBACK_ORDERED', 'a', 'ROLLING_BACK', null],
      ['STATE_CHANGED', null, 'ROLLING_BACK', 'batch 1 had 1 failures, over the threshold 0'],
    ]);
  });

  it('records when each bake starts and when it ends healthy, before the next batch starts', () => {
    const baking = parseRolloutRequest({
      order: 'DEPLOY',
      compositionId: COMPOSITION,
      strategy: { batchSize: 1, bakeTime: 10 },
    });
    const ordered = step(newRollout('r', baking, ['a', 'b'], 0), { kind: 'START' });
    const done = step(ordered, { kind: 'OPERATION_ENDED', instanceId: 'a', outcome: 'DONE' });
    expect(rolloutEvents(ordered, done, 1, RULES).map((event) => [event.kind, event.batch])).toEqual([
      ['INSTANCE_ENDED', 1],
      ['BATCH_ENDED', 1],
      ['BAKE_STARTED', 1],
    ]);
    const next = decideRollout(done, { kind: 'TICK' }, 10_000);
    if (isRefusal(next)) {
      throw new Error(next.message);
    }
    expect(rolloutEvents(done, next.rollout, 10_000, RULES).map((event) => [event.kind, event.batch])).toEqual([
      ['BAKE_ENDED', 1],
      ['BATCH_STARTED', 2],
      ['INSTANCE_ORDERED', 2],
    ]);
  });
});
