import type { GroupRules, ScalingRules } from '../operation/element-template';

/**
 * One call of a group's scaling webhook (Heat's ScalingPolicy signal), decided without a clock: the caller gives
 * the time and when the group was last scaled by a call.
 */
export type ScalingDecision =
  | { readonly kind: 'SCALE'; readonly from: number; readonly to: number }
  /** The count would not change (already at a bound): nothing runs. */
  | { readonly kind: 'UNCHANGED'; readonly count: number }
  | { readonly kind: 'COOLDOWN'; readonly secondsLeft: number };

/**
 * The count a policy asks for, as Heat computes it: a change, an exact capacity, or a percentage of the current
 * count (a fraction of a member rounds away from zero to one member, more rounds towards zero), kept within bounds.
 */
export function adjustedCount(rules: GroupRules, scaling: ScalingRules, current: number): number {
  let wanted: number;
  switch (scaling.adjustmentType) {
    case 'exact_capacity':
      wanted = scaling.adjustment;
      break;
    case 'change_in_capacity':
      wanted = current + scaling.adjustment;
      break;
    case 'percent_change_in_capacity': {
      const delta = (current * scaling.adjustment) / 100;
      const rounded = delta > 0 && delta < 1 ? 1 : delta < 0 && delta > -1 ? -1 : Math.trunc(delta);
      wanted = current + rounded;
      break;
    }
  }
  return Math.max(rules.min, rules.max === undefined ? wanted : Math.min(rules.max, wanted));
}

/** What a scaling call does now: refused during the cooldown after the last call, else the new count. */
export function scalingDecision(
  rules: GroupRules,
  scaling: ScalingRules,
  current: number,
  lastScaledAt: number | null,
  now: number,
): ScalingDecision {
  if (lastScaledAt !== null) {
    const endsAt = lastScaledAt + scaling.cooldownSeconds * 1000;
    if (now < endsAt) {
      return { kind: 'COOLDOWN', secondsLeft: Math.ceil((endsAt - now) / 1000) };
    }
  }
  const to = adjustedCount(rules, scaling, current);
  return to === current ? { kind: 'UNCHANGED', count: current } : { kind: 'SCALE', from: current, to };
}
