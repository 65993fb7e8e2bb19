import type { AutomationComposition, InstanceElement } from '../model';
import type { InstanceOperation, Operation } from '../ports/engine.port';
import { decideResend, nextResendAt } from '../control/resend-schedule';
import { noProgressTimeoutOf, stuckElements } from '../control/no-progress';
import { elementsInPhase, isElementTransitional } from '../planners/phase-planner';
import { phaseDeadline } from '../planners/deadlines';
import type { OperationEffect } from './effects';
import { recordEvent } from './effects';
import type { OperationTemplates } from './topology';
import { phaseLookup, waitConditionsOf } from './topology';
import { describedWith } from './dispatch';
import { isWatched, timeOutOperation } from './timeout';
import type { InputOf, InstanceStep, InstanceStepContext } from './instance-types';
import { countControl, inFlightOf, sendPhase, stepWith, syncOwn, unchanged } from './step-parts';
import { timeOutWaits } from './wait-condition-input';
import { gateDueTimes, gatedElementIds, superviseGates } from './gate-input';

/** TICK: the timeout rule. An overdue operation is flagged; an instance without another error shows TIMEOUT. */
export function tick(
  target: AutomationComposition,
  running: InstanceOperation | null,
  _input: InputOf<'TICK'>,
  now: number,
  context: InstanceStepContext,
): InstanceStep {
  const flagged = running ? timeOutOperation(running, now) : null;
  if (!flagged) {
    return unchanged(target);
  }
  const operation = flagged.operation;
  // Wait conditions still waiting time out with the operation (their own timeout moved its deadline).
  const waits = timeOutWaits(target, operation, context);
  const effects = [...flagged.effects, ...waits.effects];
  if (target.stateChangeResult !== 'NO_ERROR') {
    return stepWith(waits.target, operation, effects);
  }
  const timedOut: AutomationComposition = { ...waits.target, stateChangeResult: 'TIMEOUT', lastMsg: now };
  return stepWith(timedOut, operation, [...effects, syncOwn(timedOut)]);
}

/** The silence of the open phase as supervision reads it: its last progress, and the resends since. */
export function silenceOf(
  operation: Operation,
  lastMsg: number,
): { readonly lastProgressAt: number; readonly resentSoFar: number } {
  return {
    // The last progress: its opening, a dispatch, a resend or retry, an answer (lastMsg), a resume.
    lastProgressAt: Math.max(operation.control.progressAt, lastMsg),
    resentSoFar: lastMsg > operation.control.progressAt ? 0 : operation.control.resent,
  };
}

/** Whether an element is run by a participant: a wait condition waits for a signal, never resent nor reported. */
export function runByParticipantIn(templates: OperationTemplates): (element: InstanceElement) => boolean {
  const waitConditions = waitConditionsOf(templates);
  return (element) => !waitConditions.has(element.definition.name);
}

/** When each supervision rule of a running instance operation falls due next, from its state alone. */
export interface SupervisionDue {
  /** A scheduled retry; while one is pending, no resend and no no-progress report is due. */
  readonly retryAt: number | null;
  /** The resend of the silent open phase; null when resends are off or exhausted. */
  readonly resendAt: number | null;
  /** Elements in transition with a no-progress timeout, and when their report falls due. */
  readonly reports: ReadonlyArray<{ readonly elementId: string; readonly at: number }>;
  /** When each waiting health gate is next evaluated (its bake's end, its deadline, its next fresh report). */
  readonly gates: readonly number[];
}

/** What supervision reads besides the state: which elements a participant runs, and the control settings. */
export type SupervisionContext = Pick<InstanceStepContext, 'templates' | 'control' | 'gatePollMs'>;

/**
 * The one rule of supervision's due times: `needsSupervision` (is anything due now?) and `instanceDueAt` (when is
 * the next?) both read it, with the same context, so they cannot disagree on which elements count: a wait
 * condition waits for a signal, not for a participant, so it is never resent nor reported stuck. Null when
 * supervision has nothing to look at: no control settings, or the operation is paused, timed out or finished, is a
 * precheck (re-ordered by the user after a TIMEOUT), or its phase's opening waits for a runtime-wide slot (it sent
 * nothing, so nothing is silent).
 */
