import type { AutomationComposition, CompositionDefinition } from '../model';
import type { DefinitionOperation, InstanceOperation, Operation } from '../ports/engine.port';
import type { ResendSettings } from '../control/resend-schedule';
import { nextResendAt } from '../control/resend-schedule';
import { noProgressTimeoutOf } from '../control/no-progress';
import { isElementTransitional } from '../planners/phase-planner';
import type { DefinitionStep } from './definition-operation';
import { silentPrimeParticipants } from './definition-operation';
import type { ControlSettings, InstanceInput, InstanceStep, OperationWrite } from './instance-operation';
import type { OperationTemplates } from './topology';
import { waitConditionsOf } from './topology';

/**
 * When supervision must next look at an operation: the earliest of its deadline, its scheduled retry, the resend of
 * a silent phase and the no-progress report of an element, each computed from the state exactly as the rule that
 * acts on it (`isOverdue`, `needsSupervision`, `decideResend`, `stuckElements`) decides. The runtime arms a timer for
 * the earliest due time it knows, so these fire when they fall due instead of at the next supervision scan.
 *
 * The due time is a lower bound: the rule is decided again, under the target's lock, when it fires. Progress that a
 * step does not write on the operation (an ACK, a STATUS report) only moves a due time later, so a stored one may
 * be early (the timer then finds nothing to do and stores the new one), never late.
 */

/** The first instant the timeout rule holds: `isOverdue` is strict (`deadlineAt < now`). */
function timeoutDueAt(operation: Operation): number {
  return operation.deadlineAt + 1;
}

/** The due time of an operation whose target is gone: only its deadline is left (see `timeOutOperation`). */
export function deadlineDueAt(operation: Operation): number | null {
  return isWatched(operation) ? timeoutDueAt(operation) : null;
}

function earliest(times: readonly number[]): number {
  return times.reduce((first, time) => (time < first ? time : first));
}

function isWatched(operation: Operation): boolean {
  return operation.state === 'RUNNING' && !operation.timedOut && operation.control.pausedAt === null;
}

/** The last progress of the open phase and the resends since, as supervision reads them. */
function silenceOf(
  operation: Operation,
  lastMsg: number,
): { readonly lastProgressAt: number; readonly resentSoFar: number } {
  return {
    lastProgressAt: operation.control.progressAt > lastMsg ? operation.control.progressAt : lastMsg,
    resentSoFar: lastMsg > operation.control.progressAt ? 0 : operation.control.resent,
  };
}

/** What an instance's due time depends on besides its state. */
export interface InstanceDueContext {
  readonly templates: OperationTemplates;
  /** Absent: no retries, resends or no-progress reports (the deadline alone). */
  readonly control?: ControlSettings;
}

/**
 * The due time of a running instance operation, or null when nothing of it can fall due (paused, timed out,
 * finished). `reportedUpTo`: elements whose no-progress report fell due by then were reported (a supervision pass
 * just ran at that time); null when the step did not read which were.
 */
export function instanceDueAt(
  target: AutomationComposition,
  operation: InstanceOperation,
  context: InstanceDueContext,
  reportedUpTo: number | null,
): number | null {
  if (!isWatched(operation)) {
    return null;
  }
  const dues = [timeoutDueAt(operation)];
  const settings = context.control;
  // A phase whose opening waits for a runtime-wide slot sent nothing: nothing is silent (as in needsSupervision).
  const waitsForSlot = operation.control.slotWait === 'FIRST_PHASE' || operation.control.slotWait === 'PHASE';
  if (settings !== undefined && operation.order !== 'MIGRATE_PRECHECK' && !waitsForSlot) {
    if (operation.control.retryAt !== null) {
      dues.push(operation.control.retryAt);
    } else {
      const silence = silenceOf(operation, target.lastMsg);
      const resend = nextResendAt(settings.resend, silence);
      if (resend !== null) {
        dues.push(resend);
      }
      // A wait condition waits for a signal, not for a participant: it is never reported stuck.
      const waitConditions = waitConditionsOf(context.templates);
      for (const element of Object.values(target.elements)) {
        const timeoutMs = noProgressTimeoutOf(element.properties, settings.noProgressTimeoutMs);
        if (!isElementTransitional(element) || waitConditions.has(element.definition.name) || timeoutMs === null) {
          continue;
        }
        const reportAt = silence.lastProgressAt + timeoutMs;
        if (reportedUpTo === null || reportAt > reportedUpTo) {
          dues.push(reportAt);
        }
      }
    }
  }
  return earliest(dues);
}

