import type { AutomationComposition, CompositionDefinition } from '../model';
import type { DefinitionOperation, InstanceOperation, Operation } from '../ports/engine.port';
import type { ResendSettings } from '../control/resend-schedule';
import { nextResendAt } from '../control/resend-schedule';
import type { DefinitionStep } from './definition-operation';
import { silentPrimeParticipants } from './definition-operation';
import type { InstanceInput, InstanceStep, OperationWrite } from './instance-types';
import { isWatched } from './timeout';
import type { SupervisionContext } from './supervision-input';
import { silenceOf, supervisionDueOf } from './supervision-input';

/**
 * When supervision must next look at an operation: the earliest of its deadline, its scheduled retry, the resend of
 * a silent phase and the no-progress report of an element, each computed from the state exactly as the rule that
 * acts on it (`isOverdue`, and `supervisionDueOf`, the rule `needsSupervision` reads) decides. The runtime arms a timer for
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

/** What an instance's due time depends on besides its state: what supervision reads (absent control: the deadline alone). */
export type InstanceDueContext = SupervisionContext;

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
  // The rule `needsSupervision` applies, with the same context (`supervisionDueOf`).
  const due = supervisionDueOf(target, operation, context);
  if (due !== null && due.retryAt !== null) {
    dues.push(due.retryAt);
  }
  if (due !== null && due.resendAt !== null) {
    dues.push(due.resendAt);
  }
  dues.push(...(due?.gates ?? []));
  for (const report of due?.reports ?? []) {
    // Reports that fell due by `reportedUpTo` were made: the next one falls due after the next progress.
    if (reportedUpTo === null || report.at > reportedUpTo) {
      dues.push(report.at);
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
