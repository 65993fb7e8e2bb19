import type { CompositionDefinition, DefinitionQuery, DefinitionRepository, Versioned } from '@acm/domain';
import type { EntityManager } from 'typeorm';
import { CompositionDefinitionEntity } from '../entities/composition-definition.entity';
import { definitionToDomain, definitionToPersistence } from '../mappers/definition.mapper';
import { asInsertable, concurrentChange, paged } from './sql-support';

export class TypeOrmDefinitionRepository implements DefinitionRepository {
  constructor(private readonly manager: EntityManager) {}

  async insert(definition: CompositionDefinition): Promise<void> {
    await this.manager.insert(CompositionDefinitionEntity, asInsertable(definitionToPersistence(definition, 1)));
  }

  async find(compositionId: string): Promise<Versioned<CompositionDefinition> | null> {
    const row = await this.manager.findOneBy(CompositionDefinitionEntity, { compositionId });
    return row ? { value: definitionToDomain(row), version: row.rowVersion } : null;
  }

  async findForUpdate(compositionId: string): Promise<Versioned<CompositionDefinition> | null> {
    const row = await this.manager
      .createQueryBuilder(CompositionDefinitionEntity, 'd')
      .setLock('pessimistic_write')
      .where('d.compositionId = :compositionId', { compositionId })
      .getOne();
    return row ? { value: definitionToDomain(row), version: row.rowVersion } : null;
  }

  async list(query: DefinitionQuery): Promise<CompositionDefinition[]> {
    let builder = this.manager
      .createQueryBuilder(CompositionDefinitionEntity, 'd')
      .orderBy('d.name', 'ASC')
      .addOrderBy('d.version', 'ASC')
      .addOrderBy('d.compositionId', 'ASC');
    if (query.name !== undefined) {
      builder = builder.andWhere('d.name = :name', { name: query.name });
    }
    if (query.version !== undefined) {
      builder = builder.andWhere('d.version = :version', { version: query.version });
    }
    if (query.projects !== undefined) {
      builder = builder.andWhere('d.project = ANY(:projects::text[])', { projects: [...query.projects] });
    }
    if (query.participantId !== undefined) {
      builder = builder.andWhere(
        `EXISTS (SELECT 1 FROM jsonb_each(d.element_state_map) e WHERE e.value->>'participantId' = :participantId)`,
        { participantId: query.participantId },
      );
    }
    const rows = await paged(builder, query.page, query.size).getMany();
    return rows.map(definitionToDomain);
  }

  async update(definition: CompositionDefinition, expectedVersion: number): Promise<void> {
    // A definition never changes project: the update leaves the stored one, whatever a reader passed on.
    const { project: _project, ...row } = definitionToPersistence(definition, expectedVersion + 1);
    const result = await this.manager
      .createQueryBuilder()
      .update(CompositionDefinitionEntity)
      .set(row)
      .where('composition_id = :id AND row_version = :expectedVersion', {
        id: definition.compositionId,
        expectedVersion,
      })
      .execute();
    if (result.affected !== 1) {
      throw concurrentChange('Composition definition', definition.compositionId);
    }
  }

  async delete(compositionId: string, expectedVersion: number): Promise<void> {
    const result = await this.manager.delete(CompositionDefinitionEntity, {
      compositionId,
      rowVersion: expectedVersion,
    });
    if (result.affected !== 1) {
      throw concurrentChange('Composition definition', compositionId);
    }
  }
}
