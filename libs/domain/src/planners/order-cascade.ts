import type { AutomationComposition, InstanceElement } from '../model';
import type { InstanceOrder } from '../instance/instance-lifecycle';
import { completedStateOf, transitionalStateFor } from '../instance/instance-lifecycle';
import { isStagedOrder } from './stage-planner';

/** Orders whose re-issue after a failure may skip the elements that already reached the target. */
const NARROWABLE_ORDERS: ReadonlySet<InstanceOrder> = new Set(['DEPLOY', 'UNDEPLOY', 'DELETE', 'LOCK', 'UNLOCK']);

/**
 * ONAP's retry rule (AutomationCompositionInstantiationProvider): only a re-issue of the order the instance is
 * already in (its transitional state, FAILED or TIMEOUT) with more than one element is narrowed to the elements
 * that did not reach the target. Any other order, such as UNDEPLOY after a failed DEPLOY, cascades every element.
 */
export function isRetryOfSameOrder(instance: AutomationComposition, order: InstanceOrder): boolean {
  if (!NARROWABLE_ORDERS.has(order) || instance.stateChangeResult === 'NO_ERROR') {
    return false;
  }
  const during = transitionalStateFor(order);
  const sameState =
    order === 'LOCK' || order === 'UNLOCK'
      ? instance.deployState === during.deployState && instance.lockState === during.lockState
      : instance.deployState === during.deployState;
  return sameState && instance.subState === 'NONE' && Object.keys(instance.elements).length > 1;
}

/**
 * The elements as an order starts them: every element takes the order's transitional state, except — on a
 * retry of the same order — those already at its target. A staged order starts every element at its first
 * stage again.
 */
export function cascadeOrder(instance: AutomationComposition, order: InstanceOrder): Record<string, InstanceElement> {
  const during = transitionalStateFor(order);
  const target = completedStateOf(during);
  const retry = isRetryOfSameOrder(instance, order);
  const staged = isStagedOrder(order);
  return Object.fromEntries(
    Object.entries(instance.elements).map(([id, element]): [string, InstanceElement] => {
      const reached =
        retry &&
        target !== null &&
        element.deployState === target.deployState &&
        element.lockState === target.lockState;
      return [id, reached ? element : { ...element, ...during, message: null, ...(staged ? { stage: null } : {}) }];
    }),
  );
}
