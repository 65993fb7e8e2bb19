import type { InstanceOrder, InstanceStateKey } from '../instance/instance-lifecycle';
import { assertOrderAllowed, isInstanceTransitional } from '../instance/instance-lifecycle';

/**
 * Superseding on request (Heat's new traversal): an order with `"supersede": true` cancels the running operation
 * and starts from the elements' current states. It is checked as if the running operation had been cancelled
 * (transitional state, FAILED), so it accepts exactly what ONAP accepts after a failure, e.g. UNDEPLOY while
 * DEPLOYING; without the flag ONAP's refusal stays.
 */
export function supersedingKey(current: InstanceStateKey): InstanceStateKey {
  return isInstanceTransitional(current) && current.stateChangeResult === 'NO_ERROR'
    ? { ...current, stateChangeResult: 'FAILED' }
    : current;
}

/** Whether the order supersedes a running operation (true) or starts as usual (false); refuses as ONAP does. */
export function resolveSupersede(order: InstanceOrder, current: InstanceStateKey, supersede: boolean): boolean {
  const running = isInstanceTransitional(current) && current.stateChangeResult === 'NO_ERROR';
  if (!supersede || !running) {
    assertOrderAllowed(order, current);
    return false;
  }
  assertOrderAllowed(order, supersedingKey(current));
  return true;
}
