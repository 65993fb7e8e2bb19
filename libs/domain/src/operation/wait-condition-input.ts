import type { AutomationComposition, InstanceElement } from '../model';
import { completedStateOf } from '../instance/instance-lifecycle';
import type { InstanceOperation } from '../ports/engine.port';
import { refusal } from '../refusal';
import type { StoredWaitState } from '../control/wait-condition';
import { applySignal, storedWaitStateOf, withWaitState } from '../control/wait-condition';
import { isElementTransitional } from '../planners/phase-planner';
import type { OperationEffect } from './effects';
import { recordEvent } from './effects';
import { waitConditionsOf } from './topology';
import type { InputOf, InstanceDecision, InstanceStep, InstanceStepContext, ReportedElement } from './instance-types';
import { chained, unchanged, withElements, withOperation } from './step-parts';
import { runtimeAnswer } from './ack-input';

/** Wait conditions: elements the runtime runs itself (Heat's WaitConditionHandle), completed by signals. */

/**
 * A signal for a wait condition: a known id changes nothing (200, DUPLICATE); otherwise the wait must be running
 * in this operation; SUCCESS counts, and the `count`-th completes the element (DEPLOYED) through the ACK rules, so
 * its dependants are dispatched and the phase may complete; FAILURE fails it, and the operation's failure rule
 * (or its retry policy) applies.
 */
export function signalWait(
  target: AutomationComposition,
  running: InstanceOperation | null,
  input: InputOf<'SIGNAL'>,
  now: number,
  context: InstanceStepContext,
): InstanceDecision {
  const { elementId, signal } = input;
  const element = target.elements[elementId];
  if (element === undefined) {
    return refusal('NOT_FOUND', `Element ${elementId} not found in instance ${target.instanceId}`, {
      field: 'elementId',
      elementId,
    });
  }
  const settings = waitConditionsOf(context.templates).get(element.definition.name);
  if (settings === undefined) {
    return refusal(
      'VALIDATION_FAILED',
      `elementId: must name a wait-condition element; ${elementId} is a ${element.definition.name} element, run ` +
        'by a participant',
      { problems: [{ field: 'elementId', rule: 'must name a wait-condition element' }] },
    );
  }
  const stored = storedWaitStateOf(element.outProperties);
  const count = (effect: 'COUNTED' | 'COMPLETED' | 'FAILED' | 'DUPLICATE'): OperationEffect => ({
    kind: 'COUNT_SIGNAL',
    elementId,
    status: signal.status,
    effect,
  });
  if (stored?.signalIds.includes(signal.id)) {
    return unchanged(target, [count('DUPLICATE')], running);
  }
  if (
    running === null ||
    stored === null ||
    stored.operationId !== running.operationId ||
    stored.outcome !== 'WAITING' ||
    !isElementTransitional(element)
  ) {
    const outcome = stored === null ? 'never started' : stored.outcome;
    return refusal(
      'NOTHING_RUNNING',
      `Cannot signal element ${elementId}: no wait is running (wait ${outcome}; DeployState: ` +
        `${element.deployState}); a deploy of the instance starts the wait`,
      { action: 'signal', elementId, wait: outcome, deployState: element.deployState, allowedNow: ['DEPLOY'] },
    );
  }
  const applied = applySignal({ count: stored.count, timeoutMs: stored.timeoutMs }, stored, signal);
  const state: StoredWaitState = { ...stored, ...applied.state };
  const outProperties = withWaitState(element.outProperties, state);
  const effect = applied.effect === 'COMPLETED' || applied.effect === 'FAILED' ? applied.effect : 'COUNTED';
  const effects: OperationEffect[] = [
    recordEvent('SIGNAL_RECEIVED', {
      elementId,
      status: signal.status,
      id: signal.id,
      reason: signal.reason,
      effect,
      successes: state.successes,
      count: state.count,
    }),
    count(effect),
  ];
  if (effect === 'COUNTED') {
    const counted = withElements(target, [[elementId, { ...element, outProperties }]]);
    return unchanged({ ...counted, lastMsg: now }, effects, running);
  }
  const completed = effect === 'COMPLETED';
  effects.push(
    recordEvent(completed ? 'WAIT_COMPLETED' : 'WAIT_FAILED', {
      elementId,
      successes: state.successes,
      reason: signal.reason,
    }),
  );
  const done = completed ? completedStateOf(element) : null;
  const report: ReportedElement = {
    elementId,
    // A failed deploy leaves the element undeployed, as a participant reports it (ONAP's simulator does).
    deployState: done?.deployState ?? 'UNDEPLOYED',
    lockState: done?.lockState ?? 'NONE',
    outProperties,
    message: signal.reason ?? (completed ? `${state.successes} of ${state.count} signals` : 'FAILURE signalled'),
    result: completed,
  };
  const phase = running.phase ?? 0;
  const answer = runtimeAnswer(target, running, phase, [report], !completed, report.message ?? null, now, context);
  return { ...answer, effects: [...effects, ...answer.effects] };
}

