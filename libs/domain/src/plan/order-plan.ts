import type { AutomationComposition, InstanceElement } from '../model';
import type { InstanceOrder } from '../instance/instance-lifecycle';
import { completedStateOf, transitionalStateFor } from '../instance/instance-lifecycle';
import { firstPhase } from '../instance/phases';
import { dependencyWaits, describedAtPhaseStart, newlyReady } from '../engine/dependency-planner';
import { decideNextPhase, isElementTransitional } from '../engine/phase-planner';
import { cascadeOrder } from '../engine/order-cascade';
import { isStagedOrder, nextStage } from '../engine/stage-planner';
import type { DeployState, LockState } from '../states';
import type { ElementOrdering } from './order-phases';
import { dependsOnLookup, orderPhases } from './order-phases';

/** The history event that records a step when the engine runs it. */
export type PlanStepKind = 'PHASE_STARTED' | 'ELEMENTS_DISPATCHED';

/** What an order walks: start phases (deploy-like orders), stages (migrate, prepare) or one message. */
export type PlanWalk = 'startPhase' | 'stage' | 'single';

export interface PlanStepElement {
  readonly elementId: string;
  readonly name: string;
  readonly version: string;
  readonly participantId: string | null;
  /**
   * Elements (ids) that must reach the order's target before this one is dispatched: those it depends on for deploy
   * and unlock, those that depend on it for undeploy, lock and delete. Empty when only its phase gates it.
   */
  readonly waitsFor: readonly string[];
}

/** One message the engine would send: the elements it dispatches together, and their participants. */
export interface PlanStep {
  readonly step: number;
  readonly kind: PlanStepKind;
  /** The start phase, or the stage for a staged order (0 for a single-message order). */
  readonly phase: number;
  /** PHASE_STARTED: the phase (or stage) that must be complete first, null for the first one. */
  readonly afterPhase: number | null;
  readonly elements: readonly PlanStepElement[];
  readonly participants: readonly string[];
}

export interface OrderPlan {
  readonly order: InstanceOrder;
  readonly walk: PlanWalk;
  /** The state every element reaches when the order completes (null for an order that only records a sub-state). */
  readonly target: { readonly deployState: DeployState; readonly lockState: LockState } | null;
  /**
   * The steps in the order they run when every element answers at once. Answers that arrive one by one may let a
   * later step of the same phase start before every element of an earlier one is done, never before its
   * `waitsFor` and the phase's `afterPhase` are.
   */
  readonly steps: readonly PlanStep[];
}

export interface PlanInput {
  readonly order: InstanceOrder;
  /** The instance as the order would find it (for a migration: with the planned elements). */
  readonly instance: AutomationComposition;
  /** The element node templates of the instance's composition. */
  readonly templates: readonly ElementOrdering[];
  /** MIGRATE: the target's element node templates; MIGRATION_REVERT: those of the composition it leaves. */
  readonly otherTemplates?: readonly ElementOrdering[];
}

function walkOf(order: InstanceOrder): PlanWalk {
  if (isStagedOrder(order)) {
    return 'stage';
  }
  return ['DEPLOY', 'UNDEPLOY', 'DELETE', 'LOCK', 'UNLOCK'].includes(order) ? 'startPhase' : 'single';
}

/**
 * Plan before apply (OpenTofu's `plan`): the steps an order would run, computed with the engine's own planner
 * functions (cascade, phase or stage lookup, dependency waits, phase-start and newly-ready dispatch, next phase)
 * by letting every dispatched element reach its target (or its next stage) at once.
 */
export function planInstanceOrder(input: PlanInput): OrderPlan {
  const { order } = input;
  const { phaseOf, stagesOf } = orderPhases(order, input.templates, input.otherTemplates);
  const dependsOnOf = dependsOnLookup(input.templates);
  const done = completedStateOf(transitionalStateFor(order));
  const target =
    done === null || done.subState !== 'NONE' ? null : { deployState: done.deployState, lockState: done.lockState };
  const steps: PlanStep[] = [];
  let elements: Record<string, InstanceElement> = cascadeOrder(input.instance, order);
  const pending = Object.values(elements).filter(isElementTransitional).map(phaseOf);
  if (pending.length === 0) {
    return { order, walk: walkOf(order), target, steps };
  }
  const waitsIn = (current: Readonly<Record<string, InstanceElement>>): ReadonlyMap<string, readonly string[]> =>
    dependencyWaits(order, current, dependsOnOf);
  const addStep = (kind: PlanStepKind, phase: number, afterPhase: number | null, ids: readonly string[]): void => {
    const waits = waitsIn(elements);
    const stepElements = ids
      .map((id) => elements[id])
      .filter((element): element is InstanceElement => element !== undefined)
      .map((element) => ({
        elementId: element.id,
        name: element.definition.name,
        version: element.definition.version,
        participantId: element.participantId,
        waitsFor: [...(waits.get(element.id) ?? [])],
      }));
    const participants = [
      ...new Set(stepElements.flatMap((element) => (element.participantId === null ? [] : [element.participantId]))),
    ];
    steps.push({ step: steps.length + 1, kind, phase, afterPhase, elements: stepElements, participants });
  };
  const startPhase = (phase: number, afterPhase: number | null): string[] => {
    const described = describedAtPhaseStart(elements, phase, phaseOf, waitsIn(elements));
    const ids = Object.values(elements)
      .filter((element) => described.has(element.id) && phaseOf(element) === phase)
      .map((element) => element.id);
    addStep('PHASE_STARTED', phase, afterPhase, ids);
    return ids;
  };
  let phase = firstPhase(order, pending);
  let dispatched = startPhase(phase, null);
  // Each round dispatches at least one element (or moves an element to its next stage), so this bounds the walk.
  const rounds = Object.keys(elements).length * (1 + Math.max(...Object.values(elements).map(stageCount(stagesOf))));
  for (let round = 0; round <= rounds && dispatched.length > 0; round += 1) {
    const before = elements;
    elements = { ...elements };
    for (const id of dispatched) {
      const element = elements[id];
      if (element !== undefined) {
        elements[id] = answered(order, element, phaseOf(element), stagesOf);
      }
    }
    const decision = decideNextPhase(order, phase, elements, phaseOf);
    if (decision.kind === 'COMPLETE') {
      break;
    }
    if (decision.kind === 'ADVANCE') {
      const previous = phase;
      phase = decision.phase;
      dispatched = startPhase(phase, previous);
      continue;
    }
    dispatched = newlyReady(before, elements, phase, phaseOf, waitsIn(elements)).map((element) => element.id);
    if (dispatched.length > 0) {
      addStep('ELEMENTS_DISPATCHED', phase, null, dispatched);
    }
  }
  return { order, walk: walkOf(order), target, steps };
}

function stageCount(
  stagesOf: (element: InstanceElement) => { prepare: readonly number[]; migrate: readonly number[] },
) {
  return (element: InstanceElement): number => {
    const sets = stagesOf(element);
    return Math.max(sets.prepare.length, sets.migrate.length);
  };
}

/**
 * An element after its participant answered a successful ACK: at the order's target, or — during a staged order —
 * at the next stage of its set while one is left (the stage ACK a participant sends).
 */
function answered(
  order: InstanceOrder,
  element: InstanceElement,
  phase: number,
  stagesOf: (element: InstanceElement) => { prepare: readonly number[]; migrate: readonly number[] },
): InstanceElement {
  if (isStagedOrder(order)) {
    const next = nextStage(order, stagesOf(element), phase);
    if (next !== phase) {
      return { ...element, stage: next };
    }
  }
  const done = completedStateOf(element);
  return done === null ? element : { ...element, ...done };
}
