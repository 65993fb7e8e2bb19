/**
 * Which participant replica acts on a message (ONAP's participant message envelope). Every replica of every participant
 * reads the same topics, so each one filters what it reads with this rule; it must match ONAP's
 * exactly, or a mixed fleet would double-handle or drop work.
 */
import { MESSAGE_ROUTES, isAckMessageType } from './message-types';
import type { ParticipantMessage } from './messages';
import type { Uuid } from './structures';

/** The identity of one participant replica. */
export interface ParticipantIdentity {
  participantId: Uuid;
  replicaId: Uuid;
}

function same(a: string | undefined, b: string): boolean {
  return a !== undefined && a.toLowerCase() === b.toLowerCase();
}

/**
 * True when replica `me` should act on `message`:
 * - participant-originated types (REGISTER, STATUS, acks to the runtime, …) are never for a participant,
 *   although every participant sees them on the shared operation topic;
 * - a non-empty `participantIdList` that lacks my participant id excludes me (not applied to acks,
 *   which have no list);
 * - no `participantId` means broadcast; my `participantId` with no `replicaId` means all my replicas;
 * - otherwise only the replica named by `replicaId` (ONAP does not re-check the participant id here);
 * - finally, a PARTICIPANT_SYNC_MSG is ignored by the replicas listed in its `excludeReplicas` (ONAP
 *   checks this in its sync handler rather than in the envelope rule; the outcome is the same).
 */
export function acceptsMessage(message: ParticipantMessage, me: ParticipantIdentity): boolean {
  if (MESSAGE_ROUTES[message.messageType].direction !== 'RUNTIME_TO_PARTICIPANT') {
    return false;
  }
  if (
    message.messageType === 'PARTICIPANT_SYNC_MSG' &&
    (message.excludeReplicas ?? []).some((replica) => same(replica, me.replicaId))
  ) {
    return false;
  }
  if (!isAckMessageType(message.messageType) && 'participantIdList' in message) {
    const list = message.participantIdList;
    if (list !== undefined && list.length > 0 && !list.some((id) => same(id, me.participantId))) {
      return false;
    }
  }
  if (message.participantId === undefined) {
    return true;
  }
  if (same(message.participantId, me.participantId) && message.replicaId === undefined) {
    return true;
  }
  return same(message.replicaId, me.replicaId);
}
