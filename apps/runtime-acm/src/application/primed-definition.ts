import type { CompositionDefinition, ReadModel } from '@acm/domain';
import { DomainError } from '@acm/domain';
import { definitionNotFound } from './not-found';

/** A migration's (and an instance's) composition must be PRIMED; the order and its plan refuse alike. */
export async function primedDefinition(store: ReadModel, compositionId: string): Promise<CompositionDefinition> {
  const found = await store.definitions.find(compositionId);
  if (!found) {
    throw definitionNotFound(compositionId);
  }
  if (found.value.state !== 'PRIMED') {
    throw new DomainError(
      'ORDER_NOT_ALLOWED',
      `${compositionId} Commissioned automation composition definition not primed (state ${found.value.state}): ` +
        'prime it first',
      { compositionId, state: found.value.state },
    );
  }
  return found.value;
}
