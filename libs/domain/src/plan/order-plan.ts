import { healthGatesOf } from '../operation/gate-input';
import type { AutomationComposition, InstanceElement } from '../model';
import type { InstanceOrder } from '../instance/instance-lifecycle';
import { completedStateOf, transitionalStateFor } from '../instance/instance-lifecycle';
import type { InstanceOperation } from '../ports/engine.port';
import { isStagedOrder, nextStage } from '../planners/stage-planner';
import type { SendPhaseEffect } from '../operation/effects';
import type { InputOf, InstanceStep, InstanceStepContext } from '../operation/instance-operation';
import { decideInstance } from '../operation/instance-operation';
import { waitsOf } from '../operation/topology';
import type { DeployState, LockState } from '../states';
import type { ElementTemplate } from '../operation/topology';
import { stageSetsOf } from './stage-sets';
import { plannedReferenceValues } from '../operation/reference-input';
import type { ReplaceUpdate } from '../operation/replace-steps';

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
  /**
   * Only for an element whose properties hold references (get_attribute, get_property): what each reads, by where it
   * is written, "(known after deploy)" while the element it reads has not reported it; sensitive values masked.
   */
  readonly references?: Readonly<Record<string, unknown>>;
  /**
   * Only in a deploy, for an element with a health gate: once it answered DEPLOYED, what it must report (the condition)
   * and for how long (ms) before its dependants and the next phase go; past the deadline (ms) it fails.
   */
  readonly gate?: { readonly condition: string; readonly bakeMs: number; readonly deadlineMs: number | null };
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
  /** Most elements in flight at once (instance, definition or runtime setting); null for no limit. */
  readonly maxParallelElements: number | null;
  /**
   * The messages in the order they go out when the elements answer one at a time, in the order they were
   * dispatched. Answers in another order may send the same elements in other messages, never an element before
   * what it `waitsFor` and the phase its step opens after.
   */
  readonly steps: readonly PlanStep[];
}

export interface PlanInput {
  readonly order: InstanceOrder;
  /** The instance as the order would find it (for a migration: with the planned elements). */
  readonly instance: AutomationComposition;
  /** The element node templates of the instance's composition. */
  readonly templates: readonly ElementTemplate[];
  /** MIGRATE: the target's element node templates; MIGRATION_REVERT: those of the composition it leaves. */
  readonly otherTemplates?: readonly ElementTemplate[];
  /** The operation's parallelism limit (see parallelismLimit); null or absent for none. */
  readonly maxParallelElements?: number | null;
  /** A replacing UPDATE (replace-steps.ts): `instance` is then the instance as it is, the new properties are here. */
  readonly replace?: ReplaceUpdate;
}

function walkOf(order: InstanceOrder): PlanWalk {
  if (isStagedOrder(order)) {
    return 'stage';
  }
  return ['DEPLOY', 'UNDEPLOY', 'DELETE', 'LOCK', 'UNLOCK'].includes(order) ? 'startPhase' : 'single';
}

interface Dispatched {
  readonly elementId: string;
  readonly phase: number;
}

/**
 * Plan before apply (OpenTofu's `plan`): the engine's own decide step (`decideInstance`) run on the order, then on
 * one successful ACK per dispatched element — the target state, or during a staged order the next stage of the
 * element's set while one is left, as participants answer — until the operation completes. Each SEND_PHASE effect
 * it gives is a step, so a plan lists exactly the messages the engine would send for those answers.
 */
