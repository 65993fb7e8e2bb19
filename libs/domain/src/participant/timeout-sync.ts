import type { SyncInstanceEffect } from '../operation/effects';
import type { MessageRecord, Operation } from '../ports/engine.port';

/**
 * The SYNC that tells participants an instance operation timed out, as a message its late answers may name.
 *
 * ONAP's participant intermediary, on a PARTICIPANT_SYNC_MSG whose instance is TIMEOUT, interrupts the element's
 * handler and remembers that SYNC's messageId as the one its next report answers (`cleanExecution`); a handler that
 * finishes anyway reports with `responseTo` set to the SYNC, and ONAP's runtime applies the report to the instance.
 * Recorded under the timed-out operation and its open phase, the SYNC's messageId leads that ACK to the operation it
 * concerns. It sets no element going (`elementIds` empty), so resends and hand-overs of the phase never send it again.
 *
 * Null for any other SYNC: a completed, failed or deleted instance is answered by nobody.
 */
export function timeoutSyncMessage(
  effect: SyncInstanceEffect,
  operation: Operation | null,
  messageId: string,
): MessageRecord | null {
  if (
    operation === null ||
    operation.targetKind !== 'INSTANCE' ||
    operation.state !== 'RUNNING' ||
    !operation.timedOut ||
    effect.deleted ||
    effect.instance.stateChangeResult !== 'TIMEOUT'
  ) {
    return null;
  }
  return { messageId, operationId: operation.operationId, phase: operation.phase, elementIds: [] };
}
