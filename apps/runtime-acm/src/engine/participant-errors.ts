import { DomainError } from '@acm/domain';

/** ONAP's refusal for an unknown participant id. */
export function participantNotFound(participantId: string): DomainError {
  return new DomainError('NOT_FOUND', `Participant Not Found with ID: ${participantId}`, { participantId });
}
