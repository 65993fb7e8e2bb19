import type { AutomationComposition, InstanceElement } from '../model';
import type { InstanceOrder } from '../instance/instance-lifecycle';
import { completedStateOf } from '../instance/instance-lifecycle';
import type { InstanceOperation } from '../ports/engine.port';
import type { PhaseDecision, StartPhaseOf } from '../planners/phase-planner';
import { isElementTransitional } from '../planners/phase-planner';
import { phaseDeadline } from '../planners/deadlines';
import type { OperationEffect, SendPhaseEffect } from './effects';
import { recordEvent } from './effects';
import { describedWith, nextDispatch } from './dispatch';
import type { InstanceStep, InstanceStepContext } from './instance-types';
import { isNewReplaceStep, replaceStepOf } from './replace-steps';

/** The parts the input modules build their steps from: phase messages, completion, and step arithmetic. */

/** Which elements wait for which (dependsOn, as `waitsOf` reads it). */
export type Waits = Parameters<typeof nextDispatch>[0]['waits'];

export function unchanged(
  target: AutomationComposition,
  effects: OperationEffect[] = [],
  operation: InstanceOperation | null = null,
): InstanceStep {
  return { target, removed: false, operation, operations: [], effects };
}

/** A step that wrote one operation (the one it concerns). */
export function stepWith(
  target: AutomationComposition,
  operation: InstanceOperation,
  effects: readonly OperationEffect[],
): InstanceStep {
  return { target, removed: false, operation, operations: [{ operation, isNew: false }], effects };
}

/**
 * The message that opens a phase with nothing of it in flight yet: it describes the elements that are ready (their
 * dependencies done) up to the parallelism limit; null when the runtime-wide budget lets none go yet.
 */
export function phaseOpening(
  instance: AutomationComposition,
  phase: number,
  startPhaseOf: StartPhaseOf,
  waits: Waits,
  context: InstanceStepContext,
  options: { firstPhase?: boolean } = {},
): SendPhaseEffect | null {
  const { dispatch } = nextDispatch({
    elements: instance.elements,
    phase,
    startPhaseOf,
    waits,
    inFlight: [],
    limit: context.maxParallelElements,
    budget: context.runtimeSlots ?? null,
  });
  // Only a runtime-wide budget leaves nothing to send: the opening waits for a free slot (control.slotWait).
  if (dispatch.size === 0) {
    return null;
  }
  return sendPhase(instance, phase, startPhaseOf, {
    ...options,
    describe: describedWith(instance.elements, phase, startPhaseOf, dispatch),
  });
}

export function sendPhase(
  instance: AutomationComposition,
  phase: number,
  startPhaseOf: StartPhaseOf,
  options: {
    firstPhase?: boolean;
    describe: ReadonlySet<string>;
    event?: SendPhaseEffect['event'];
    resentMessageId?: string;
  },
): SendPhaseEffect {
  const dispatched = Object.values(instance.elements)
    .filter((element) => options.describe.has(element.id) && startPhaseOf(element) === phase)
    .map((element) => element.id);
  const step = replaceStepOf(phase);
  return {
    kind: 'SEND_PHASE',
    instance,
    phase,
    firstPhase: options.firstPhase ?? false,
    // A step of a replace describes only its own elements: the others are in other steps, with other orders.
    describe: step === null ? options.describe : new Set(dispatched),
    dispatched,
    event: options.resentMessageId !== undefined ? 'PHASE_RESENT' : (options.event ?? 'PHASE_STARTED'),
    resentMessageId: options.resentMessageId ?? null,
    ...(step === null ? {} : { step: { order: step.order, startPhase: step.startPhase } }),
  };
}

/**
 * The open phase is done, by its last answer or found so on resume: the operation completes, or moves to the next
 * phase and opens it.
 */
export function closeOpenPhase(
  target: AutomationComposition,
  operation: InstanceOperation,
  decision: Exclude<PhaseDecision, { readonly kind: 'WAIT' }>,
  step: {
    readonly effects: OperationEffect[];
    readonly startPhaseOf: StartPhaseOf;
    readonly waits: Waits;
    readonly now: number;
    readonly context: InstanceStepContext;
  },
): InstanceStep {
  const { effects, startPhaseOf, waits, now, context } = step;
  effects.push(recordEvent('PHASE_COMPLETED', { phase: operation.phase }));
  if (decision.kind === 'COMPLETE') {
    const done = complete(target, operation, effects, now, context);
    return { ...done, operations: [{ operation: done.operation, isNew: false }] };
  }
  const advanced: AutomationComposition = { ...target, phase: decision.phase };
  // ONAP restarts the clock of an operation at every phase and stage.
  const moved: InstanceOperation = {
    ...operation,
    phase: decision.phase,
    deadlineAt: phaseDeadline(advanced, now, context.defaultTimeoutMs),
    // A new phase is progress: its resends count from zero.
    control: { ...operation.control, progressAt: now, resent: 0 },
  };
  // The first message of each step of a replace is its first start phase (a DEPLOY's participant then takes the
  // elements' new properties, as on a deploy's first phase).
  const firstPhase = replaceStepOf(decision.phase) !== null && isNewReplaceStep(operation.phase, decision.phase);
  const opening = phaseOpening(advanced, decision.phase, startPhaseOf, waits, context, { firstPhase });
  if (opening) {
    effects.push(opening);
  }
  return {
    target: advanced,
    removed: false,
    operation: moved,
    operations: [{ operation: moved, isNew: false }],
    effects,
  };
}

