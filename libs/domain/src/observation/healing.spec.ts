import {
  DEFAULT_HEAL_MAX_PER_HOUR,
  HEAL_WINDOW_MS,
  decideHeal,
  healMaxPerHourOf,
  healsWithinHour,
  withDependents,
} from './healing';
import type { HealCandidate, HealInstance } from './healing';
import type { ObservedElement } from './observation';

/** A fake clock: every decision gets its time from here. */
const NOW = 10 * HEAL_WINDOW_MS;
const MINUTE = 60_000;

const STEADY: HealInstance = {
  deployState: 'DEPLOYED',
  lockState: 'LOCKED',
  subState: 'NONE',
  operationRunning: false,
};

const MISSING: ObservedElement = { health: { state: 'Missing', reason: 'gone', since: NOW - MINUTE }, drift: [] };
const DRIFTED: ObservedElement = { health: { state: 'Healthy', reason: null, since: 0 }, drift: ['/replicas'] };
const FINE: ObservedElement = { health: { state: 'Healthy', reason: null, since: 0 }, drift: [] };

function candidate(elementId: string, overrides: Partial<HealCandidate> = {}): HealCandidate {
  return {
    elementId,
    observed: MISSING,
    mode: 'correct',
    maxPerHour: DEFAULT_HEAL_MAX_PER_HOUR,
    healedAt: [],
    stoppedAt: null,
    ...overrides,
  };
}

describe('decideHeal', () => {
  it('heals the Missing and the drifted elements under correct, and only those', () => {
    const decision = decideHeal(
      STEADY,
      [
        candidate('b', { observed: DRIFTED }),
        candidate('a'),
        candidate('c', { observed: FINE }),
        candidate('d', { mode: 'warn' }),
        candidate('e', { mode: 'off', observed: DRIFTED }),
        candidate('f', { observed: { ...FINE, health: { state: 'Degraded', reason: 'slow', since: 0 } } }),
      ],
      NOW,
    );
    expect(decision).toEqual({ heal: ['a', 'b'], wait: null, stopped: [] });
  });

  it('says there is nothing to heal when no element needs it', () => {
    expect(decideHeal(STEADY, [candidate('a', { observed: FINE })], NOW)).toEqual({
      heal: [],
      wait: 'NOTHING_TO_HEAL',
      stopped: [],
    });
  });

  it('waits while an operation runs on the instance', () => {
    expect(decideHeal({ ...STEADY, operationRunning: true }, [candidate('a')], NOW)).toMatchObject({
      heal: [],
      wait: 'OPERATION_RUNNING',
    });
    expect(decideHeal({ ...STEADY, lockState: 'LOCKING' }, [candidate('a')], NOW).wait).toBe('OPERATION_RUNNING');
  });

  it('heals only a deployed instance without a sub-state', () => {
    expect(decideHeal({ ...STEADY, deployState: 'UPDATING' }, [candidate('a')], NOW).wait).toBe('NOT_DEPLOYED');
    expect(decideHeal({ ...STEADY, subState: 'REVIEWING' }, [candidate('a')], NOW).wait).toBe('NOT_DEPLOYED');
  });

  it("leaves an UNLOCKED instance alone: its elements are in the operator's hands", () => {
    const unlocked = { ...STEADY, lockState: 'UNLOCKED' as const };
    expect(decideHeal(unlocked, [candidate('a')], NOW)).toMatchObject({ heal: [], wait: 'UNLOCKED' });
    expect(decideHeal(STEADY, [candidate('a')], NOW)).toMatchObject({ heal: ['a'], wait: null });
  });

  it('holds back an element healed maxPerHour times within the hour, and tells it once', () => {
    const healedAt = [NOW - 50 * MINUTE, NOW - 30 * MINUTE, NOW - 10 * MINUTE];
    const flapping = candidate('a', { healedAt });
    const first = decideHeal(STEADY, [flapping, candidate('b')], NOW);
    expect(first).toEqual({ heal: ['b'], wait: null, stopped: [{ elementId: 'a', heals: 3, maxPerHour: 3 }] });
    // Told at NOW: the next observation of the still Missing element is held back silently.
    const later = decideHeal(STEADY, [{ ...flapping, stoppedAt: NOW }], NOW + MINUTE);
    expect(later).toEqual({ heal: [], wait: 'NOTHING_TO_HEAL', stopped: [] });
  });

  it('heals again once the oldest heal leaves the hour, and tells a new stop after new heals', () => {
    const healedAt = [NOW - 50 * MINUTE, NOW - 30 * MINUTE, NOW - 10 * MINUTE];
    const flapping = candidate('a', { healedAt, stoppedAt: NOW });
    expect(decideHeal(STEADY, [flapping], NOW + 10 * MINUTE + 1).heal).toEqual(['a']);
    const healedAgain = { ...flapping, healedAt: [...healedAt, NOW + 11 * MINUTE] };
    expect(decideHeal(STEADY, [healedAgain], NOW + 12 * MINUTE).stopped).toEqual([
      { elementId: 'a', heals: 3, maxPerHour: 3 },
    ]);
  });

  it('tells a rate-limited element even while the instance waits', () => {
    const flapping = candidate('a', { maxPerHour: 1, healedAt: [NOW - MINUTE] });
    expect(decideHeal({ ...STEADY, operationRunning: true }, [flapping], NOW)).toEqual({
      heal: [],
      wait: 'NOTHING_TO_HEAL',
      stopped: [{ elementId: 'a', heals: 1, maxPerHour: 1 }],
    });
  });

  it('never heals an element whose limit is 0, and tells it once', () => {
    expect(decideHeal(STEADY, [candidate('a', { maxPerHour: 0 })], NOW).stopped).toEqual([
      { elementId: 'a', heals: 0, maxPerHour: 0 },
    ]);
    expect(decideHeal(STEADY, [candidate('a', { maxPerHour: 0, stoppedAt: NOW })], NOW).stopped).toEqual([]);
  });
});

