import type { AutomationComposition, InstanceElement } from '../model';
import type { InstanceOrder } from '../instance/instance-lifecycle';
import { completedStateOf, transitionalStateFor } from '../instance/instance-lifecycle';
import { firstPhase } from '../instance/phases';
import type { InstanceOperation, Operation, SlotWait } from '../ports/engine.port';
import { freshControl } from '../ports/engine.port';
import { DomainError } from '../errors';
import type { ResendSettings } from '../control/resend-schedule';
import { decideResend } from '../control/resend-schedule';
import type { RetryPolicy } from '../control/retry-policy';
import { decideRetry } from '../control/retry-policy';
import { noProgressTimeoutOf, stuckElements } from '../control/no-progress';
import { assertSomethingRuns, cancelledInstance, planCancelRollback } from '../control/cancel';
import type { Signal, StoredWaitState } from '../control/wait-condition';
import { applySignal, storedWaitStateOf, withWaitState } from '../control/wait-condition';
import type { StateChangeResult } from '../states';
import type { ElementReport, PhaseDecision, StartPhaseOf } from '../planners/phase-planner';
import { applyAck, decideNextPhase, elementsInPhase, isElementTransitional } from '../planners/phase-planner';
import { describedAtPhaseStart } from '../planners/dependency-planner';
import { cascadeOrder } from '../planners/order-cascade';
import { phaseDeadline } from '../planners/deadlines';
import { needsHandOver } from '../planners/hand-over';
import { isStagedOrder } from '../planners/stage-planner';
import type { OperationEffect, SendPhaseEffect } from './effects';
import { ignore, recordEvent, supersededEvent } from './effects';
import type { OperationTemplates } from './topology';
import { phaseLookup, waitConditionsOf, waitsOf } from './topology';
import { describedWith, nextDispatch } from './dispatch';
import { timeOutOperation } from './timeout';

/** One element of an ACK as the participant reported it; `result` null when the participant left it out. */
export type ReportedElement = Omit<ElementReport, 'result'> & { readonly result: boolean | null };

/** A deploy/state-change ACK, as the engine needs it (the wire message is mapped by the shell). */
export interface InstanceAck {
  /** null: the runtime answers for an element it runs itself (a wait condition). */
  readonly participantId: string | null;
  readonly replicaId: string | null;
  /** The messageId it answers; null for an ONAP participant that answers nothing in particular. */
  readonly responseTo: string | null;
  readonly stateChangeResult: StateChangeResult;
  readonly message: string | null;
  /** A stage ACK names the element's next stage; null on final ACKs. */
  readonly stage: number | null;
  readonly reports: readonly ReportedElement[];
}

/** The message an ACK answers, as recorded when it was sent. */
export interface AnsweredMessage {
  readonly operation: Operation;
  readonly phase: number | null;
}

/** One open phase message of the lost participant, with what is known of who took it. */
export interface OpenPhaseMessage {
  readonly messageId: string;
  /** The replicas of the lost participant that answered it. */
  readonly answeredBy: readonly string[];
  /** The elements of its phase it set going; null when the history does not say (it described the whole phase). */
  readonly covered: ReadonlySet<string> | null;
}

/** Which replicas are lost: some judged silent (OFF_LINE, or not answering a probe), or every one (a restart). */
export type LostReplicas =
  | { readonly kind: 'SILENT'; readonly silent: ReadonlySet<string>; readonly workers: ReadonlySet<string> }
  | { readonly kind: 'ALL' };

/**
 * What can happen to an instance's operation. The control of running work (cancel, pause, resume, resend and
 * retry ticks) adds its own kinds here and a case in `decideInstance`.
 */
