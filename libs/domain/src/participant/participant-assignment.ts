import { DomainError } from '../errors';
import type { Participant } from '../model';

/** An element node template as priming sees it: which element type it needs. */
export interface ElementTypeNeed {
  readonly name: string;
  readonly type: string;
  readonly typeVersion: string;
}

/**
 * Picks, for every element node template, the participant that registered its (type, type_version),
 * as ONAP's priming does. Every unsupported type is named in one refusal.
 */
export function assignParticipants(
  elements: readonly ElementTypeNeed[],
  participants: readonly Participant[],
): Map<string, string> {
  const owners = new Map<string, string>();
  for (const participant of participants) {
    for (const type of Object.values(participant.participantSupportedElementTypes)) {
      owners.set(`${type.typeName} ${type.typeVersion}`, participant.participantId);
    }
  }
  const assignment = new Map<string, string>();
  const unsupported: string[] = [];
  for (const element of elements) {
    const key = `${element.type} ${element.typeVersion}`;
    const owner = owners.get(key);
    if (owner === undefined) {
      unsupported.push(`Element Type ${key} not supported (node template ${element.name})`);
    } else {
      assignment.set(element.name, owner);
    }
  }
  if (unsupported.length > 0) {
    throw new DomainError(
      'VALIDATION_FAILED',
      `${unsupported.join('\n')}\nNo registered participant supports it: start a participant for that element type and retry`,
      { unsupported },
    );
  }
  return assignment;
}

/** ONAP's liveness gate: an order that needs a participant is refused while it has no ON_LINE replica. */
export function assertParticipantsOnline(
  participantIds: Iterable<string>,
  participants: ReadonlyMap<string, Participant>,
): void {
  const offline = [...new Set(participantIds)].filter((id) => {
    const participant = participants.get(id);
    return (
      participant === undefined ||
      !Object.values(participant.replicas).some((replica) => replica.participantState === 'ON_LINE')
    );
  });
  if (offline.length > 0) {
    throw new DomainError(
      'PARTICIPANT_OFFLINE',
      offline.map((id) => `Participant: ${id} is OFFLINE`).join('\n') +
        '\nNo ON_LINE replica answers for it: start or reconnect the participant and retry',
      { offline },
    );
  }
}
