import type { AutomationComposition, InstanceElement } from '../model';
import type { InstanceOrder } from '../instance/instance-lifecycle';
import { transitionalStateFor } from '../instance/instance-lifecycle';
import type { InstanceOperation, Operation } from '../ports/engine.port';
import { decideRetry } from '../control/retry-policy';
import type { StartPhaseOf } from '../planners/phase-planner';
import { applyAck, decideNextPhase } from '../planners/phase-planner';
import { isStagedOrder } from '../planners/stage-planner';
import type { IgnoreEffect, OperationEffect } from './effects';
import { ignore, recordEvent } from './effects';
import { phaseLookup, waitsOf } from './topology';
import { nextDispatch } from './dispatch';
import { nextReplaceStates } from './replace-steps';
import type {
  AnsweredMessage,
  InputOf,
  InstanceAck,
  InstanceStep,
  InstanceStepContext,
  ReportedElement,
} from './instance-types';
import { closeOpenPhase, countControl, inFlightOf, sendPhase, syncOwn, unchanged } from './step-parts';
import type { Waits } from './step-parts';

/** The operation an ACK belongs to: the one of the message it answers, else the running one (ONAP's ACKs). */
export function operationOfAck(answered: AnsweredMessage | null, running: Operation | null): Operation | null {
  return answered ? answered.operation : running;
}

/**
 * An ACK that answers a message of another target (its `responseTo` names a message sent for another instance or
 * definition, or one never sent) is ignored before anything is locked for it; null when it may apply.
 */
export function ackForAnotherTarget(
  responseTo: string | null,
  answered: AnsweredMessage | null,
  targetId: string,
): IgnoreEffect | null {
  return responseTo !== null && answered?.operation.targetId !== targetId
    ? ignore('UNKNOWN_MESSAGE', `ACK answers unknown message ${responseTo}`)
    : null;
}

