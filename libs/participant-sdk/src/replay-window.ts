/**
 * A participant's operation-topic group starts at the oldest retained record when it has no committed
 * position (a new participant, or a broker that came back empty), so orders published while it was
 * away are not missed. Orders from long before this replica started are history, not work: running a
 * year-old DEPLOY again would redo what the runtime has long since undone. They are skipped.
 */
import type { ParticipantMessage } from '@acm/contracts';

/**
 * How much older than the replica's start an order may be and still run; default 10 minutes, well
 * beyond a broker restart or a participant restart, well below any order the runtime still waits for
 * (its default operation timeout is far shorter than that backlog would be).
 *
 * @publicApi Default of `replayWindowMs`.
 */
export const DEFAULT_REPLAY_WINDOW_MS = 10 * 60_000;

const ORDER_TYPES: ReadonlySet<ParticipantMessage['messageType']> = new Set([
  'PARTICIPANT_PRIME',
  'AUTOMATION_COMPOSITION_DEPLOY',
  'AUTOMATION_COMPOSITION_STATE_CHANGE',
  'PROPERTIES_UPDATE',
  'AUTOMATION_COMPOSITION_MIGRATION',
  'AUTOMATION_COMPOSITION_PREPARE',
]);

/** True for an order stamped more than `windowMs` before `startedAtMs`. */
export function isReplayedHistory(message: ParticipantMessage, startedAtMs: number, windowMs: number): boolean {
  if (!ORDER_TYPES.has(message.messageType) || !('timestamp' in message)) {
    return false;
  }
  const stamped = Date.parse(String(message.timestamp));
  return Number.isFinite(stamped) && stamped < startedAtMs - windowMs;
}
