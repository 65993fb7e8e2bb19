import type { DefinitionRepository, InstanceRepository, ParticipantRepository } from './store.port';
import type { EventRepository, OperationRepository } from './engine.port';

/**
 * What the REST list and get pages read: a view of the repositories without a write, a lock or an engine query,
 * so a page cannot change state or wait behind an order. Every `Store` is one.
 */
export interface ReadModel {
  readonly definitions: Pick<DefinitionRepository, 'find' | 'list'>;
  readonly instances: Pick<InstanceRepository, 'find' | 'list' | 'elementsOfParticipant' | 'countUsingDefinition'>;
  readonly participants: Pick<ParticipantRepository, 'find' | 'list'>;
  readonly operations: Pick<OperationRepository, 'findRunning' | 'history'>;
  readonly events: Pick<EventRepository, 'list'>;
}

/** Reads for the REST pages, outside any transaction (each statement on its own, on any connection). */
export abstract class ReadModels {
  abstract read<T>(work: (model: ReadModel) => Promise<T>): Promise<T>;
}
