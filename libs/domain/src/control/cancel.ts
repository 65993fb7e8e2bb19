import type { Refusal } from '../refusal';
import { refusal } from '../refusal';
import type { InstanceOrder, InstanceStateKey, TransitionalState } from '../instance/instance-lifecycle';
import {
  completedStateOf,
  isInstanceTransitional,
  ordersAllowedIn,
  transitionalStateFor,
} from '../instance/instance-lifecycle';
import type { AutomationComposition, InstanceElement } from '../model';
import type { DefinitionStateKey } from '../definition/definition-lifecycle';
import { isDefinitionTransitional } from '../definition/definition-lifecycle';

/** What a control request (cancel, pause, resume) may act on. */
export type ControlAction = 'cancel' | 'pause' | 'resume';

/**
 * The refusal of a control request when nothing runs: NOTHING_RUNNING (409) with the current state and what is
 * allowed now (ONAP's orders for that state), so the caller knows the way forward; null when something runs.
 */
export function nothingRunsRefusal(
  action: ControlAction,
  current: InstanceStateKey,
  running: boolean,
  subject = 'instance',
): Refusal | null {
  if (running && isInstanceTransitional(current) && current.stateChangeResult === 'NO_ERROR') {
    return null;
  }
  const allowed = ordersAllowedIn(current);
  return refusal(
    'NOTHING_RUNNING',
    `Cannot ${action} the ${subject}: no operation is running; DeployState: ${current.deployState}; LockState: ` +
      `${current.lockState}; SubState: ${current.subState}; StateChangeResult: ${current.stateChangeResult}; ` +
      `allowed now: ${allowed.length > 0 ? allowed.join(', ') : 'none'}`,
    { action, ...current, allowedNow: allowed },
  );
}

/**
 * The refusal of a composition cancel when no prime or deprime runs: NOTHING_RUNNING (409) with the current state
 * and what is allowed now; null when one runs.
 */
export function definitionNothingRunsRefusal(
  action: 'cancel',
  current: DefinitionStateKey,
  running: boolean,
): Refusal | null {
  if (running && isDefinitionTransitional(current.state) && current.stateChangeResult === 'NO_ERROR') {
    return null;
  }
  return refusal(
    'NOTHING_RUNNING',
    `Cannot ${action} the composition: no prime or deprime is running; AcTypeState: ${current.state}; ` +
      `StateChangeResult: ${current.stateChangeResult}; allowed now: PRIME, DEPRIME`,
    { action, ...current, allowedNow: ['PRIME', 'DEPRIME'] },
  );
}

/**
 * The reverse of an order, what `?rollback=true` runs for the elements the cancelled operation completed
 * (Heat's cancel with rollback). Delete, prepare, review and precheck have none.
 */
export const REVERSE_ORDER: Readonly<Partial<Record<InstanceOrder, InstanceOrder>>> = {
  DEPLOY: 'UNDEPLOY',
  UNDEPLOY: 'DEPLOY',
  LOCK: 'UNLOCK',
  UNLOCK: 'LOCK',
};

/** The state an order's elements leave: where the reverse order brings them back to. */
function sourceStateOf(order: InstanceOrder): TransitionalState | null {
  const reverse = REVERSE_ORDER[order];
  return reverse ? completedStateOf(transitionalStateFor(reverse)) : null;
}

function reached(element: InstanceElement, state: TransitionalState | null): boolean {
  return state !== null && element.deployState === state.deployState && element.lockState === state.lockState;
}

/**
 * The instance once its operation is cancelled. An ONAP client only ever sees ONAP's values: the instance keeps
 * the order's transitional state with `stateChangeResult` FAILED, exactly what a failed operation leaves, so
 * ONAP's tables apply unchanged (after a cancelled DEPLOY both DEPLOY, which redoes only the unfinished elements,
 * and UNDEPLOY are allowed). Elements keep their states: answers in flight are still recorded.
 */
export function cancelledInstance(instance: AutomationComposition, now: number): AutomationComposition {
  return { ...instance, stateChangeResult: 'FAILED', lastMsg: now };
}

export interface CancelRollback {
  readonly order: InstanceOrder;
  /** Elements as the rollback starts them: completed or in flight → the reverse's transitional state. */
  readonly elements: Record<string, InstanceElement>;
  /** The elements the rollback sends the reverse order to. */
  readonly reversed: readonly string[];
}

/**
 * Cancel with rollback: the reverse order runs for the elements the cancelled operation completed, and for those
 * it had dispatched without an answer yet (a late success would otherwise leave them done). Elements it never
 * dispatched go straight back to the state they had, with no message. Null when the order has no reverse.
 */
export function planCancelRollback(
  instance: AutomationComposition,
  cancelled: InstanceOrder,
  dispatched: ReadonlySet<string>,
): CancelRollback | null {
  const reverse = REVERSE_ORDER[cancelled];
  const source = sourceStateOf(cancelled);
  if (!reverse || !source) {
    return null;
  }
  const target = completedStateOf(transitionalStateFor(cancelled));
  const during = transitionalStateFor(reverse);
  const reversed: string[] = [];
  const elements = Object.fromEntries(
    Object.entries(instance.elements).map(([id, element]): [string, InstanceElement] => {
      if (reached(element, source) && !dispatched.has(id)) {
        return [id, element];
      }
      if (reached(element, target) || dispatched.has(id)) {
        reversed.push(id);
        return [id, { ...element, ...during, message: null }];
      }
      return [id, { ...element, ...source, message: null }];
    }),
  );
  return { order: reverse, elements, reversed };
}
