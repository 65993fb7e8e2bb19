import type { Operation } from '../ports/engine.port';
import type { OperationEffect } from './effects';
import { recordEvent } from './effects';

/**
 * Whether supervision watches an operation at all: it runs, is not paused and has not timed out. Nothing of any
 * other operation falls due (no timeout, no resend, no retry, no report).
 */
export function isWatched(operation: Operation): boolean {
  return operation.state === 'RUNNING' && !operation.timedOut && operation.control.pausedAt === null;
}

/**
 * Whether a supervision tick at `now` finds the operation past its deadline and not yet flagged. A paused
 * operation is never overdue: its deadline moves by the pause when it resumes.
 */
export function isOverdue(operation: Operation, now: number): boolean {
  return isWatched(operation) && operation.deadlineAt < now;
}

/**
 * The timeout rule, on the operation alone: an overdue running operation is flagged TIMEOUT once. It keeps
 * running (ONAP keeps the transitional state), so a late success still completes it.
 */
export function timeOutOperation<T extends Operation>(
  operation: T,
  now: number,
): { readonly operation: T; readonly effects: OperationEffect[] } | null {
  if (!isOverdue(operation, now)) {
    return null;
  }
  return {
    // A timed-out operation is neither resent nor retried, and never times out twice: nothing of it falls due.
    operation: { ...operation, timedOut: true, control: { ...operation.control, dueAt: null } },
    effects: [
      recordEvent('TIMEOUT', {}),
      { kind: 'COUNT_FINISHED', order: operation.order, result: 'TIMEOUT', seconds: null },
    ],
  };
}