/** The due time of a running prime or deprime: its deadline, and the resend while a participant has not answered. */
export function definitionDueAt(
  target: CompositionDefinition,
  operation: DefinitionOperation,
  resend: ResendSettings | null,
): number | null {
  if (!isWatched(operation)) {
    return null;
  }
  const dues = [timeoutDueAt(operation)];
  if (resend !== null && silentPrimeParticipants(target, operation.order).length > 0) {
    const at = nextResendAt(resend, silenceOf(operation, target.lastMsg));
    if (at !== null) {
      dues.push(at);
    }
  }
  return earliest(dues);
}

/**
 * Whether an operation the step does not write must be written for its due time: when the new one is earlier
 * (a stored one that is too late would fire late), or when the stored one passed and changed (else the timer would
 * fire again for nothing). A later due time is left for the timer to find: an ACK need not write its operation.
 */
export function dueTimeMoved(stored: number | null, due: number | null, now: number): boolean {
  if (stored === due) {
    return false;
  }
  return (due !== null && (stored === null || due < stored)) || (stored !== null && stored <= now);
}

function withDueAt<T extends Operation>(operation: T, dueAt: number | null): T {
  return operation.control.dueAt === dueAt ? operation : { ...operation, control: { ...operation.control, dueAt } };
}

/**
 * The step with the due time of every operation it writes, and with a write of `running` when its due time moved
 * (`dueTimeMoved`); `dueOf` is given running operations only.
 */
function stamped<S extends { readonly operation: Operation | null; readonly operations: readonly OperationWrite[] }>(
  step: S,
  running: Operation | null,
  now: number,
  dueOf: (operation: Operation) => number | null,
): S {
  const due = (operation: Operation): number | null => (operation.state === 'RUNNING' ? dueOf(operation) : null);
  const operations = step.operations.map((write) => ({
    ...write,
    operation: withDueAt(write.operation, due(write.operation)),
  }));
  const written = new Set(operations.map((write) => write.operation.operationId));
  if (running !== null && running.state === 'RUNNING' && !written.has(running.operationId)) {
    const dueAt = due(running);
    if (dueTimeMoved(running.control.dueAt, dueAt, now)) {
      operations.push({ operation: withDueAt(running, dueAt), isNew: false });
    }
  }
  const byId = new Map(operations.map((write) => [write.operation.operationId, write.operation]));
  const operation = step.operation === null ? null : (byId.get(step.operation.operationId) ?? step.operation);
  return { ...step, operation, operations };
}

/**
 * An instance step with the due times of its operations (and `running`'s, when it moved). After a supervision
 * pass, the no-progress reports that fell due by `now` were made.
 */
export function withInstanceDueTimes(
  step: InstanceStep,
  running: InstanceOperation | null,
  input: InstanceInput,
  now: number,
  context: InstanceDueContext,
): InstanceStep {
  const reportedUpTo = input.kind === 'SUPERVISE' ? now : null;
  return stamped(step, running, now, (operation) =>
    operation.targetKind === 'INSTANCE' ? instanceDueAt(step.target, operation, context, reportedUpTo) : null,
  );
}

/** A definition step with the due times of its operations (and `running`'s, when it moved). */
export function withDefinitionDueTimes(
  step: DefinitionStep,
  running: DefinitionOperation | null,
  now: number,
  resend: ResendSettings | null,
): DefinitionStep {
  return stamped(step, running, now, (operation) =>
    operation.targetKind === 'DEFINITION' ? definitionDueAt(step.target, operation, resend) : null,
  );
}
