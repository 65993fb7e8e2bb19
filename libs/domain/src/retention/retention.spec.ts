import type { OperationState } from '../ports/engine.port';
import type { RetentionPolicy } from './retention';
import { prunableOperations, rankOperations, retentionVerdict } from './retention';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const POLICY: RetentionPolicy = { maxAgeMs: 7 * DAY, failedMaxAgeMs: 30 * DAY, keepLast: 2, maxOperations: 3 };
/** A fake clock's reading: the rules take `now` and never read a clock. */
const NOW = 100 * DAY;

interface Spec {
  id: string;
  target?: string;
  state?: OperationState;
  timedOut?: boolean;
  /** Days before NOW the operation finished (it started an hour earlier). */
  daysAgo: number;
}

function history(specs: readonly Spec[]) {
  return rankOperations(
    specs.map((spec) => ({
      operationId: spec.id,
      targetId: spec.target ?? 'target-a',
      state: spec.state ?? 'COMPLETED',
      timedOut: spec.timedOut ?? false,
      startedAt: NOW - spec.daysAgo * DAY - HOUR,
      finishedAt: spec.state === 'RUNNING' ? null : NOW - spec.daysAgo * DAY,
    })),
  );
}

function verdicts(specs: readonly Spec[], policy = POLICY): Record<string, string> {
  return Object.fromEntries(history(specs).map((c) => [c.operationId, retentionVerdict(c, NOW, policy)]));
}

describe('retention rules', () => {
  it('ranks each target newest first, running ones counted in the rank and never answered', () => {
    const ranked = history([
      { id: 'r', state: 'RUNNING', daysAgo: 0 },
      { id: 'c1', daysAgo: 1 },
      { id: 'f1', state: 'FAILED', daysAgo: 2 },
      { id: 'c2', daysAgo: 3 },
      { id: 'other', target: 'target-b', daysAgo: 5 },
    ]);
    expect(ranked.map((c) => [c.operationId, c.rank, c.classRank])).toEqual([
      ['c1', 2, 1],
      ['f1', 3, 1],
      ['c2', 4, 2],
      ['other', 1, 1],
    ]);
  });

  it('removes a success older than the age, keeps it younger', () => {
    const policy = { ...POLICY, keepLast: 0 };
    expect(
      verdicts(
        [
          { id: 'young', daysAgo: 6 },
          { id: 'old', daysAgo: 8 },
        ],
        policy,
      ),
    ).toEqual({
      young: 'KEPT',
      old: 'EXPIRED',
    });
  });

  it('keeps failures and timeouts until the longer age', () => {
    const policy = { ...POLICY, keepLast: 0 };
    expect(
      verdicts(
        [
          { id: 'failed', state: 'FAILED', daysAgo: 20 },
          { id: 'late', state: 'COMPLETED', timedOut: true, daysAgo: 20 },
          { id: 'ancient', state: 'FAILED', daysAgo: 31 },
          { id: 'ok', daysAgo: 20 },
        ],
        policy,
      ),
    ).toEqual({ failed: 'KEPT', late: 'KEPT', ancient: 'EXPIRED', ok: 'EXPIRED' });
  });

  it('keeps the last N of a target until the longer age, whatever their state', () => {
    expect(
      verdicts([
        { id: 'newest', state: 'CANCELLED', daysAgo: 20 },
        { id: 'second', daysAgo: 25 },
        { id: 'third', daysAgo: 26 },
      ]),
    ).toEqual({ newest: 'KEPT', second: 'KEPT', third: 'EXPIRED' });
    expect(verdicts([{ id: 'only', daysAgo: 31 }])).toEqual({ only: 'EXPIRED' });
  });

  it('caps the count per target, failures counted apart so successes never push them out', () => {
    const specs: Spec[] = [
      ...[1, 2, 3, 4, 5].map((day) => ({ id: `ok${day}`, daysAgo: day / 10 })),
      ...[6, 7, 8, 9].map((day) => ({ id: `bad${day}`, state: 'FAILED' as const, daysAgo: day / 10 })),
    ];
    expect(verdicts(specs)).toEqual({
      ok1: 'KEPT',
      ok2: 'KEPT',
      ok3: 'KEPT',
      ok4: 'OVER_COUNT',
      ok5: 'OVER_COUNT',
      bad6: 'KEPT',
      bad7: 'KEPT',
      bad8: 'KEPT',
      bad9: 'OVER_COUNT',
    });
  });

  it('never removes a running operation, however old', () => {
    const [candidate] = rankOperations([
      { operationId: 'r', targetId: 't', state: 'COMPLETED', timedOut: false, startedAt: 0, finishedAt: 0 },
    ]);
    expect(retentionVerdict({ ...candidate!, state: 'RUNNING', rank: 99, classRank: 99 }, NOW, POLICY)).toBe(
      'IN_FLIGHT',
    );
  });

  it('treats each target on its own', () => {
    expect(
      verdicts([
        { id: 'a1', target: 'a', daysAgo: 0.1 },
        { id: 'a2', target: 'a', daysAgo: 0.2 },
        { id: 'a3', target: 'a', daysAgo: 0.3 },
        { id: 'b1', target: 'b', daysAgo: 0.4 },
      ]),
    ).toEqual({ a1: 'KEPT', a2: 'KEPT', a3: 'KEPT', b1: 'KEPT' });
  });

  it('answers the prunable operations oldest first, at most the limit', () => {
    const policy = { ...POLICY, keepLast: 0 };
    const candidates = history([
      { id: 'mid', daysAgo: 9 },
      { id: 'oldest', daysAgo: 12 },
      { id: 'kept', daysAgo: 1 },
      { id: 'old', daysAgo: 10 },
    ]);
    expect(prunableOperations(candidates, NOW, policy, 10)).toEqual(['oldest', 'old', 'mid']);
    expect(prunableOperations(candidates, NOW, policy, 2)).toEqual(['oldest', 'old']);
  });
});
