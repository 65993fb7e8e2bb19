import { DEFAULT_PROJECT } from '@acm/domain';
import type { CompositionDefinition, DefinitionQuery, DefinitionRepository, Versioned } from '@acm/domain';
import type { Session } from './database';
import { ConstraintViolation, concurrentChange, paged, compareText } from './database';

export class InMemoryDefinitionRepository implements DefinitionRepository {
  constructor(private readonly session: Session) {}

  insert(definition: CompositionDefinition): Promise<void> {
    return this.session.run((tx) => {
      if (this.session.db.get(tx, 'definition', definition.compositionId) !== null) {
        throw new ConstraintViolation(`duplicate key: composition definition ${definition.compositionId}`);
      }
      this.session.db.put(tx, 'definition', definition.compositionId, { value: definition, version: 1 });
    });
  }

  find(compositionId: string): Promise<Versioned<CompositionDefinition> | null> {
    return this.session.run((tx) => this.session.db.get(tx, 'definition', compositionId));
  }

  findForUpdate(compositionId: string): Promise<Versioned<CompositionDefinition> | null> {
    return this.session.run(async (tx) => {
      await this.session.db.locks.acquire(`definition:${compositionId}`, tx);
      return this.session.db.get(tx, 'definition', compositionId);
    });
  }

  list(query: DefinitionQuery): Promise<CompositionDefinition[]> {
    return this.session.run((tx) => {
      const rows = this.session.db
        .scan(tx, 'definition')
        .map(([, row]) => row.value)
        .filter((definition) => query.name === undefined || definition.name === query.name)
        .filter((definition) => query.version === undefined || definition.version === query.version)
        .filter(
          (definition) =>
            query.projects === undefined || query.projects.includes(definition.project ?? DEFAULT_PROJECT),
        )
        .filter(
          (definition) =>
            query.participantId === undefined ||
            Object.values(definition.elementStateMap).some((state) => state.participantId === query.participantId),
        )
        .sort(
          (a, b) =>
            compareText(a.name, b.name) ||
            compareText(a.version, b.version) ||
            compareText(a.compositionId, b.compositionId),
        );
      return paged(rows, query);
    });
  }

  update(definition: CompositionDefinition, expectedVersion: number): Promise<void> {
    return this.session.run(async (tx) => {
      const db = this.session.db;
      await db.locks.acquire(`definition:${definition.compositionId}`, tx);
      const current = db.get(tx, 'definition', definition.compositionId);
      if (current?.version !== expectedVersion) {
        throw concurrentChange('Composition definition', definition.compositionId);
      }
      // A definition never changes project: the stored one stays, whatever the writer passed on.
      const { project: _project, ...rest } = definition;
      const kept = current.value.project === undefined ? rest : { ...rest, project: current.value.project };
      db.put(tx, 'definition', definition.compositionId, { value: kept, version: expectedVersion + 1 });
    });
  }

  delete(compositionId: string, expectedVersion: number): Promise<void> {
    return this.session.run(async (tx) => {
      const db = this.session.db;
      await db.locks.acquire(`definition:${compositionId}`, tx);
      const current = db.get(tx, 'definition', compositionId);
      if (current?.version !== expectedVersion) {
        throw concurrentChange('Composition definition', compositionId);
      }
      const used = db
        .scan(tx, 'instance')
        .some(
          ([, row]) => row.value.compositionId === compositionId || row.value.compositionTargetId === compositionId,
        );
      if (used) {
        throw new ConstraintViolation(`composition definition ${compositionId} is still referenced by an instance`);
      }
      db.remove(tx, 'definition', compositionId);
    });
  }
}