export type InstanceInput =
  | { readonly kind: 'ORDER'; readonly order: InstanceOrder }
  | {
      readonly kind: 'ACK';
      readonly ack: InstanceAck;
      readonly answered: AnsweredMessage | null;
      /**
       * The elements of the open phase its messages set going so far, when the shell read them (it must when a
       * parallelism limit applies); null otherwise: without a limit, every ready element was dispatched.
       */
      readonly dispatched: ReadonlySet<string> | null;
    }
  | { readonly kind: 'TICK' }
  /** Cancel the running operation; `dispatched`: every element its messages set going (for a rollback). */
  | { readonly kind: 'CANCEL'; readonly rollback: boolean; readonly dispatched: ReadonlySet<string> }
  | { readonly kind: 'PAUSE' }
  /**
   * Runtime-wide slots are free (MAX_PARALLEL_ELEMENTS, `context.runtimeSlots` of them): a waiting operation sends
   * what waited. `dispatched`: the elements of the open phase its messages set going so far.
   */
  | { readonly kind: 'SLOTS'; readonly dispatched: ReadonlySet<string> }
  /** Resume a paused operation; `dispatched`: the elements of the open phase its messages set going so far. */
  | { readonly kind: 'RESUME'; readonly dispatched: ReadonlySet<string> }
  /**
   * A supervision pass over a running operation: a due retry, a resend of a silent phase, a no-progress report.
   * The shell reads the open phase's messages, the elements the scheduled retry covers and those already
   * reported stuck since the last progress.
   */
  | {
      readonly kind: 'SUPERVISE';
      readonly messages: readonly OpenPhaseMessage[];
      readonly retrying: readonly string[];
      readonly reported: ReadonlySet<string>;
    }
  | {
      readonly kind: 'REPLICA_LOST';
      readonly participantId: string;
      readonly lost: LostReplicas;
      readonly messages: readonly OpenPhaseMessage[];
    }
  /** A signal for a wait-condition element (Heat's WaitConditionHandle), from the REST API. */
  | { readonly kind: 'SIGNAL'; readonly elementId: string; readonly signal: Signal };

/** What a step needs besides the state: templates, settings and a source of ids (time is an argument). */
export interface InstanceStepContext {
  readonly templates: OperationTemplates;
  /** MAX_OPERATION_WAIT: a phase's timeout when its elements name none. */
  readonly defaultTimeoutMs: number;
  /** Most elements of one operation in flight at once; null for no limit (ONAP). */
  readonly maxParallelElements: number | null;
  /**
   * Under a runtime-wide limit (MAX_PARALLEL_ELEMENTS), the free slots this step may fill: 0 for every step but the
   * one that fills free slots (`SLOTS`), so slots go to waiting operations in their stable order. The step then
   * keeps the operation's `control.inFlight` and `control.slotWait`. Null or absent: no runtime-wide limit (ONAP).
   */
  readonly runtimeSlots?: number | null;
  readonly newId: () => string;
  /** Control of running work (issue 12); absent: no retries, no resends, no no-progress reports. */
  readonly control?: ControlSettings;
}

/** The settings of the control of running work for one operation, resolved by the shell from configuration. */
export interface ControlSettings {
  /** The instance's retryPolicy, else its definition's; null: a failure fails the operation (ONAP). */
  readonly retryPolicy: RetryPolicy | null;
  /** MAX_WAIT_MS / MAX_RETRY_COUNT, or the definition's metadata. */
  readonly resend: ResendSettings;
  /** NO_PROGRESS_TIMEOUT (an element's `noProgressTimeoutMs` property wins). */
  readonly noProgressTimeoutMs: number;
}

/** An operation written by a step: inserted when new, updated otherwise. */
export interface OperationWrite {
  readonly operation: Operation;
  readonly isNew: boolean;
}

/** The state after one step, and what the world must be told. */
export interface InstanceStep {
  readonly target: AutomationComposition;
  /** The instance is gone (a finished DELETE): the shell deletes the row instead of writing `target`. */
  readonly removed: boolean;
  /** The operation the effects belong to, as it is after the step; null when the input concerned none. */
  readonly operation: InstanceOperation | null;
  /** Every operation the step changed, in the order they are written. */
  readonly operations: readonly OperationWrite[];
  readonly effects: readonly OperationEffect[];
}

function unchanged(
  target: AutomationComposition,
  effects: OperationEffect[] = [],
  operation: InstanceOperation | null = null,
): InstanceStep {
  return { target, removed: false, operation, operations: [], effects };
}

/** The operation an ACK belongs to: the one of the message it answers, else the running one (ONAP's ACKs). */
export function operationOfAck(answered: AnsweredMessage | null, running: Operation | null): Operation | null {
  return answered ? answered.operation : running;
}

/**
 * One step of an instance's operation: `(target, running operation, input, now) → {target, operations, effects}`.
 * `running` is the instance's running operation, if any. Pure: every decision of the engine is taken here.
 */
export function decideInstance(
  target: AutomationComposition,
  running: InstanceOperation | null,
  input: InstanceInput,
  now: number,
  context: InstanceStepContext,
): InstanceStep {
  const step = settleWaitConditions(decideOne(target, running, input, now, context), now, context);
  return context.runtimeSlots === undefined || context.runtimeSlots === null
    ? step
    : accountSlots(step, running, input, context);
}