export function planInstanceOrder(input: PlanInput): OrderPlan {
  const { order } = input;
  const maxParallelElements = input.maxParallelElements ?? null;
  const templates = { own: input.templates, other: input.otherTemplates ?? null };
  const stagesOf = stageSetsOf(order, templates.own, templates.other);
  const done = completedStateOf(transitionalStateFor(order));
  const target =
    done === null || done.subState !== 'NONE' ? null : { deployState: done.deployState, lockState: done.lockState };
  let ids = 0;
  const context: InstanceStepContext = {
    templates,
    defaultTimeoutMs: 1,
    maxParallelElements,
    newId: () => `plan-${(ids += 1)}`,
    planning: true,
  };
  const steps: PlanStep[] = [];
  const queue: Dispatched[] = [];
  const dispatchedIn = new Map<number, Set<string>>();
  let lastOpened: number | null = null;
  const take = (step: InstanceStep): void => {
    for (const effect of step.effects) {
      if (effect.kind !== 'SEND_PHASE' || effect.dispatched.length === 0) {
        continue;
      }
      const opens = effect.event === 'PHASE_STARTED';
      steps.push(stepOf(effect, steps.length + 1, opens ? lastOpened : null, order, templates));
      if (opens) {
        lastOpened = effect.phase;
      }
      const set = dispatchedIn.get(effect.phase) ?? new Set<string>();
      for (const elementId of effect.dispatched) {
        set.add(elementId);
        queue.push({ elementId, phase: effect.phase });
      }
      dispatchedIn.set(effect.phase, set);
    }
  };
  const ordered = input.replace === undefined ? { order } : { order, replace: input.replace };
  let step = decideInstance(input.instance, null, { kind: 'ORDER', ...ordered }, 0, context);
  take(step);
  // Every dispatch is answered once; a stage ACK may dispatch the element again, at most once per stage.
  const bound = Object.keys(input.instance.elements).length * 64 + 1;
  for (let round = 0; round < bound && queue.length > 0 && !step.removed; round += 1) {
    const { elementId, phase } = queue.shift()!;
    const operation = step.operation;
    const element = step.target.elements[elementId];
    if (operation === null || element === undefined) {
      break;
    }
    step = decideInstance(
      step.target,
      operation,
      ackFor(order, element, phase, operation, stagesOf, dispatchedIn),
      0,
      context,
    );
    take(step);
  }
  return { order, walk: walkOf(order), target, maxParallelElements, steps };
}

/** The successful ACK a participant sends for one element it was dispatched in `phase`. */
function ackFor(
  order: InstanceOrder,
  element: InstanceElement,
  phase: number,
  operation: InstanceOperation,
  stagesOf: ReturnType<typeof stageSetsOf>,
  dispatchedIn: ReadonlyMap<number, ReadonlySet<string>>,
): InputOf<'ACK'> {
  const next = isStagedOrder(order) ? nextStage(order, stagesOf(element), phase) : phase;
  const staged = next !== phase;
  const reached = staged ? null : completedStateOf(element);
  return {
    kind: 'ACK',
    ack: {
      participantId: element.participantId ?? '',
      replicaId: null,
      responseTo: null,
      stateChangeResult: 'NO_ERROR',
      message: null,
      stage: staged ? next : null,
      reports: [
        {
          elementId: element.id,
          deployState: reached?.deployState ?? element.deployState,
          lockState: reached?.lockState ?? element.lockState,
          result: true,
        },
      ],
    },
    answered: { operation, phase },
    dispatched: dispatchedIn.get(phase) ?? new Set(),
  };
}

function stepOf(
  effect: SendPhaseEffect,
  number: number,
  afterPhase: number | null,
  order: InstanceOrder,
  templates: Parameters<typeof waitsOf>[2],
): PlanStep {
  const waits = waitsOf(order, effect.instance.elements, templates);
  const gates = healthGatesOf(templates);
  const elements = effect.dispatched
    .map((id) => effect.instance.elements[id])
    .filter((element): element is InstanceElement => element !== undefined)
    .map((element): PlanStepElement => {
      const gate = order === 'DEPLOY' ? gates.get(element.definition.name)?.rules : undefined;
      const references =
        order === 'DEPLOY' || order === 'UPDATE'
          ? plannedReferenceValues(element, effect.instance.elements, templates.own)
          : null;
      return {
        elementId: element.id,
        name: element.definition.name,
        version: element.definition.version,
        participantId: element.participantId,
        waitsFor: [...(waits.get(element.id) ?? [])],
        ...(references === null ? {} : { references }),
        ...(gate === undefined ? {} : { gate }),
      };
    });
  const participants = [
    ...new Set(elements.flatMap((element) => (element.participantId === null ? [] : [element.participantId]))),
  ];
  return {
    step: number,
    kind: effect.event === 'PHASE_STARTED' ? 'PHASE_STARTED' : 'ELEMENTS_DISPATCHED',
    phase: effect.phase,
    afterPhase,
    elements,
    participants,
  };
}
