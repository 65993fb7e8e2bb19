import type { GroupRules, ScalingRules } from '../operation/element-template';
import { adjustedCount, scalingDecision } from './group-scaling';

const RULES: GroupRules = { count: 2, min: 1, max: 6 };
const by = (adjustmentType: ScalingRules['adjustmentType'], adjustment: number): ScalingRules => ({
  adjustmentType,
  adjustment,
  cooldownSeconds: 60,
});

describe('adjustedCount', () => {
  it.each([
    ['change_in_capacity', 2, 2, 4],
    ['change_in_capacity', -1, 2, 1],
    ['change_in_capacity', 10, 2, 6],
    ['change_in_capacity', -5, 2, 1],
    ['exact_capacity', 4, 2, 4],
    ['exact_capacity', 9, 2, 6],
    ['percent_change_in_capacity', 50, 4, 6],
    ['percent_change_in_capacity', 10, 2, 3],
    ['percent_change_in_capacity', -10, 2, 1],
    ['percent_change_in_capacity', 150, 2, 5],
  ] as const)('%s %p from %p gives %p, within 1..6', (type, adjustment, current, expected) => {
    expect(adjustedCount(RULES, by(type, adjustment), current)).toBe(expected);
  });

  it('has no upper bound when the group sets none', () => {
    expect(adjustedCount({ count: 1, min: 1 }, by('change_in_capacity', 100), 1)).toBe(101);
  });
});

describe('scalingDecision', () => {
  const T = 1_000_000;

  it('scales when no call was made before or the cooldown is over', () => {
    expect(scalingDecision(RULES, by('change_in_capacity', 2), 2, null, T)).toEqual({ kind: 'SCALE', from: 2, to: 4 });
    expect(scalingDecision(RULES, by('change_in_capacity', 2), 2, T - 60_000, T)).toEqual({
      kind: 'SCALE',
      from: 2,
      to: 4,
    });
  });

  it('refuses during the cooldown with the seconds left, rounded up', () => {
    expect(scalingDecision(RULES, by('change_in_capacity', 1), 2, T - 59_500, T)).toEqual({
      kind: 'COOLDOWN',
      secondsLeft: 1,
    });
  });

  it('changes nothing at a bound', () => {
    expect(scalingDecision(RULES, by('change_in_capacity', 1), 6, null, T)).toEqual({ kind: 'UNCHANGED', count: 6 });
  });
});