function decideOne(
  target: AutomationComposition,
  running: InstanceOperation | null,
  input: InstanceInput,
  now: number,
  context: InstanceStepContext,
): InstanceStep {
  switch (input.kind) {
    case 'ORDER':
      return startOrder(target, running, input.order, now, context);
    case 'ACK':
      return applyInstanceAck(target, running, input, now, context);
    case 'TICK':
      return tick(target, running, now, context);
    case 'REPLICA_LOST':
      return handOver(target, running, input, now, context);
    case 'CANCEL':
      return cancel(target, running, input, now, context);
    case 'PAUSE':
      return pauseOperation(target, running, now);
    case 'RESUME':
      return resumeOperation(target, running, input, now, context);
    case 'SUPERVISE':
      return supervise(target, running, input, now, context);
    case 'SIGNAL':
      return signalWait(target, running, input, now, context);
    case 'SLOTS':
      return fillSlots(target, running, input, now, context);
  }
}

/** Whether a participant may have lost work in this instance: one of its elements is still in transition. */
export function hasUnfinishedWorkOf(instance: AutomationComposition, participantId: string): boolean {
  return Object.values(instance.elements).some(
    (element) => element.participantId === participantId && isElementTransitional(element),
  );
}

/**
 * The message that opens a phase with nothing of it in flight yet: it describes the elements that are ready (their
 * dependencies done) up to the parallelism limit; null when the runtime-wide budget lets none go yet.
 */