export function supervisionDueOf(
  target: AutomationComposition,
  running: InstanceOperation,
  context: SupervisionContext,
): SupervisionDue | null {
  const settings = context.control;
  const slotWait = running.control.slotWait;
  if (
    settings === undefined ||
    !isWatched(running) ||
    running.order === 'MIGRATE_PRECHECK' ||
    slotWait === 'FIRST_PHASE' ||
    slotWait === 'PHASE'
  ) {
    return null;
  }
  if (running.control.retryAt !== null) {
    return { retryAt: running.control.retryAt, resendAt: null, reports: [], gates: [] };
  }
  const silence = silenceOf(running, target.lastMsg);
  const runByParticipant = runByParticipantIn(context.templates);
  // An element whose health gate waits has answered: it is neither resent nor reported stuck.
  const gated = gatedElementIds(running);
  const reports = Object.values(target.elements).flatMap((element) => {
    const timeoutMs = noProgressTimeoutOf(element.properties, settings.noProgressTimeoutMs);
    return isElementTransitional(element) && runByParticipant(element) && !gated.has(element.id) && timeoutMs !== null
      ? [{ elementId: element.id, at: silence.lastProgressAt + timeoutMs }]
      : [];
  });
  return {
    retryAt: null,
    resendAt: nextResendAt(settings.resend, silence),
    reports,
    gates: gateDueTimes(target, running, context),
  };
}

/**
 * Whether a supervision pass may find something to do, so the shell reads what SUPERVISE needs only then: the
 * earliest time `supervisionDueOf` gives has come.
 */
export function needsSupervision(
  target: AutomationComposition,
  running: InstanceOperation | null,
  now: number,
  context: SupervisionContext,
): boolean {
  const due = running === null ? null : supervisionDueOf(target, running, context);
  return (
    due !== null &&
    [due.retryAt, due.resendAt, ...due.reports.map((report) => report.at), ...due.gates].some(
      (at) => at !== null && at <= now,
    )
  );
}

/**
 * One supervision pass: a due retry sends the failed elements again (new messageId: the participant must act
 * again); otherwise an open phase silent for maxWaitMs goes out again under its original messageIds, describing
 * only unfinished elements, with a doubling delay up to maxRetryCount, the deadline unchanged; elements silent past
 * their no-progress timeout are reported once per silence.
 */
export function supervise(
  target: AutomationComposition,
  running: InstanceOperation | null,
  input: InputOf<'SUPERVISE'>,
  now: number,
  context: InstanceStepContext,
): InstanceStep {
  const settings = context.control;
  if (!running || !settings || !needsSupervision(target, running, now, context)) {
    return unchanged(target);
  }
  const order = running.order;
  const phase = running.phase ?? 0;
  const startPhaseOf = phaseLookup(order, context.templates);
  if (running.control.retryAt !== null) {
    const again = inFlightOf(input.retrying, target.elements, phase, startPhaseOf);
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
    return stepWith(target, moved, effects);
  }
  // The waiting health gates first: a gate that passed or failed answers for its element through the ACK rules.
  const gateStep = superviseGates(target, running, now, context);
  if (gateStep !== null && (gateStep.target !== target || gateStep.operation?.state !== 'RUNNING')) {
    return gateStep;
  }
  const gatedNow = gateStep?.operation ?? running;
  const afterGates = gateStep?.effects ?? [];
  const gated = gatedElementIds(gatedNow);
  const effects: OperationEffect[] = [...afterGates];
  let operation = gatedNow;
  const silence = silenceOf(running, target.lastMsg);
  const lastProgressAt = silence.lastProgressAt;
  const decision = decideResend(settings.resend, silence, now);
  // A wait condition waits for a signal, not for a participant: it is neither resent nor reported stuck.
  const runByParticipant = runByParticipantIn(context.templates);
  if (decision.kind === 'RESEND') {
    const unfinished = new Set(
      elementsInPhase(target.elements, phase, startPhaseOf)
        .filter((element) => runByParticipant(element) && !gated.has(element.id))
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
    operation = { ...operation, control: { ...operation.control, resent: decision.attempt, progressAt: now } };
  }
  const stuck = stuckElements(
    Object.values(target.elements)
      .filter(
        (element) =>
          isElementTransitional(element) &&
          runByParticipant(element) &&
          !gated.has(element.id) &&
          !input.reported.has(element.id),
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