/** ACK: a participant (or the runtime, for its own elements) reports results of the open phase. */
export function applyInstanceAck(
  target: AutomationComposition,
  running: InstanceOperation | null,
  input: InputOf<'ACK'>,
  now: number,
  context: InstanceStepContext,
): InstanceStep {
  const { ack, answered } = input;
  const instanceId = target.instanceId;
  const operation = operationOfAck(answered, running);
  // A FAILED or CANCELLED operation still records the results of its elements in flight (as ONAP does for a
  // failed one); it never advances...
  const recordsOnly = operation?.state === 'FAILED' || operation?.state === 'CANCELLED';
  if (!operation || operation.targetKind !== 'INSTANCE' || (operation.state !== 'RUNNING' && !recordsOnly)) {
    return unchanged(target, [
      ignore('STALE', `ACK for instance ${instanceId} answers an operation that is no longer running`),
    ]);
  }
  // ...but only while no newer order (a retry, a rollback) runs: then its late answers are stale.
  if (recordsOnly && running && running.operationId !== operation.operationId) {
    return unchanged(target, [
      ignore('STALE', `ACK for instance ${instanceId} answers a failed operation a newer order replaced`),
    ]);
  }
  const effects: OperationEffect[] = [];
  if (answered && ack.responseTo !== null && ack.replicaId !== null && ack.participantId !== null) {
    effects.push({
      kind: 'RECORD_ANSWER',
      messageId: ack.responseTo,
      participantId: ack.participantId,
      replicaId: ack.replicaId,
    });
  }
  const order = operation.order;
  const startPhaseOf = phaseLookup(order, context.templates);
  const phase = answered?.phase ?? operation.phase ?? 0;
  const application = applyAck(
    target.elements,
    {
      participantId: ack.participantId,
      phase,
      stateChangeResult: ack.stateChangeResult,
      message: ack.message,
      ...(ack.stage !== null && isStagedOrder(order) ? { stage: ack.stage } : {}),
      reports: ack.reports.map((report) => ({
        ...report,
        result: report.result ?? ack.stateChangeResult !== 'FAILED',
      })),
    },
    startPhaseOf,
  );
  for (const { elementId, reason } of application.ignored) {
    effects.push(ignore(reason, `ACK from ${ack.participantId} for element ${elementId} of ${instanceId}: ${reason}`));
  }
  // A precheck also asks about elements the instance does not have yet (NEW ones): their failure counts.
  const precheckFailed = order === 'MIGRATE_PRECHECK' && ack.stateChangeResult === 'FAILED';
  if (application.applied.length === 0 && !precheckFailed) {
    return unchanged(target, effects, operation);
  }
  for (const elementId of application.applied) {
    const element = application.elements[elementId];
    effects.push(
      recordEvent('ELEMENT_RESULT', {
        elementId,
        participantId: ack.participantId,
        phase,
        deployState: element === undefined ? 'DELETED' : element.deployState,
        lockState: element === undefined ? 'NONE' : element.lockState,
        ...(element === undefined ? { removed: true } : {}),
        ...(element?.stage !== null && element?.stage !== undefined && ack.stage !== null
          ? { nextStage: element.stage }
          : {}),
        result: !application.failed,
        message: element === undefined ? ack.message : element.message,
      }),
    );
  }
  // A replacing UPDATE moves an element whose undeploy is done on to its deploy or its delete.
  const elementsAfter =
    order === 'UPDATE' ? nextReplaceStates(target.elements, application.elements) : application.elements;
  const updated: AutomationComposition = { ...target, elements: elementsAfter, lastMsg: now };
  if (application.failed && !precheckFailed && operation.state === 'RUNNING' && target.stateChangeResult !== 'FAILED') {
    const reportedFailed = new Set(
      ack.reports.filter((report) => report.result === false).map((report) => report.elementId),
    );
    const failedIds = application.applied.filter(
      (id) => application.elements[id] !== undefined && (ack.stateChangeResult === 'FAILED' || reportedFailed.has(id)),
    );
    const retry = scheduleRetry(updated, operation, failedIds, now, context);
    if (retry) {
      return { ...retry, effects: [...effects, ...retry.effects] };
    }
  }
  if (application.failed || precheckFailed || target.stateChangeResult === 'FAILED') {
    const failed: AutomationComposition = { ...updated, stateChangeResult: 'FAILED' };
    if (operation.state !== 'RUNNING' || target.stateChangeResult === 'FAILED') {
      return { target: failed, removed: false, operation, operations: [], effects };
    }
    effects.push(recordEvent('FAILED', { message: ack.message }), syncOwn(failed), {
      kind: 'COUNT_FINISHED',
      order,
      result: 'FAILED',
      seconds: null,
    });
    const ended: InstanceOperation = { ...operation, state: 'FAILED', finishedAt: now };
    return {
      target: failed,
      removed: false,
      operation: ended,
      operations: [{ operation: ended, isNew: false }],
      effects,
    };
  }
  const openPhase = operation.phase ?? phase;
  const decision = decideNextPhase(order, openPhase, elementsAfter, startPhaseOf);
  const waits = waitsOf(order, elementsAfter, context.templates);
  // A paused operation records answers but dispatches nothing new; its resume picks up from here.
  const paused = operation.control.pausedAt !== null;
  if (paused && decision.kind !== 'COMPLETE') {
    return { target: updated, removed: false, operation, operations: [], effects };
  }
  switch (decision.kind) {
    case 'WAIT': {
      // What this ACK completed may unblock elements of the open phase (dependsOn, or a parallelism limit).
      const { dispatch } = nextDispatch({
        elements: elementsAfter,
        phase: openPhase,
        startPhaseOf,
        waits,
        // What was dispatched before this ACK follows the waits before it (a replace step's waits change with it).
        inFlight: inFlightAfter(
          target.elements,
          elementsAfter,
          openPhase,
          startPhaseOf,
          waitsOf(order, target.elements, context.templates),
          {
            dispatched: input.dispatched,
            limit: context.maxParallelElements,
          },
        ),
        limit: context.maxParallelElements,
        budget: context.runtimeSlots ?? null,
      });
      if (dispatch.size > 0) {
        effects.push(sendPhase(updated, openPhase, startPhaseOf, { describe: dispatch, event: 'ELEMENTS_DISPATCHED' }));
      }
      return { target: updated, removed: false, operation, operations: [], effects };
    }
    case 'ADVANCE':
    case 'COMPLETE':
      return closeOpenPhase(updated, operation, decision, { effects, startPhaseOf, waits, now, context });
  }
}