describe('healsWithinHour', () => {
  it('counts the heals of the last hour, not older ones nor future ones', () => {
    expect(healsWithinHour([NOW - HEAL_WINDOW_MS, NOW - HEAL_WINDOW_MS + 1, NOW, NOW + 1], NOW)).toBe(2);
  });
});

describe('withDependents', () => {
  // db <- app <- web; cache alone.
  const templateOf = { e1: 'db', e2: 'app', e3: 'web', e4: 'cache' };
  const dependsOn: Record<string, string[]> = { app: ['db'], web: ['app'] };
  const dependsOnOf = (name: string): readonly string[] => dependsOn[name] ?? [];

  it('adds what depends on a healed element, directly or not', () => {
    expect(withDependents(['e1'], templateOf, dependsOnOf)).toEqual(['e1', 'e2', 'e3']);
    expect(withDependents(['e2'], templateOf, dependsOnOf)).toEqual(['e2', 'e3']);
    expect(withDependents(['e4'], templateOf, dependsOnOf)).toEqual(['e4']);
  });

  it('ignores an element the instance does not have', () => {
    expect(withDependents(['nope'], templateOf, dependsOnOf)).toEqual([]);
  });
});

describe('settings', () => {
  it('reads heal_max_per_hour, a whole number of at least 0, else 3', () => {
    expect(healMaxPerHourOf({ heal_max_per_hour: 5 })).toBe(5);
    expect(healMaxPerHourOf({ heal_max_per_hour: 0 })).toBe(0);
    expect(healMaxPerHourOf({ heal_max_per_hour: -1 })).toBe(3);
    expect(healMaxPerHourOf({ heal_max_per_hour: 1.5 })).toBe(3);
    expect(healMaxPerHourOf(null)).toBe(3);
  });
});
