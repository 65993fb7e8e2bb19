import type { InstanceElement } from '../model';
import type { InstanceOrder } from '../instance/instance-lifecycle';
import type { StartPhaseOf } from '../planners/phase-planner';
import { isElementTransitional } from '../planners/phase-planner';
import { readyInPhase } from '../planners/dependency-planner';

export interface DispatchInput {
  readonly elements: Readonly<Record<string, InstanceElement>>;
  /** The open phase (or stage). */
  readonly phase: number;
  readonly startPhaseOf: StartPhaseOf;
  /** Who waits for whom (see dependencyWaits); empty without dependencies. */
  readonly waits: ReadonlyMap<string, readonly string[]>;
  /** Elements of the phase already dispatched and still in transition. */
  readonly inFlight: readonly string[];
  /** Most elements in flight at once; null for no limit (ONAP's behaviour). */
  readonly limit: number | null;
  /**
   * Free slots of the runtime-wide limit (MAX_PARALLEL_ELEMENTS) this operation may fill now; null or absent when
   * there is no runtime-wide limit.
   */
  readonly budget?: number | null;
}

export interface DispatchDecision {
  /** The elements of the phase to set going now, in their stable order. */
  readonly dispatch: ReadonlySet<string>;
  /** Ready elements that wait for a free slot, in the order they will go. */
  readonly queued: readonly string[];
  /** Elements of the phase that wait for a dependency to reach the order's target. */
  readonly blocked: readonly string[];
}

/** The stable order elements take their turn in: by element id, so every replica and the plan agree. */
function byId(a: InstanceElement, b: InstanceElement): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * Which elements of the open phase are dispatched now: those in transition whose dependencies reached the
 * order's target, not already in flight, as many as the parallelism limit leaves room for and as the runtime-wide budget leaves, in a stable order.
 * Without dependencies and without a limit, every element of the phase goes at once, exactly as ONAP does.
 * The engine and the plan both call this, so a plan cannot disagree with what runs.
 */
export function nextDispatch(input: DispatchInput): DispatchDecision {
  const { elements, phase, startPhaseOf, waits, limit } = input;
  const inFlight = new Set(input.inFlight);
  const ready = readyInPhase(elements, phase, startPhaseOf, waits).sort(byId);
  const readyIds = new Set(ready.map((element) => element.id));
  const candidates = ready.filter((element) => !inFlight.has(element.id)).map((element) => element.id);
  const own = limit === null ? candidates.length : Math.max(0, limit - inFlight.size);
  const slots = input.budget === undefined || input.budget === null ? own : Math.min(own, Math.max(0, input.budget));
  return {
    dispatch: new Set(candidates.slice(0, slots)),
    queued: candidates.slice(slots),
    blocked: Object.values(elements)
      .filter(
        (element) => isElementTransitional(element) && startPhaseOf(element) === phase && !readyIds.has(element.id),
      )
      .sort(byId)
      .map((element) => element.id),
  };
}

/**
 * What the first message of a phase describes: every element still in transition in other phases (ONAP's
 * message lists them; a participant acts on those of the open phase) and, of the open phase, those dispatched.
 */
export function describedWith(
  elements: Readonly<Record<string, InstanceElement>>,
  phase: number,
  startPhaseOf: StartPhaseOf,
  dispatch: ReadonlySet<string>,
): Set<string> {
  return new Set(
    Object.values(elements)
      .filter(isElementTransitional)
      .filter((element) => startPhaseOf(element) !== phase || dispatch.has(element.id))
      .map((element) => element.id),
  );
}

/**
 * Whether an order's elements count against the runtime-wide limit (MAX_PARALLEL_ELEMENTS): every order but a
 * migration precheck, whose message carries what only its request holds (the target and the planned elements), so it
 * cannot wait to be sent later by another step.
 */
export function countsAgainstRuntimeLimit(order: InstanceOrder): boolean {
  return order !== 'MIGRATE_PRECHECK';
}

/** The field that limits how many elements of one operation are in flight (instance or definition metadata). */
export const MAX_PARALLEL_ELEMENTS_FIELD = 'maxParallelElements';

/** Why a `maxParallelElements` value is refused (the rule, without the field), or null when absent or valid. */
export function parallelismProblem(metadata: Readonly<Record<string, unknown>> | null | undefined): string | null {
  const value = metadata?.[MAX_PARALLEL_ELEMENTS_FIELD];
  if (value === undefined || value === null) {
    return null;
  }
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0
    ? null
    : `must be a positive integer (elements in flight at once), got ${String(JSON.stringify(value)).slice(0, 80)}`;
}

function declaredParallelism(metadata: Readonly<Record<string, unknown>> | null | undefined): number | null {
  const value = metadata?.[MAX_PARALLEL_ELEMENTS_FIELD];
  return typeof value === 'number' && parallelismProblem(metadata) === null ? value : null;
}

/**
 * The parallelism limit of one operation: the instance's `maxParallelElements`, else its definition's, capped by
 * the runtime's (MAX_PARALLEL_ELEMENTS); null when none is set, ONAP's behaviour (every ready element at once).
 */
export function parallelismLimit(
  instanceMetadata: Readonly<Record<string, unknown>> | null | undefined,
  definitionMetadata: Readonly<Record<string, unknown>> | null | undefined,
  runtimeLimit: number | null,
): number | null {
  const own = declaredParallelism(instanceMetadata) ?? declaredParallelism(definitionMetadata);
  if (own === null) {
    return runtimeLimit;
  }
  return runtimeLimit === null ? own : Math.min(own, runtimeLimit);
}