/**
 * The elements of the open phase in flight after an ACK: those dispatched so far that are still in transition.
 * When the shell did not read what was dispatched, there is no limit, so every element ready before the ACK was.
 */
function inFlightAfter(
  before: Readonly<Record<string, InstanceElement>>,
  after: Readonly<Record<string, InstanceElement>>,
  phase: number,
  startPhaseOf: StartPhaseOf,
  waits: Waits,
  known: { dispatched: ReadonlySet<string> | null; limit: number | null },
): string[] {
  const dispatched =
    known.dispatched ??
    nextDispatch({ elements: before, phase, startPhaseOf, waits, inFlight: [], limit: known.limit }).dispatch;
  return inFlightOf(dispatched, after, phase, startPhaseOf);
}

/**
 * A FAILED element result under a retry policy: instead of failing the operation, the failed elements go back
 * into transition and are sent again, alone, after the backoff. Failures while a retry is pending join it. Null
 * when no retry applies (no policy, limit reached, an order that is not phased).
 */
function scheduleRetry(
  updated: AutomationComposition,
  operation: InstanceOperation,
  failedIds: readonly string[],
  now: number,
  context: InstanceStepContext,
): InstanceStep | null {
  const policy = context.control?.retryPolicy ?? null;
  if (!RETRYABLE_ORDERS.has(operation.order) || failedIds.length === 0 || policy === null) {
    return null;
  }
  const pending = operation.control.retryAt;
  const decision =
    pending !== null
      ? { kind: 'RETRY' as const, attempt: operation.control.retried, delayMs: pending - now, dueAt: pending }
      : decideRetry(policy, operation.control.retried, now);
  if (decision.kind === 'GIVE_UP') {
    return null;
  }
  const during = transitionalStateFor(operation.order);
  const elements = { ...updated.elements };
  for (const id of failedIds) {
    elements[id] = { ...elements[id]!, ...during };
  }
  const scheduled: InstanceOperation = {
    ...operation,
    control: { ...operation.control, retried: decision.attempt, retryAt: decision.dueAt },
  };
  const effects: OperationEffect[] = [
    recordEvent('RETRY_SCHEDULED', {
      attempt: decision.attempt,
      delayMs: decision.delayMs,
      elementIds: [...failedIds],
      message: updated.elements[failedIds[0]!]?.message ?? null,
    }),
  ];
  if (pending === null) {
    effects.push(countControl('RETRY', operation.order));
  }
  return {
    target: { ...updated, elements },
    removed: false,
    operation: scheduled,
    operations: [{ operation: scheduled, isNew: false }],
    effects,
  };
}

/** Orders whose failed elements a retry policy may send again (one phase message each, per start phase). */
const RETRYABLE_ORDERS: ReadonlySet<InstanceOrder> = new Set(['DEPLOY', 'UNDEPLOY', 'DELETE', 'LOCK', 'UNLOCK']);

/** The answer the runtime gives for its own elements, through the same rules as a participant's ACK. */
export function runtimeAnswer(
  target: AutomationComposition,
  operation: InstanceOperation,
  phase: number,
  reports: readonly ReportedElement[],
  failed: boolean,
  message: string | null,
  now: number,
  context: InstanceStepContext,
): InstanceStep {
  const ack: InstanceAck = {
    participantId: null,
    replicaId: null,
    responseTo: null,
    stateChangeResult: failed ? 'FAILED' : 'NO_ERROR',
    message,
    stage: null,
    reports,
  };
  return applyInstanceAck(
    target,
    operation,
    { kind: 'ACK', ack, answered: { operation, phase }, dispatched: null },
    now,
    context,
  );
}
