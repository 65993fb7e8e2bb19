import { bakeText, controlRefusal, countsText, progressText, rolloutTone, waitText } from './rollout-view';

describe('the console rollout view', () => {
  it('accepts each control only in the state the runtime accepts it in, with its refusal otherwise', () => {
    expect(controlRefusal('r1', 'RUNNING', 'pause')).toBeNull();
    expect(controlRefusal('r1', 'PAUSED', 'pause')).toBe('Rollout r1 is PAUSED: pause is allowed only when RUNNING');
    expect(controlRefusal('r1', 'PAUSED', 'resume')).toBeNull();
    expect(controlRefusal('r1', 'RUNNING', 'resume')).toBe('Rollout r1 is RUNNING: resume is allowed only when PAUSED');
    expect(controlRefusal('r1', 'WAITING_PROMOTION', 'promote')).toBeNull();
    expect(controlRefusal('r1', 'RUNNING', 'promote')).toMatch(/only when WAITING_PROMOTION$/);
    for (const state of ['RUNNING', 'PAUSED', 'WAITING_PROMOTION', 'ROLLING_BACK']) {
      expect(controlRefusal('r1', state, 'cancel')).toBeNull();
    }
    for (const state of ['COMPLETED', 'FAILED', 'CANCELLED']) {
      expect(controlRefusal('r1', state, 'cancel')).toBe(
        `Rollout r1 is ${state}: cancel is allowed only when not finished`,
      );
    }
  });

  it('colours states by how they went', () => {
    expect(['DONE', 'COMPLETED', 'ENDED'].map(rolloutTone)).toEqual(['done', 'done', 'done']);
    expect(['ORDERED', 'BAKING', 'RUNNING'].map(rolloutTone)).toEqual(['busy', 'busy', 'busy']);
    expect(['FAILED', 'REFUSED', 'UNHEALTHY', 'ROLLBACK_FAILED'].map(rolloutTone)).toEqual([
      'bad',
      'bad',
      'bad',
      'bad',
    ]);
    expect(['PENDING', 'PAUSED'].map(rolloutTone)).toEqual(['idle', 'idle']);
  });

  it('counts the instances that are in a state, and the ones that ended', () => {
    const counts = { PENDING: 1, ORDERED: 1, DONE: 2, FAILED: 1, REFUSED: 0 };
    expect(countsText(counts)).toBe('2 DONE, 1 ORDERED, 1 PENDING, 1 FAILED');
    expect(progressText(counts)).toBe('3 of 5 ended');
    expect(countsText({})).toBe('no instance');
  });

  it('says the bake left, rounded up, only while baking', () => {
    expect(bakeText({ state: 'BAKING', bakeRemainingMs: 4001 })).toBe('bakes 5 s more');
    expect(bakeText({ state: 'BAKING', bakeRemainingMs: 1 })).toBe('bakes 1 s more');
    expect(bakeText({ state: 'RUNNING', bakeRemainingMs: 4000 })).toBeNull();
  });

  it('says what an unfinished rollout waits for', () => {
    const message = 'waiting for window "nights" until 2026-12-12T21:00:00.000Z';
    expect(
      waitText({ state: 'RUNNING', waitingFor: { windows: ['nights'], until: null, message }, nextBatchAt: null }),
    ).toBe(message);
    expect(waitText({ state: 'WAITING_PROMOTION', waitingFor: null, nextBatchAt: null })).toMatch(/promote/);
    expect(waitText({ state: 'RUNNING', waitingFor: null, nextBatchAt: '2026-12-12T21:00:00.000Z' })).toBe(
      'next batch at 2026-12-12T21:00:00.000Z',
    );
    expect(waitText({ state: 'COMPLETED', waitingFor: null, nextBatchAt: '2026-12-12T21:00:00.000Z' })).toBeNull();
  });
});
