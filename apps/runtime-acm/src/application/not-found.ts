import { DomainError } from '@acm/domain';

export function instanceNotFound(instanceId: string): DomainError {
  return new DomainError('NOT_FOUND', `Automation composition instance ${instanceId} not found`, { instanceId });
}

export function definitionNotFound(compositionId: string): DomainError {
  return new DomainError('NOT_FOUND', `Automation composition definition ${compositionId} not found`, {
    compositionId,
  });
}