function phaseOpening(
  instance: AutomationComposition,
  phase: number,
  startPhaseOf: StartPhaseOf,
  waits: Parameters<typeof nextDispatch>[0]['waits'],
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

function sendPhase(
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
  const { describe } = options;
  return {
    kind: 'SEND_PHASE',
    instance,
    phase,
    firstPhase: options.firstPhase ?? false,
    describe,
    dispatched: Object.values(instance.elements)
      .filter((element) => describe.has(element.id) && startPhaseOf(element) === phase)
      .map((element) => element.id),
    event: options.resentMessageId !== undefined ? 'PHASE_RESENT' : (options.event ?? 'PHASE_STARTED'),
    resentMessageId: options.resentMessageId ?? null,
  };
}

/**
 * Opens an operation with its first phase. On a retry of the same order, elements already at its target keep
 * their state, so it only redoes what did not finish (`cascadeOrder`); a running operation is superseded.
 */
function startOrder(
  target: AutomationComposition,
  running: InstanceOperation | null,
  order: InstanceOrder,
  now: number,
  context: InstanceStepContext,
  startWith?: Record<string, InstanceElement>,
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

function applyInstanceAck(
  target: AutomationComposition,
  running: InstanceOperation | null,
  input: Extract<InstanceInput, { kind: 'ACK' }>,
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
  const updated: AutomationComposition = { ...target, elements: application.elements, lastMsg: now };
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
  const decision = decideNextPhase(order, openPhase, application.elements, startPhaseOf);
  const waits = waitsOf(order, application.elements, context.templates);
  // A paused operation records answers but dispatches nothing new; its resume picks up from here.
  const paused = operation.control.pausedAt !== null;
  if (paused && decision.kind !== 'COMPLETE') {
    return { target: updated, removed: false, operation, operations: [], effects };
  }
  switch (decision.kind) {
    case 'WAIT': {
      // What this ACK completed may unblock elements of the open phase (dependsOn, or a parallelism limit).
      const { dispatch } = nextDispatch({
        elements: application.elements,
        phase: openPhase,
        startPhaseOf,
        waits,
        inFlight: inFlightAfter(target.elements, application.elements, openPhase, startPhaseOf, waits, {
          dispatched: input.dispatched,
          limit: context.maxParallelElements,
        }),
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
 * The open phase is done, by its last answer or found so on resume: the operation completes, or moves to the next
 * phase and opens it.
 */
function closeOpenPhase(
  target: AutomationComposition,
  operation: InstanceOperation,
  decision: Exclude<PhaseDecision, { readonly kind: 'WAIT' }>,
  step: {
    readonly effects: OperationEffect[];
    readonly startPhaseOf: StartPhaseOf;
    readonly waits: Parameters<typeof nextDispatch>[0]['waits'];
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
  const opening = phaseOpening(advanced, decision.phase, startPhaseOf, waits, context);
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

/**
 * The elements of the open phase in flight after an ACK: those dispatched so far that are still in transition.
 * When the shell did not read what was dispatched, there is no limit, so every element ready before the ACK was.
 */
function inFlightAfter(
  before: Readonly<Record<string, InstanceElement>>,
  after: Readonly<Record<string, InstanceElement>>,
  phase: number,
  startPhaseOf: StartPhaseOf,
  waits: ReadonlyMap<string, readonly string[]>,
  known: { dispatched: ReadonlySet<string> | null; limit: number | null },
): string[] {
  const dispatched =
    known.dispatched ??
    nextDispatch({ elements: before, phase, startPhaseOf, waits, inFlight: [], limit: known.limit }).dispatch;
  return [...dispatched].filter((id) => {
    const element = after[id];
    return element !== undefined && isElementTransitional(element) && startPhaseOf(element) === phase;
  });
}

function syncOwn(instance: AutomationComposition): OperationEffect {
  return { kind: 'SYNC_INSTANCE', instance, deleted: false, composition: 'OWN', alsoCompositions: [] };
}

/**
 * The completion mapping: the instance takes the order's final state (DEPLOYED/LOCKED, UNDEPLOYED, ...), gets a
 * new revision, and everyone is told. After a migration or its rollback NEW elements are plain elements and
 * REMOVED ones are gone (ONAP §2.5); a finished DELETE removes the instance.
 */
function complete(
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

/** The timeout rule: an overdue operation is flagged; an instance without another error shows TIMEOUT. */
function tick(
  target: AutomationComposition,
  running: InstanceOperation | null,
  now: number,
  context: InstanceStepContext,
): InstanceStep {
  const flagged = running ? timeOutOperation(running, now) : null;
  if (!flagged) {
    return unchanged(target);
  }
  const operation = flagged.operation;
  const operations = [{ operation, isNew: false }];
  // Wait conditions still waiting time out with the operation (their own timeout moved its deadline).
  const waits = timeOutWaits(target, operation, context);
  const effects = [...flagged.effects, ...waits.effects];
  if (target.stateChangeResult !== 'NO_ERROR') {
    return { target: waits.target, removed: false, operation, operations, effects };
  }
  const timedOut: AutomationComposition = { ...waits.target, stateChangeResult: 'TIMEOUT', lastMsg: now };
  return { target: timedOut, removed: false, operation, operations, effects: [...effects, syncOwn(timedOut)] };
}

/**
 * A participant's replicas are lost (silent, or gone with a restart): each open phase message whose taker may be
 * among them (`needsHandOver`) goes out again under its original messageId, to that participant only and
 * describing only its unfinished elements, so a replica that already took it just repeats its ACKs. The phase's
 * clock restarts, since the replica that takes the work over starts it now.
 */
function handOver(
  target: AutomationComposition,
  running: InstanceOperation | null,
  input: Extract<InstanceInput, { kind: 'REPLICA_LOST' }>,
  now: number,
  context: InstanceStepContext,
): InstanceStep {
  const { participantId, lost } = input;
  // A precheck's target lives only in its messages; it is re-ordered by the user after a TIMEOUT.
  if (!running || running.order === 'MIGRATE_PRECHECK' || !hasUnfinishedWorkOf(target, participantId)) {
    return unchanged(target);
  }
  const phase = running.phase ?? 0;
  const startPhaseOf = phaseLookup(running.order, context.templates);
  const mine = elementsInPhase(target.elements, phase, startPhaseOf).filter(
    (element) => element.participantId === participantId,
  );
  if (mine.length === 0) {
    return unchanged(target);
  }
  // The participant's share only: other participants' replicas are not concerned by this loss.
  const share: AutomationComposition = {
    ...target,
    elements: Object.fromEntries(
      Object.entries(target.elements).filter(([, element]) => element.participantId === participantId),
    ),
  };
  const ready = describedAtPhaseStart(
    share.elements,
    phase,
    startPhaseOf,
    waitsOf(running.order, target.elements, context.templates),
  );
  const effects: OperationEffect[] = [];
  for (const message of input.messages) {
    const resend =
      lost.kind === 'ALL' ||
      needsHandOver({ answeredBy: message.answeredBy, silent: lost.silent, workers: lost.workers });
    if (!resend) {
      continue;
    }
    const { covered } = message;
    const describe = new Set(
      [...ready].filter((id) => covered === null || covered.has(id) || startPhaseOf(share.elements[id]!) !== phase),
    );
    if (![...describe].some((id) => startPhaseOf(share.elements[id]!) === phase)) {
      continue;
    }
    effects.push(sendPhase(share, phase, startPhaseOf, { describe, resentMessageId: message.messageId }));
  }
  if (effects.length === 0) {
    return unchanged(target);
  }
  const moved: InstanceOperation = { ...running, deadlineAt: phaseDeadline(target, now, context.defaultTimeoutMs) };
  return { target, removed: false, operation: moved, operations: [{ operation: moved, isNew: false }], effects };
}

// ---- Control of running work (issue 12): cancel, pause, resume, retries, resends, no-progress ----
// The rules themselves are in libs/domain/src/control; these steps apply them to the operation.

function countControl(
  control: Extract<OperationEffect, { kind: 'COUNT_CONTROL' }>['control'],
  order: InstanceOrder,
  count = 1,
  rollback?: boolean,
): OperationEffect {
  return { kind: 'COUNT_CONTROL', control, order, count, ...(rollback === undefined ? {} : { rollback }) };
}

/**
 * Cancel: nothing new is dispatched, answers in flight are still recorded (the operation is CANCELLED, which
 * records only), and the instance keeps the order's transitional state with FAILED, from where ONAP's orders
 * apply. With `rollback`, the reverse order starts for what the cancelled operation completed or had in flight.
 */
function cancel(
  target: AutomationComposition,
  running: InstanceOperation | null,
  input: Extract<InstanceInput, { kind: 'CANCEL' }>,
  now: number,
  context: InstanceStepContext,
): InstanceStep {
  assertSomethingRuns('cancel', target, running !== null);
  const operation = running!;
  const plan = input.rollback ? planCancelRollback(target, operation.order, input.dispatched) : null;
  if (input.rollback && plan === null) {
    throw new DomainError(
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
    return {
      target: cancelled,
      removed: false,
      operation: ended,
      operations: [{ operation: ended, isNew: false }],
      effects,
    };
  }
  const reverse = startOrder(cancelled, null, plan.order, now, context, plan.elements);
  return {
    ...reverse,
    operations: [{ operation: ended, isNew: false }, ...reverse.operations],
    effects: [...effects, ...reverse.effects],
  };
}

/** Pause: the operation dispatches nothing new and its deadlines stop; pausing a paused one changes nothing. */
function pauseOperation(target: AutomationComposition, running: InstanceOperation | null, now: number): InstanceStep {
  assertSomethingRuns('pause', target, running !== null);
  const operation = running!;
  if (operation.control.pausedAt !== null) {
    return unchanged(target, [], operation);
  }
  const paused: InstanceOperation = { ...operation, control: { ...operation.control, pausedAt: now } };
  return {
    target,
    removed: false,
    operation: paused,
    operations: [{ operation: paused, isNew: false }],
    effects: [recordEvent('PAUSED', { phase: operation.phase }), countControl('PAUSE', operation.order)],
  };
}

/**
 * Resume exactly where it stopped: the deadline (and a scheduled retry) move by the time spent paused, and what
 * the answers recorded meanwhile made due goes out now: the next phase, elements whose dependencies are done,
 * or the completion.
 */
function resumeOperation(
  target: AutomationComposition,
  running: InstanceOperation | null,
  input: Extract<InstanceInput, { kind: 'RESUME' }>,
  now: number,
  context: InstanceStepContext,
): InstanceStep {
  assertSomethingRuns('resume', target, running !== null);
  const operation = running!;
  const pausedAt = operation.control.pausedAt;
  if (pausedAt === null) {
    throw new DomainError(
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
  const inFlight = [...input.dispatched].filter((id) => {
    const element = target.elements[id];
    return element !== undefined && isElementTransitional(element) && startPhaseOf(element) === openPhase;
  });
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
  return { target, removed: false, operation: resumed, operations: [{ operation: resumed, isNew: false }], effects };
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

/** The last progress of the open phase: its opening, a dispatch, a resend or retry, an answer, a resume. */
function lastProgressOf(target: AutomationComposition, operation: InstanceOperation): number {
  return Math.max(operation.control.progressAt, target.lastMsg);
}

/** Whether a supervision pass may find something to do, so the shell reads what SUPERVISE needs only then. */
export function needsSupervision(
  target: AutomationComposition,
  running: InstanceOperation | null,
  now: number,
  settings: ControlSettings,
): boolean {
  if (!running || running.control.pausedAt !== null || running.timedOut || running.order === 'MIGRATE_PRECHECK') {
    return false;
  }
  // A phase whose opening waits for a runtime-wide slot has sent nothing: nothing is silent, nothing to resend.
  if (running.control.slotWait === 'FIRST_PHASE' || running.control.slotWait === 'PHASE') {
    return false;
  }
  if (running.control.retryAt !== null) {
    return running.control.retryAt <= now;
  }
  const lastProgressAt = lastProgressOf(target, running);
  const resentSoFar = target.lastMsg > running.control.progressAt ? 0 : running.control.resent;
  if (decideResend(settings.resend, { lastProgressAt, resentSoFar }, now).kind === 'RESEND') {
    return true;
  }
  return Object.values(target.elements).some((element) => {
    const timeoutMs = noProgressTimeoutOf(element.properties, settings.noProgressTimeoutMs);
    return isElementTransitional(element) && timeoutMs !== null && now - lastProgressAt >= timeoutMs;
  });
}

/**
 * One supervision pass: a due retry sends the failed elements again (new messageId: the participant must act
 * again); otherwise an open phase silent for maxWaitMs goes out again under its original messageIds, describing
 * only unfinished elements, with a doubling delay up to maxRetryCount, the deadline unchanged; elements silent past
 * their no-progress timeout are reported once per silence.
 */
function supervise(
  target: AutomationComposition,
  running: InstanceOperation | null,
  input: Extract<InstanceInput, { kind: 'SUPERVISE' }>,
  now: number,
  context: InstanceStepContext,
): InstanceStep {
  const settings = context.control;
  if (!running || !settings || !needsSupervision(target, running, now, settings)) {
    return unchanged(target);
  }
  const order = running.order;
  const phase = running.phase ?? 0;
  const startPhaseOf = phaseLookup(order, context.templates);
  if (running.control.retryAt !== null) {
    const again = input.retrying.filter((id) => {
      const element = target.elements[id];
      return element !== undefined && isElementTransitional(element) && startPhaseOf(element) === phase;
    });
    // The attempt starts now: the phase's clock restarts, as for any phase ONAP opens.
    const moved: InstanceOperation = {
      ...running,
      deadlineAt: phaseDeadline(target, now, context.defaultTimeoutMs),
      control: { ...running.control, retryAt: null, progressAt: now, resent: 0 },
    };
    const effects: OperationEffect[] = [];
    if (again.length > 0) {
      effects.push(
        sendPhase(target, phase, startPhaseOf, {
          describe: describedWith(target.elements, phase, startPhaseOf, new Set(again)),
          event: 'RETRY_STARTED',
        }),
        recordEvent('RETRY_ATTEMPT', { attempt: running.control.retried, elementIds: again }),
      );
    }
    return { target, removed: false, operation: moved, operations: [{ operation: moved, isNew: false }], effects };
  }
  const effects: OperationEffect[] = [];
  let operation = running;
  const lastProgressAt = lastProgressOf(target, running);
  const resentSoFar = target.lastMsg > running.control.progressAt ? 0 : running.control.resent;
  const decision = decideResend(settings.resend, { lastProgressAt, resentSoFar }, now);
  // A wait condition waits for a signal, not for a participant: it is neither resent nor reported stuck.
  const waitConditions = waitConditionsOf(context.templates);
  const runByParticipant = (element: InstanceElement): boolean => !waitConditions.has(element.definition.name);
  if (decision.kind === 'RESEND') {
    const unfinished = new Set(
      elementsInPhase(target.elements, phase, startPhaseOf)
        .filter(runByParticipant)
        .map((element) => element.id),
    );
    const described: string[] = [];
    for (const message of input.messages) {
      const covered = message.covered;
      const mine = [...unfinished].filter((id) => covered === null || covered.has(id));
      if (mine.length === 0) {
        continue;
      }
      described.push(...mine);
      effects.push(
        sendPhase(target, phase, startPhaseOf, {
          describe: describedWith(target.elements, phase, startPhaseOf, new Set(mine)),
          resentMessageId: message.messageId,
        }),
      );
    }
    if (described.length > 0) {
      effects.push(
        recordEvent('RESENT', {
          phase,
          attempt: decision.attempt,
          elementIds: described,
          nextDueAt: decision.nextDueAt,
        }),
        countControl('RESEND', order),
      );
    }
    // The deadline stays: after the last resend, the operation's usual TIMEOUT.
    operation = { ...running, control: { ...running.control, resent: decision.attempt, progressAt: now } };
  }
  const stuck = stuckElements(
    Object.values(target.elements)
      .filter(
        (element) => isElementTransitional(element) && runByParticipant(element) && !input.reported.has(element.id),
      )
      .map((element) => ({
        elementId: element.id,
        lastProgressAt,
        timeoutMs: noProgressTimeoutOf(element.properties, settings.noProgressTimeoutMs),
        reported: false,
      })),
    now,
    settings.noProgressTimeoutMs,
  );
  if (stuck.length > 0) {
    effects.push(
      recordEvent('NO_PROGRESS', {
        phase,
        elementIds: stuck.map((element) => element.elementId),
        silentForMs: Math.max(...stuck.map((element) => element.silentForMs)),
      }),
      countControl('NO_PROGRESS', order, stuck.length),
    );
  }
  const operations = operation === running ? [] : [{ operation, isNew: false }];
  return { target, removed: false, operation, operations, effects };
}

// ---- Wait conditions (issue 12): elements the runtime runs itself, completed by signals ----

function withElements(
  target: AutomationComposition,
  changed: ReadonlyArray<readonly [string, InstanceElement]>,
): AutomationComposition {
  return changed.length === 0
    ? target
    : { ...target, elements: { ...target.elements, ...Object.fromEntries(changed) } };
}

/** The step with its operation replaced by `operation` (a write is added when the step wrote none). */
function withOperation(step: InstanceStep, operation: InstanceOperation): InstanceStep {
  const writes = step.operations.some((write) => write.operation.operationId === operation.operationId)
    ? step.operations.map((write) =>
        write.operation.operationId === operation.operationId ? { ...write, operation } : write,
      )
    : [...step.operations, { operation, isNew: false }];
  return { ...step, operation, operations: writes };
}

/** Two steps taken one after the other, as one: the second's writes of an operation replace the first's. */
function chained(first: InstanceStep, second: InstanceStep): InstanceStep {
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

/** The answer the runtime gives for its own elements, through the same rules as a participant's ACK. */
function runtimeAnswer(
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

/**
 * After every step: the phase messages it sent that set wait conditions going start them here instead of at a
 * participant. A deploy starts the wait (its state in the element's outProperties, its own timeout pulling the
 * operation's deadline in); any other order completes a wait condition at once, through the ACK rules. A message
 * that sets only wait conditions going is recorded but not published.
 */
function settleWaitConditions(step: InstanceStep, now: number, context: InstanceStepContext, depth = 0): InstanceStep {
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
    if (operation.order !== 'DEPLOY') {
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
function timeOutWaits(
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

/**
 * A signal for a wait condition: a known id changes nothing (200, DUPLICATE); otherwise the wait must be running
 * in this operation; SUCCESS counts, and the `count`-th completes the element (DEPLOYED) through the ACK rules, so
 * its dependants are dispatched and the phase may complete; FAILURE fails it, and the operation's failure rule
 * (or its retry policy) applies.
 */
function signalWait(
  target: AutomationComposition,
  running: InstanceOperation | null,
  input: Extract<InstanceInput, { kind: 'SIGNAL' }>,
  now: number,
  context: InstanceStepContext,
): InstanceStep {
  const { elementId, signal } = input;
  const element = target.elements[elementId];
  if (element === undefined) {
    throw new DomainError('NOT_FOUND', `Element ${elementId} not found in instance ${target.instanceId}`, {
      field: 'elementId',
      elementId,
    });
  }
  const settings = waitConditionsOf(context.templates).get(element.definition.name);
  if (settings === undefined) {
    throw new DomainError(
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
    throw new DomainError(
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

// ---- The runtime-wide parallelism limit (MAX_PARALLEL_ELEMENTS) ----

/** Of these elements, those in flight in the open phase: in transition, in that phase (a stage ACK moves one on). */
function inFlightOf(
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

/**
 * Free runtime-wide slots: a waiting operation sends what waited, in its stable order, as many as the slots and
 * its own `maxParallelElements` allow: the phase's opening message (PHASE_STARTED, with the first phase's flag)
 * when none of it went yet, more elements of the open phase otherwise. A phase's deadline starts when it opens.
 */
function fillSlots(
  target: AutomationComposition,
  running: InstanceOperation | null,
  input: Extract<InstanceInput, { kind: 'SLOTS' }>,
  now: number,
  context: InstanceStepContext,
): InstanceStep {
  const wait = running?.control.slotWait ?? null;
  if (!running || wait === null || running.control.pausedAt !== null) {
    return unchanged(target, [], running);
  }
  const phase = running.phase ?? 0;
  const startPhaseOf = phaseLookup(running.order, context.templates);
  const { dispatch } = nextDispatch({
    elements: target.elements,
    phase,
    startPhaseOf,
    waits: waitsOf(running.order, target.elements, context.templates),
    inFlight: inFlightOf(input.dispatched, target.elements, phase, startPhaseOf),
    limit: context.maxParallelElements,
    budget: context.runtimeSlots ?? null,
  });
  if (dispatch.size === 0) {
    return unchanged(target, [], running);
  }
  const opening = wait !== 'ELEMENTS';
  const effect = opening
    ? sendPhase(target, phase, startPhaseOf, {
        firstPhase: wait === 'FIRST_PHASE',
        describe: describedWith(target.elements, phase, startPhaseOf, dispatch),
      })
    : sendPhase(target, phase, startPhaseOf, { describe: dispatch, event: 'ELEMENTS_DISPATCHED' });
  const moved: InstanceOperation = {
    ...running,
    deadlineAt: opening ? phaseDeadline(target, now, context.defaultTimeoutMs) : running.deadlineAt,
    control: { ...running.control, progressAt: now },
  };
  return {
    target: { ...target, lastMsg: now },
    removed: false,
    operation: moved,
    operations: [{ operation: moved, isNew: false }],
    effects: [effect],
  };
}

/** The elements of the open phase a step sets going: its phase messages, not the resends of earlier ones. */
function sentBy(step: InstanceStep, phase: number): string[] {
  return step.effects.flatMap((effect) =>
    effect.kind === 'SEND_PHASE' && effect.phase === phase && effect.resentMessageId === null ? effect.dispatched : [],
  );
}

/** What an input says was dispatched in the open phase before it; null when the shell did not read it. */
function knownDispatched(input: InstanceInput): ReadonlySet<string> | null {
  switch (input.kind) {
    case 'ACK':
    case 'RESUME':
    case 'SLOTS':
      return input.dispatched;
    default:
      return null;
  }
}

/**
 * Under a runtime-wide limit, keeps what the runtime counts on the running operation after a step: its elements in
 * flight (`control.inFlight`) and what it waits for a slot to send (`control.slotWait`), written only when they
 * change. A step that neither dispatches nor was told what was dispatched (a tick, a resend) leaves them as they are.
 */
function accountSlots(
  step: InstanceStep,
  running: InstanceOperation | null,
  input: InstanceInput,
  context: InstanceStepContext,
): InstanceStep {
  const operation = step.operation;
  if (operation === null || operation.state !== 'RUNNING' || step.removed) {
    return step;
  }
  const same = running !== null && running.operationId === operation.operationId;
  const samePhase = same && running.phase === operation.phase;
  const known = knownDispatched(input);
  if (samePhase && known === null) {
    return step;
  }
  const phase = operation.phase ?? 0;
  const going = new Set([...(samePhase && known !== null ? known : []), ...sentBy(step, phase)]);
  const elements = step.target.elements;
  const startPhaseOf = phaseLookup(operation.order, context.templates);
  const inFlight = inFlightOf(going, elements, phase, startPhaseOf);
  const { dispatch } = nextDispatch({
    elements,
    phase,
    startPhaseOf,
    waits: waitsOf(operation.order, elements, context.templates),
    inFlight,
    limit: context.maxParallelElements,
  });
  const wants = [...dispatch].some((id) => !going.has(id));
  const slotWait: SlotWait | null = !wants
    ? null
    : going.size > 0
      ? 'ELEMENTS'
      : !same
        ? 'FIRST_PHASE'
        : samePhase
          ? (running.control.slotWait ?? 'PHASE')
          : 'PHASE';
  if (operation.control.inFlight === inFlight.length && operation.control.slotWait === slotWait) {
    return step;
  }
  const counted: InstanceOperation = {
    ...operation,
    control: { ...operation.control, inFlight: inFlight.length, slotWait },
  };
  const written = step.operations.some((write) => write.operation.operationId === counted.operationId);
  return {
    ...step,
    operation: counted,
    operations: written
      ? step.operations.map((write) =>
          write.operation.operationId === counted.operationId ? { ...write, operation: counted } : write,
        )
      : [...step.operations, { operation: counted, isNew: false }],
  };
}