/**
 * After every step: the phase messages it sent that set wait conditions going start them here instead of at a
 * participant. A deploy starts the wait (its state in the element's outProperties, its own timeout pulling the
 * operation's deadline in); any other order completes a wait condition at once, through the ACK rules. A message
 * that sets only wait conditions going is recorded but not published.
 */
export function settleWaitConditions(
  step: InstanceStep,
  now: number,
  context: InstanceStepContext,
  depth = 0,
): InstanceStep {
  const waitConditions = waitConditionsOf(context.templates);
  const operation = step.operation;
  if (waitConditions.size === 0 || operation === null || operation.state !== 'RUNNING' || step.removed) {
    return step;
  }
  let target = step.target;
  let deadlineAt = operation.deadlineAt;
  const effects: OperationEffect[] = [];
  const finishNow = new Map<number, string[]>();
  for (const effect of step.effects) {
    if (effect.kind !== 'SEND_PHASE') {
      effects.push(effect);
      continue;
    }
    const waits = effect.dispatched.filter((id) => {
      const element = target.elements[id];
      return element !== undefined && waitConditions.has(element.definition.name) && isElementTransitional(element);
    });
    const others = effect.dispatched.filter((id) => !waits.includes(id));
    effects.push(
      waits.length > 0 && others.length === 0 && !effect.firstPhase ? { ...effect, publish: false } : effect,
    );
    if (waits.length === 0) {
      continue;
    }
    // A replacing UPDATE's DEPLOY step starts the wait of a replaced wait condition, as a deploy does.
    if ((effect.step?.order ?? operation.order) !== 'DEPLOY') {
      finishNow.set(effect.phase, [...(finishNow.get(effect.phase) ?? []), ...waits]);
      continue;
    }
    const started: Array<readonly [string, InstanceElement]> = [];
    for (const id of waits) {
      const element = target.elements[id]!;
      const stored = storedWaitStateOf(element.outProperties);
      if (stored?.operationId === operation.operationId && stored.outcome === 'WAITING') {
        continue;
      }
      const settings = waitConditions.get(element.definition.name)!;
      const state: StoredWaitState = {
        operationId: operation.operationId,
        startedAt: now,
        signalIds: [],
        successes: 0,
        outcome: 'WAITING',
        count: settings.count,
        timeoutMs: settings.timeoutMs,
      };
      started.push([id, { ...element, outProperties: withWaitState(element.outProperties, state) }]);
      effects.push(
        recordEvent('WAIT_STARTED', { elementId: id, count: settings.count, timeoutMs: settings.timeoutMs }),
      );
      if (settings.timeoutMs !== null) {
        deadlineAt = Math.min(deadlineAt, now + settings.timeoutMs);
      }
    }
    target = withElements(target, started);
  }
  let settled: InstanceStep = { ...step, target, effects };
  if (deadlineAt !== operation.deadlineAt) {
    settled = withOperation(settled, { ...operation, deadlineAt });
  }
  // Undeploy, delete, lock and the others have nothing to undo in a wait condition: it completes at once.
  for (const [phase, ids] of finishNow) {
    const current = settled.operation!;
    if (current.state !== 'RUNNING' || settled.removed) {
      break;
    }
    const reports = ids.flatMap((id): ReportedElement[] => {
      const element = settled.target.elements[id];
      const done = element ? completedStateOf(element) : null;
      return element && done && isElementTransitional(element)
        ? [{ elementId: id, deployState: done.deployState, lockState: done.lockState, message: null, result: true }]
        : [];
    });
    if (reports.length > 0) {
      settled = chained(settled, runtimeAnswer(settled.target, current, phase, reports, false, null, now, context));
    }
  }
  // What the runtime's own answers dispatched may again be wait conditions; a composition has finitely many.
  return finishNow.size > 0 && depth < 64 ? settleWaitConditions(settled, now, context, depth + 1) : settled;
}

/** The wait conditions still waiting in a timed-out operation: TIMED_OUT, a signal no longer counts. */
export function timeOutWaits(
  target: AutomationComposition,
  operation: InstanceOperation,
  context: InstanceStepContext,
): { readonly target: AutomationComposition; readonly effects: OperationEffect[] } {
  const waitConditions = waitConditionsOf(context.templates);
  const changed: Array<readonly [string, InstanceElement]> = [];
  const effects: OperationEffect[] = [];
  for (const element of Object.values(target.elements)) {
    const stored = waitConditions.has(element.definition.name) ? storedWaitStateOf(element.outProperties) : null;
    if (stored?.operationId !== operation.operationId || stored.outcome !== 'WAITING') {
      continue;
    }
    const state: StoredWaitState = { ...stored, outcome: 'TIMED_OUT' };
    changed.push([element.id, { ...element, outProperties: withWaitState(element.outProperties, state) }]);
    effects.push(
      recordEvent('WAIT_TIMED_OUT', {
        elementId: element.id,
        successes: stored.successes,
        count: stored.count,
        timeoutMs: stored.timeoutMs,
      }),
    );
  }
  return { target: withElements(target, changed), effects };
}
