import type { OpenPhaseMessage } from './instance-operation';
import type { InstanceOperation, PhaseMessageRecord } from '../ports/engine.port';
import type { StoredEvent } from '../history/history-events';

/** What a supervision pass remembers of earlier passes, read back from the operation's history. */
export interface SupervisionMemory {
  /** Elements of the retry attempt now due (the last RETRY_SCHEDULED of the current attempt). */
  readonly retrying: readonly string[];
  /** Elements already reported as making no progress since the operation last progressed. */
  readonly reported: ReadonlySet<string>;
}

/**
 * Reads the memory of earlier passes from the history: retries and no-progress reports are events, so the
 * scheduler keeps no state of its own and any replica may run the next pass.
 */
export function supervisionMemoryOf(
  history: readonly StoredEvent[],
  operation: InstanceOperation,
  lastMessageAt: number,
): SupervisionMemory {
  const own = history.filter((event) => event.operationId === operation.operationId);
  const sinceProgress = Math.max(operation.control.progressAt, lastMessageAt);
  return {
    retrying: own.flatMap((event) =>
      event.event === 'RETRY_SCHEDULED' && event.detail.attempt === operation.control.retried
        ? event.detail.elementIds
        : [],
    ),
    reported: new Set(
      own.flatMap((event) =>
        event.event === 'NO_PROGRESS' && event.at >= sinceProgress ? event.detail.elementIds : [],
      ),
    ),
  };
}

/** The open phase's messages as the state machine reads them; with a participant, only its replicas' answers count. */
export function openPhaseMessagesOf(
  records: readonly PhaseMessageRecord[],
  participantId: string | null = null,
): OpenPhaseMessage[] {
  return records.map((record) => ({
    messageId: record.messageId,
    answeredBy: record.answeredBy
      .filter((answer) => participantId === null || answer.participantId === participantId)
      .map((answer) => answer.replicaId),
    covered: record.elementIds === null ? null : new Set(record.elementIds),
  }));
}