export function syncOwn(instance: AutomationComposition): OperationEffect {
  return { kind: 'SYNC_INSTANCE', instance, deleted: false, composition: 'OWN', alsoCompositions: [] };
}

/**
 * The completion mapping: the instance takes the order's final state (DEPLOYED/LOCKED, UNDEPLOYED, ...), gets a
 * new revision, and everyone is told. After a migration or its rollback NEW elements are plain elements and
 * REMOVED ones are gone (as ONAP completes a migration); a finished DELETE removes the instance.
 */
export function complete(
  instance: AutomationComposition,
  operation: InstanceOperation,
  effects: OperationEffect[],
  now: number,
  context: InstanceStepContext,
): Omit<InstanceStep, 'operations'> & { readonly operation: InstanceOperation } {
  const done = completedStateOf(instance) ?? instance;
  const migrated = operation.order === 'MIGRATE';
  const reverted = operation.order === 'MIGRATION_REVERT';
  const elements =
    migrated || reverted
      ? Object.fromEntries(
          Object.entries(instance.elements)
            .filter(([, element]) => element.migrationState !== 'REMOVED')
            .map(([id, element]): [string, InstanceElement] => [id, { ...element, migrationState: 'DEFAULT' }]),
        )
      : instance.elements;
  const hasOther = context.templates.other !== null;
  const completed: AutomationComposition = {
    ...instance,
    compositionId: migrated ? (instance.compositionTargetId ?? instance.compositionId) : instance.compositionId,
    compositionTargetId: migrated || reverted ? null : instance.compositionTargetId,
    elements,
    deployState: done.deployState,
    lockState: done.lockState,
    subState: done.subState,
    stateChangeResult: 'NO_ERROR',
    phase: null,
    precheck: null,
    revisionId: context.newId(),
    lastMsg: now,
  };
  const removed = completed.deployState === 'DELETED';
  effects.push(
    {
      kind: 'SYNC_INSTANCE',
      instance: completed,
      deleted: removed,
      composition: migrated && hasOther ? 'OTHER' : 'OWN',
      alsoCompositions: [...(migrated || reverted ? ['OWN' as const] : []), ...(hasOther ? ['OTHER' as const] : [])],
    },
    recordEvent('COMPLETED', { deployState: completed.deployState, lockState: completed.lockState }),
    // A heal that completes brought its elements back (one that fails or never completes is not HEALED).
    ...(operation.heal === undefined ? [] : [recordEvent('HEALED', { elementIds: operation.heal })]),
    {
      kind: 'COUNT_FINISHED',
      order: operation.order,
      result: 'COMPLETED',
      seconds: (now - operation.startedAt) / 1000,
    },
  );
  return {
    target: completed,
    removed,
    operation: { ...operation, state: 'COMPLETED', finishedAt: now },
    effects,
  };
}

export function countControl(
  control: Extract<OperationEffect, { kind: 'COUNT_CONTROL' }>['control'],
  order: InstanceOrder,
  count = 1,
  rollback?: boolean,
): OperationEffect {
  return { kind: 'COUNT_CONTROL', control, order, count, ...(rollback === undefined ? {} : { rollback }) };
}

/** Of these elements, those in flight in the open phase: in transition, in that phase (a stage ACK moves one on). */
export function inFlightOf(
  ids: Iterable<string>,
  elements: Readonly<Record<string, InstanceElement>>,
  phase: number,
  startPhaseOf: StartPhaseOf,
): string[] {
  return [...ids].filter((id) => {
    const element = elements[id];
    return element !== undefined && isElementTransitional(element) && startPhaseOf(element) === phase;
  });
}

export function withElements(
  target: AutomationComposition,
  changed: ReadonlyArray<readonly [string, InstanceElement]>,
): AutomationComposition {
  return changed.length === 0
    ? target
    : { ...target, elements: { ...target.elements, ...Object.fromEntries(changed) } };
}

/** The step with its operation replaced by `operation` (a write is added when the step wrote none). */
export function withOperation(step: InstanceStep, operation: InstanceOperation): InstanceStep {
  const writes = step.operations.some((write) => write.operation.operationId === operation.operationId)
    ? step.operations.map((write) =>
        write.operation.operationId === operation.operationId ? { ...write, operation } : write,
      )
    : [...step.operations, { operation, isNew: false }];
  return { ...step, operation, operations: writes };
}

/** Two steps taken one after the other, as one: the second's writes of an operation replace the first's. */
export function chained(first: InstanceStep, second: InstanceStep): InstanceStep {
  let step: InstanceStep = { ...first, operations: first.operations };
  for (const write of second.operations) {
    if (write.operation.targetKind === 'INSTANCE') {
      step = withOperation(step, write.operation);
    }
  }
  return {
    target: second.target,
    removed: second.removed,
    operation: second.operation ?? step.operation,
    operations: step.operations,
    effects: [...first.effects, ...second.effects],
  };
}
