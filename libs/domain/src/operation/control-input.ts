import type { AutomationComposition } from '../model';
import type { InstanceOperation } from '../ports/engine.port';
import { refusal } from '../refusal';
import { cancelledInstance, nothingRunsRefusal, planCancelRollback } from '../control/cancel';
import { decideNextPhase } from '../planners/phase-planner';
import type { OperationEffect } from './effects';
import { recordEvent } from './effects';
import { phaseLookup, waitsOf } from './topology';
import { nextDispatch } from './dispatch';
import type { InputOf, InstanceDecision, InstanceStepContext } from './instance-types';
import { closeOpenPhase, countControl, inFlightOf, sendPhase, stepWith, syncOwn, unchanged } from './step-parts';
import { startOrder } from './order-input';

/** Control of running work: cancel, pause and resume, each refused (not thrown) when nothing runs to act on. */

/**
 * Cancel: nothing new is dispatched, answers in flight are still recorded (the operation is CANCELLED, which
 * records only), and the instance keeps the order's transitional state with FAILED, from where ONAP's orders
 * apply. With `rollback`, the reverse order starts for what the cancelled operation completed or had in flight.
 */
export function cancel(
  target: AutomationComposition,
  running: InstanceOperation | null,
  input: InputOf<'CANCEL'>,
  now: number,
  context: InstanceStepContext,
): InstanceDecision {
  const refused = nothingRunsRefusal('cancel', target, running !== null);
  if (refused !== null) {
    return refused;
  }
  const operation = running!;
  const plan = input.rollback ? planCancelRollback(target, operation.order, input.dispatched) : null;
  if (input.rollback && plan === null) {
    return refusal(
      'ORDER_NOT_ALLOWED',
      `Cannot cancel ${operation.order} with rollback=true: ${operation.order} has no reverse order; cancel ` +
        'without rollback (the instance is then left FAILED, from where ONAP orders apply)',
      { order: operation.order, rollback: true },
    );
  }
  const ended: InstanceOperation = { ...operation, state: 'CANCELLED', finishedAt: now };
  // A new revision, as after every failed transition: a participant tells the next order from the cancelled one
  // (the SDK would otherwise take a re-issued DEPLOY for a resend of the deploy it is still running).
  const cancelled = { ...cancelledInstance(target, now), revisionId: context.newId() };
  const effects: OperationEffect[] = [
    recordEvent('CANCELLED', {
      operationId: operation.operationId,
      order: operation.order,
      phase: operation.phase,
      rollback: input.rollback,
    }),
    { kind: 'COUNT_FINISHED', order: operation.order, result: 'CANCELLED', seconds: null },
    countControl('CANCEL', operation.order, 1, input.rollback),
  ];
  if (plan === null) {
    effects.push(syncOwn(cancelled));
    return stepWith(cancelled, ended, effects);
  }
  const reverse = startOrder(cancelled, null, plan.order, now, context, plan.elements);
  return {
    ...reverse,
    operations: [{ operation: ended, isNew: false }, ...reverse.operations],
    effects: [...effects, ...reverse.effects],
  };
}

/** Pause: the operation dispatches nothing new and its deadlines stop; pausing a paused one changes nothing. */
export function pause(
  target: AutomationComposition,
  running: InstanceOperation | null,
  _input: InputOf<'PAUSE'>,
  now: number,
): InstanceDecision {
  const refused = nothingRunsRefusal('pause', target, running !== null);
  if (refused !== null) {
    return refused;
  }
  const operation = running!;
  if (operation.control.pausedAt !== null) {
    return unchanged(target, [], operation);
  }
  const paused: InstanceOperation = { ...operation, control: { ...operation.control, pausedAt: now } };
  return stepWith(target, paused, [
    recordEvent('PAUSED', { phase: operation.phase }),
    countControl('PAUSE', operation.order),
  ]);
}

/**
 * Resume exactly where it stopped: the deadline (and a scheduled retry) move by the time spent paused, and what
 * the answers recorded meanwhile made due goes out now: the next phase, elements whose dependencies are done,
 * or the completion.
 */
export function resume(
  target: AutomationComposition,
  running: InstanceOperation | null,
  input: InputOf<'RESUME'>,
  now: number,
  context: InstanceStepContext,
): InstanceDecision {
  const refused = nothingRunsRefusal('resume', target, running !== null);
  if (refused !== null) {
    return refused;
  }
  const operation = running!;
  const pausedAt = operation.control.pausedAt;
  if (pausedAt === null) {
    return refusal(
      'NOTHING_RUNNING',
      `Cannot resume the instance: its ${operation.order} is running, not paused; allowed now: pause, cancel`,
      { action: 'resume', order: operation.order, allowedNow: ['pause', 'cancel'] },
    );
  }
  const shiftMs = Math.max(0, now - pausedAt);
  const resumed: InstanceOperation = {
    ...operation,
    deadlineAt: operation.deadlineAt + shiftMs,
    control: {
      ...operation.control,
      pausedAt: null,
      pausedMs: operation.control.pausedMs + shiftMs,
      progressAt: now,
      retryAt: operation.control.retryAt === null ? null : operation.control.retryAt + shiftMs,
    },
  };
  const effects: OperationEffect[] = [
    recordEvent('RESUMED', { phase: operation.phase, pausedMs: shiftMs }),
    countControl('RESUME', operation.order),
  ];
  const order = operation.order;
  const startPhaseOf = phaseLookup(order, context.templates);
  const openPhase = operation.phase ?? 0;
  const decision = decideNextPhase(order, openPhase, target.elements, startPhaseOf);
  const waits = waitsOf(order, target.elements, context.templates);
  if (decision.kind !== 'WAIT') {
    // Answers recorded while paused completed the phase: it closes now, as the last of them would have closed it.
    return closeOpenPhase({ ...target, lastMsg: now }, resumed, decision, {
      effects,
      startPhaseOf,
      waits,
      now,
      context,
    });
  }
  const inFlight = inFlightOf(input.dispatched, target.elements, openPhase, startPhaseOf);
  const { dispatch } = nextDispatch({
    elements: target.elements,
    phase: openPhase,
    startPhaseOf,
    waits,
    inFlight,
    limit: context.maxParallelElements,
    budget: context.runtimeSlots ?? null,
  });
  const due = new Set([...dispatch].filter((id) => !input.dispatched.has(id)));
  if (due.size > 0) {
    effects.push(sendPhase(target, openPhase, startPhaseOf, { describe: due, event: 'ELEMENTS_DISPATCHED' }));
  }
  return stepWith(target, resumed, effects);
}
