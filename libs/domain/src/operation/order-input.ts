import type { AutomationComposition, InstanceElement } from '../model';
import type { InstanceOrder } from '../instance/instance-lifecycle';
import { transitionalStateFor } from '../instance/instance-lifecycle';
import { firstPhase } from '../instance/phases';
import type { InstanceOperation } from '../ports/engine.port';
import { freshControl } from '../ports/engine.port';
import { isElementTransitional } from '../planners/phase-planner';
import { cascadeOrder } from '../planners/order-cascade';
import { phaseDeadline } from '../planners/deadlines';
import type { OperationEffect } from './effects';
import { recordEvent, supersededEvent } from './effects';
import { phaseLookup, waitsOf } from './topology';
import type { InputOf, InstanceStep, InstanceStepContext, OperationWrite } from './instance-types';
import { complete, phaseOpening } from './step-parts';
import type { ReplaceStart } from './replace-steps';
import { startReplaceUpdate } from './replace-steps';

/** ORDER: a user's order opens an operation (ONAP's orders are checked against the state before they get here). */
export function decideOrder(
  target: AutomationComposition,
  running: InstanceOperation | null,
  input: InputOf<'ORDER'>,
  now: number,
  context: InstanceStepContext,
): InstanceStep {
  if (input.order === 'DEPLOY' && input.heal !== undefined) {
    return startHeal(target, running, input.heal, now, context);
  }
  if (input.order !== 'UPDATE' || input.replace === undefined) {
    return startOrder(target, running, input.order, now, context);
  }
  const start = startReplaceUpdate(target.elements, input.replace, context.templates.own, context.newId);
  const step = startOrder(target, running, 'UPDATE', now, context, start.elements);
  // The history names each replace (and the property that forces it) and each orphan, right after the order.
  const ordered = step.effects.findIndex((effect) => effect.kind === 'RECORD_EVENT' && effect.event === 'ORDERED');
  const effects = [...step.effects];
  effects.splice(ordered + 1, 0, ...plannedEvents(start));
  return { ...step, effects };
}

/**
 * A heal: a DEPLOY whose elements to deploy are only the healed ones (the others keep their state, as a retry of a
 * failed deploy keeps those it deployed), so the deploy's phases and dependencies order them. HEAL follows ORDERED;
 * the operation keeps the healed elements, so its completion records HEALED.
 */
function startHeal(
  target: AutomationComposition,
  running: InstanceOperation | null,
  heal: readonly string[],
  now: number,
  context: InstanceStepContext,
): InstanceStep {
  const during = transitionalStateFor('DEPLOY');
  const healed = new Set(heal);
  const elements = Object.fromEntries(
    Object.entries(target.elements).map(([id, element]): [string, InstanceElement] => [
      id,
      healed.has(id) ? { ...element, ...during, message: null } : element,
    ]),
  );
  const elementIds = [...healed].filter((id) => id in elements).sort();
  const step = startOrder(target, running, 'DEPLOY', now, context, elements, elementIds);
  const ordered = step.effects.findIndex((effect) => effect.kind === 'RECORD_EVENT' && effect.event === 'ORDERED');
  const effects = [...step.effects];
  effects.splice(ordered + 1, 0, recordEvent('HEAL', { elementIds }));
  return { ...step, effects };
}

function plannedEvents(start: ReplaceStart): OperationEffect[] {
  const replacements = new Map(start.created.map((created) => [created.replaced, created.by]));
  return start.classification.changes
    .filter((change) => change.kind === 'REPLACE' || change.kind === 'ORPHAN')
    .map((change) =>
      recordEvent('REPLACE_PLANNED', {
        elementId: change.elementId,
        change: change.kind === 'REPLACE' ? 'REPLACE' : 'ORPHAN',
        forcedBy: change.forcedBy,
        replacementId: replacements.get(change.elementId) ?? null,
      }),
    );
}

/**
 * Opens an operation with its first phase. On a retry of the same order, elements already at its target keep
 * their state, so it only redoes what did not finish (`cascadeOrder`); a running operation is superseded.
 */
export function startOrder(
  target: AutomationComposition,
  running: InstanceOperation | null,
  order: InstanceOrder,
  now: number,
  context: InstanceStepContext,
  startWith?: Record<string, InstanceElement>,
  heal?: readonly string[],
): InstanceStep {
  const during = transitionalStateFor(order);
  const elements = startWith ?? cascadeOrder(target, order);
  const startPhaseOf = phaseLookup(order, context.templates);
  const pendingPhases = Object.values(elements).filter(isElementTransitional).map(startPhaseOf);
  const phase = firstPhase(order, pendingPhases);
  const operation: InstanceOperation = {
    operationId: context.newId(),
    targetKind: 'INSTANCE',
    targetId: target.instanceId,
    order,
    state: 'RUNNING',
    timedOut: false,
    phase,
    startedAt: now,
    deadlineAt: phaseDeadline({ deployState: during.deployState, elements }, now, context.defaultTimeoutMs),
    finishedAt: null,
    control: freshControl(now),
    ...(heal === undefined ? {} : { heal }),
  };
  const started: AutomationComposition = {
    ...target,
    ...during,
    stateChangeResult: 'NO_ERROR',
    phase,
    precheck: order === 'MIGRATE_PRECHECK' ? true : target.precheck,
    elements,
    lastMsg: now,
  };
  const writes: OperationWrite[] = [
    ...(running ? [{ operation: { ...running, state: 'SUPERSEDED' as const, finishedAt: now }, isNew: false }] : []),
    { operation, isNew: true },
  ];
  const effects: OperationEffect[] = [
    ...(running ? [supersededEvent(running, order)] : []),
    recordEvent('ORDERED', { order }),
  ];
  if (pendingPhases.length === 0) {
    const done = complete(started, operation, effects, now, context);
    return { ...done, operations: [...writes.slice(0, -1), { operation: done.operation, isNew: true }] };
  }
  const opening = phaseOpening(started, phase, startPhaseOf, waitsOf(order, elements, context.templates), context, {
    firstPhase: true,
  });
  if (opening) {
    effects.push(opening);
  }
  return { target: started, removed: false, operation, operations: writes, effects };
}
