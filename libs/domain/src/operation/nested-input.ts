import type { AutomationComposition, InstanceElement } from '../model';
import { completedStateOf } from '../instance/instance-lifecycle';
import type { InstanceOrder } from '../instance/instance-lifecycle';
import type { InstanceOperation } from '../ports/engine.port';
import { isElementTransitional } from '../planners/phase-planner';
import type { OperationEffect } from './effects';
import { ignore, recordEvent } from './effects';
import { isNestedCompositionTemplate } from '../control/nested-composition';
import type { InputOf, InstanceStep, InstanceStepContext, ReportedElement } from './instance-types';
import { unchanged, withElements } from './step-parts';
import { runtimeAnswer } from './ack-input';

/**
 * Nested compositions: elements the runtime runs itself, whose work is an order on a child instance. The machine
 * only records that the element's child must be ordered (its state in the element's outProperties) and, when the
 * child's operation ends (CHILD_ENDED), completes or fails the element through the ACK rules; creating and
 * ordering the child is the shell's I/O.
 */

/** Where a nested element keeps its state: a key of its outProperties (shown in GET, kept by the row). */
export const NESTED_STATE_PROPERTY = 'nestedComposition';

/** The state of a nested element for one operation. */
export interface StoredNestedState {
  /** The parent's operation that ordered the child. */
  readonly operationId: string;
  /** What the child must do: the order of the parent's step (a replacing UPDATE's DEPLOY or UNDEPLOY step). */
  readonly order: InstanceOrder;
  readonly outcome: 'RUNNING' | 'COMPLETED' | 'FAILED';
  /** The child instance, once an end named it. */
  readonly childInstanceId: string | null;
  /** When this order of the child was set going (a retry sets it again): a child failure before it is an old one. */
  readonly startedAt: number;
}

const OUTCOMES: ReadonlySet<string> = new Set(['RUNNING', 'COMPLETED', 'FAILED']);

/** The stored state of a nested element, or null when it never ran (or the stored value is not one). */
export function storedNestedStateOf(outProperties: Readonly<Record<string, unknown>>): StoredNestedState | null {
  const raw = outProperties[NESTED_STATE_PROPERTY];
  if (typeof raw !== 'object' || raw === null) {
    return null;
  }
  const { operationId, order, outcome, childInstanceId, startedAt } = raw as Record<string, unknown>;
  if (
    typeof operationId !== 'string' ||
    typeof order !== 'string' ||
    typeof outcome !== 'string' ||
    !OUTCOMES.has(outcome) ||
    (childInstanceId !== null && typeof childInstanceId !== 'string') ||
    typeof startedAt !== 'number'
  ) {
    return null;
  }
  return {
    operationId,
    order: order as InstanceOrder,
    outcome: outcome as StoredNestedState['outcome'],
    childInstanceId,
    startedAt,
  };
}

function withNestedState(
  outProperties: Readonly<Record<string, unknown>>,
  state: StoredNestedState,
): Record<string, unknown> {
  return { ...outProperties, [NESTED_STATE_PROPERTY]: { ...state } };
}

/** The element node template names of the own composition that are nested compositions. */
export function nestedElementNames(context: InstanceStepContext): ReadonlySet<string> {
  return new Set(context.templates.own.filter(isNestedCompositionTemplate).map((template) => template.name));
}

/** The nested elements of an instance whose child must be ordered now (RUNNING in the running operation). */
export function childrenToOrder(
  target: AutomationComposition,
  running: InstanceOperation | null,
): Array<{ readonly elementId: string; readonly state: StoredNestedState }> {
  if (running === null) {
    return [];
  }
  return Object.values(target.elements).flatMap((element) => {
    const state = storedNestedStateOf(element.outProperties);
    return state !== null &&
      state.operationId === running.operationId &&
      state.outcome === 'RUNNING' &&
      isElementTransitional(element)
      ? [{ elementId: element.id, state }]
      : [];
  });
}

/**
 * After every step: the phase messages it sent that set nested elements going start their child's order here
 * instead of at a participant: the element's state says RUNNING for this operation and the order (what the shell
 * reads to order the child). A message that sets only nested elements going is recorded but not published.
 */
export function settleNestedCompositions(step: InstanceStep, now: number, context: InstanceStepContext): InstanceStep {
  const nested = nestedElementNames(context);
  const operation = step.operation;
  if (nested.size === 0 || operation === null || operation.state !== 'RUNNING' || step.removed) {
    return step;
  }
  let target = step.target;
  const effects: OperationEffect[] = [];
  for (const effect of step.effects) {
    if (effect.kind !== 'SEND_PHASE') {
      effects.push(effect);
      continue;
    }
    const going = effect.dispatched.filter((id) => {
      const element = target.elements[id];
      return element !== undefined && nested.has(element.definition.name) && isElementTransitional(element);
    });
    const others = effect.dispatched.filter((id) => !going.includes(id));
    effects.push(
      going.length > 0 && others.length === 0 && !effect.firstPhase ? { ...effect, publish: false } : effect,
    );
    const order = effect.step?.order ?? operation.order;
    const started: Array<readonly [string, InstanceElement]> = [];
    for (const id of going) {
      const element = target.elements[id]!;
      const stored = storedNestedStateOf(element.outProperties);
      if (stored?.operationId === operation.operationId && stored.outcome === 'RUNNING' && stored.order === order) {
        continue;
      }
      const state: StoredNestedState = {
        operationId: operation.operationId,
        order,
        outcome: 'RUNNING',
        childInstanceId: stored?.childInstanceId ?? null,
        startedAt: now,
      };
      started.push([id, { ...element, outProperties: withNestedState(element.outProperties, state) }]);
      effects.push(recordEvent('CHILD_ORDERED', { elementId: id, order, childInstanceId: state.childInstanceId }));
    }
    target = withElements(target, started);
  }
  return { ...step, target, effects };
}

