import { isRefusal } from '../refusal';
import type { BatchGate, Rollout, RolloutInput, RolloutStep } from './rollout';
import { WINDOW_RECHECK_MS, decideRollout, metadataMatches, newRollout, parseRolloutRequest } from './rollout';
import { rolloutEvents } from './rollout-history';

const COMPOSITION = '11111111-1111-4111-8111-111111111111';
const ids = (count: number): string[] =>
  Array.from({ length: count }, (_, index) => `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`);

function rolloutOf(count: number, strategy: Record<string, unknown>): Rollout {
  const request = parseRolloutRequest({ order: 'DEPLOY', compositionId: COMPOSITION, strategy });
  return newRollout('r-1', request, ids(count), 1_000);
}

function step(rollout: Rollout, input: RolloutInput, now: number, gate: BatchGate | null): RolloutStep {
  const decision = decideRollout(rollout, input, now, gate);
  if (isRefusal(decision)) {
    throw new Error(`refused: ${decision.message}`);
  }
  return decision;
}

/** Windows closed before `opensAt`: every batch is held until then. */
const closedUntil =
  (opensAt: number | null): BatchGate =>
  (_batch, at) =>
    opensAt !== null && at >= opensAt ? null : { windows: ['nightly'], until: opensAt };

describe('a rollout held by maintenance windows', () => {
  it('does not start its first batch before the opening, then starts it', () => {
    const gate = closedUntil(5_000);
    const held = step(rolloutOf(4, { batchSize: 2 }), { kind: 'START' }, 1_000, gate);
    expect(held.orders).toEqual([]);
    expect(held.dueAt).toBe(5_000);
    expect(held.rollout).toMatchObject({
      state: 'RUNNING',
      currentBatch: -1,
      nextBatchAt: 5_000,
      windowWait: { windows: ['nightly'], until: 5_000 },
    });
    expect(step(held.rollout, { kind: 'TICK' }, 4_999, gate).orders).toEqual([]);
    const started = step(held.rollout, { kind: 'TICK' }, 5_000, gate);
    expect(started.orders).toEqual(ids(2));
    expect(started.rollout).toMatchObject({ currentBatch: 0, windowWait: null, nextBatchAt: null });
  });

  it('holds the next batch, not the one running, and starts it at the opening', () => {
    const open: BatchGate = () => null;
    const first = step(rolloutOf(4, { batchSize: 2 }), { kind: 'START' }, 1_000, open);
    let rollout = first.rollout;
    const gate: BatchGate = (batch, at) => (batch === 1 && at < 9_000 ? { windows: ['weekend'], until: 9_000 } : null);
    for (const instanceId of ids(2)) {
      rollout = step(rollout, { kind: 'OPERATION_ENDED', instanceId, outcome: 'DONE' }, 2_000, gate).rollout;
    }
    expect(rollout).toMatchObject({ currentBatch: 0, windowWait: { windows: ['weekend'], until: 9_000 } });
    const next = step(rollout, { kind: 'TICK' }, 9_000, gate);
    expect(next.orders).toEqual(ids(4).slice(2));
    expect(next.rollout).toMatchObject({ currentBatch: 1, windowWait: null });
  });

  it('starts a held batch as soon as the windows let it, even before the opening they announced', () => {
    const held = step(rolloutOf(2, { batchSize: 2 }), { kind: 'START' }, 1_000, closedUntil(50_000));
    // The window was deleted: the gate now lets everything through.
    const started = step(held.rollout, { kind: 'TICK' }, 2_000, () => null);
    expect(started.orders).toEqual(ids(2));
  });

  it('lets a held batch wait its pause between batches only once', () => {
    let rollout = step(rolloutOf(4, { batchSize: 2, pauseBetweenBatches: 1_000 }), { kind: 'START' }, 0, null).rollout;
    const gate = closedUntil(20_000);
    for (const instanceId of ids(2)) {
      rollout = step(rollout, { kind: 'OPERATION_ENDED', instanceId, outcome: 'DONE' }, 10_000, gate).rollout;
    }
    expect(rollout.nextBatchAt).toBe(11_000);
    rollout = step(rollout, { kind: 'TICK' }, 11_000, gate).rollout;
    expect(rollout).toMatchObject({ nextBatchAt: 20_000, windowWait: { until: 20_000 } });
    expect(step(rollout, { kind: 'TICK' }, 20_000, gate).orders).toEqual(ids(4).slice(2));
  });

  it('looks again later when the windows announce no opening', () => {
    const held = step(rolloutOf(2, { batchSize: 2 }), { kind: 'START' }, 1_000, closedUntil(null));
    expect(held.dueAt).toBe(1_000 + WINDOW_RECHECK_MS);
    expect(held.rollout.windowWait).toEqual({ windows: ['nightly'], until: null });
  });
});

describe('the history of a rollout held by windows', () => {
  it('records once which windows hold which batch', () => {
    const created = rolloutOf(2, { batchSize: 2 });
    const held = step(created, { kind: 'START' }, 1_000, closedUntil(5_000)).rollout;
    expect(rolloutEvents(created, held, 1_000, { kind: 'runtime', rule: 'rollout' })).toEqual([
      expect.objectContaining({ kind: 'WINDOW_WAIT', batch: 1, reason: 'waiting for window "nightly"' }),
    ]);
    const still = step(held, { kind: 'TICK' }, 2_000, closedUntil(5_000)).rollout;
    expect(rolloutEvents(held, still, 2_000, { kind: 'runtime', rule: 'rollout' })).toEqual([]);
  });
});

describe('the selection filter', () => {
  const body = { order: 'DEPLOY', compositionId: COMPOSITION, strategy: { batchSize: 1 } };

  it('reads the filters of /v2/instances and metadata values', () => {
    const participantId = '22222222-2222-4222-8222-222222222222';
    expect(
      parseRolloutRequest({
        ...body,
        filter: {
          participantId,
          deployStates: ['UNDEPLOYED'],
          stateChangeResults: ['NO_ERROR'],
          metadata: { site: 'prod' },
        },
      }).filter,
    ).toEqual({
      participantId,
      deployStates: ['UNDEPLOYED'],
      stateChangeResults: ['NO_ERROR'],
      metadata: { site: 'prod' },
    });
    expect(parseRolloutRequest(body).filter).toBeNull();
  });

  it.each([
    [{ deployStates: ['SLEEPING'] }, /^filter.deployStates\[0\]: must be one of DEPLOYED, /],
    [{ participantId: 'p' }, /^filter.participantId: must be a uuid/],
    [{ metadata: { site: [] } }, /^filter.metadata.site: /],
    ['prod', /^filter: must be an object/],
  ])('refuses %j naming the field', (filter, message) => {
    expect(() => parseRolloutRequest({ ...body, filter })).toThrow(message);
  });

  it('matches metadata by value as text', () => {
    const filter = parseRolloutRequest({ ...body, filter: { metadata: { tier: 1 } } }).filter;
    expect(metadataMatches(filter, { tier: 1 })).toBe(true);
    expect(metadataMatches(filter, { tier: '1' })).toBe(true);
    expect(metadataMatches(filter, { tier: 2 })).toBe(false);
    expect(metadataMatches(filter, null)).toBe(false);
  });

  it('names the filter when it leaves nothing to select', () => {
    const request = parseRolloutRequest({ ...body, filter: { metadata: { site: 'nowhere' } } });
    expect(() => newRollout('r', request, [], 0)).toThrow(/^filter: the selection is empty/);
  });
});