/** The stable state a failed order leaves an element in: where it was before (as a participant reports it). */
function failedStateOf(element: InstanceElement): Pick<ReportedElement, 'deployState' | 'lockState'> {
  switch (element.deployState) {
    case 'DEPLOYING':
      return { deployState: 'UNDEPLOYED', lockState: 'NONE' };
    case 'UNDEPLOYING':
    case 'UPDATING':
      return { deployState: 'DEPLOYED', lockState: 'LOCKED' };
    case 'DELETING':
      return { deployState: 'UNDEPLOYED', lockState: 'NONE' };
    default:
      return {
        deployState: element.deployState,
        lockState:
          element.lockState === 'LOCKING'
            ? 'UNLOCKED'
            : element.lockState === 'UNLOCKING'
              ? 'LOCKED'
              : element.lockState,
      };
  }
}

/**
 * The child of a nested element ended its order: the element completes (its outProperties the child's outputs,
 * beside its nested state) or fails with the child's message, through the ACK rules, so its dependants go and the
 * failure and retry rules apply. An end for another operation, or for an element not waiting, changes nothing.
 */
export function childEnded(
  target: AutomationComposition,
  running: InstanceOperation | null,
  input: InputOf<'CHILD_ENDED'>,
  now: number,
  context: InstanceStepContext,
): InstanceStep {
  const { elementId, childInstanceId, operationId, result, outputs } = input;
  const message = input.message ?? null;
  const element = target.elements[elementId];
  const stored = element ? storedNestedStateOf(element.outProperties) : null;
  if (
    element === undefined ||
    running === null ||
    stored === null ||
    running.operationId !== operationId ||
    stored.operationId !== operationId ||
    stored.outcome !== 'RUNNING' ||
    !isElementTransitional(element)
  ) {
    return unchanged(
      target,
      [ignore('STALE', `child ${childInstanceId} of element ${elementId} ended, but the element does not wait for it`)],
      running,
    );
  }
  const state: StoredNestedState = { ...stored, outcome: result ? 'COMPLETED' : 'FAILED', childInstanceId };
  // On success the element's outProperties are the child's outputs; a failure keeps what it had.
  const base = result ? outputs : element.outProperties;
  const outProperties = withNestedState(base, state);
  const said =
    message ?? (result ? `child instance ${childInstanceId} completed` : `child instance ${childInstanceId} failed`);
  const done = result ? completedStateOf(element) : null;
  const failedAs = failedStateOf(element);
  const report: ReportedElement = {
    elementId,
    deployState: done?.deployState ?? failedAs.deployState,
    lockState: done?.lockState ?? failedAs.lockState,
    outProperties,
    message: said,
    result,
  };
  const effects: OperationEffect[] = [
    recordEvent('CHILD_ENDED', { elementId, childInstanceId, order: stored.order, result, message: said }),
  ];
  const answer = runtimeAnswer(target, running, running.phase ?? 0, [report], !result, said, now, context);
  return { ...answer, effects: [...effects, ...answer.effects] };
}

/** Structural equality of JSON values (key order aside): what a child element holds against what it must hold. */
function sameJson(left: unknown, right: unknown): boolean {
  if (left === right) {
    return true;
  }
  if (Array.isArray(left) || Array.isArray(right)) {
    return (
      Array.isArray(left) &&
      Array.isArray(right) &&
      left.length === right.length &&
      left.every((item, index) => sameJson(item, right[index]))
    );
  }
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) {
    return false;
  }
  const leftKeys = Object.keys(left);
  const rightRecord = right as Record<string, unknown>;
  return (
    leftKeys.length === Object.keys(right).length &&
    leftKeys.every((key) => key in rightRecord && sameJson((left as Record<string, unknown>)[key], rightRecord[key]))
  );
}

/**
 * What an UPDATE of the parent asks of the child: each child element's properties, from the nested element's
 * `elementProperties` (by the child's element node template name), when a child element does not hold one of them
 * with its value; null when the child holds them all (nothing to update, or the child's update has been applied).
 * A property that `elementProperties` no longer names is not removed from the child: an UPDATE of a deployed
 * instance merges the properties it is given (ONAP's rule), so the child is compared on the named ones only.
 */
export function childUpdateOf(
  child: Pick<AutomationComposition, 'elements'>,
  elementProperties: Readonly<Record<string, Readonly<Record<string, unknown>>>>,
): Record<string, Record<string, unknown>> | null {
  const elements = Object.values(child.elements);
  const wantedOf = (element: InstanceElement): Record<string, unknown> => ({
    ...(elementProperties[element.definition.name] ?? {}),
  });
  const changed = elements.some((element) =>
    Object.entries(wantedOf(element)).some(
      ([name, value]) => !(name in element.properties) || !sameJson(element.properties[name], value),
    ),
  );
  return changed ? Object.fromEntries(elements.map((element) => [element.id, wantedOf(element)])) : null;
}
