import type {
  AutomationComposition,
  ElementInfo,
  ElementInfoUpdate,
  InstanceElement,
  InstanceQuery,
  PageRequest,
  InstanceRepository,
  InstanceUpdate,
  Versioned,
} from '@acm/domain';
import { DomainError } from '@acm/domain';
import type { EntityManager } from 'typeorm';
import { AutomationCompositionElementEntity } from '../entities/automation-composition-element.entity';
import { AutomationCompositionEntity } from '../entities/automation-composition.entity';
import {
  elementToDomain,
  elementsToRecordSet,
  instanceToDomain,
  instanceToPersistence,
} from '../mappers/instance.mapper';
import { preparedStatement, runPrepared } from '../prepared-query';
import type { PreparedStatement } from '../prepared-query';
import { UNIQUE_VIOLATION, asInsertable, pgErrorOf, concurrentChange, paged } from './sql-support';

const ELEMENT_COLUMNS = `element_id uuid, instance_id uuid, position integer, definition_name text, definition_version text,
  participant_id uuid, deploy_state text, lock_state text, sub_state text, migration_state text, stage integer,
  operational_state text, use_state text, description text, message text, properties jsonb, out_properties jsonb`;
const ELEMENT_NAMES = `element_id, instance_id, position, definition_name, definition_version, participant_id, deploy_state,
  lock_state, sub_state, migration_state, stage, operational_state, use_state, description, message, properties, out_properties`;

const SORT_COLUMNS: Record<NonNullable<InstanceQuery['sort']>, string> = {
  lastMsg: 'i.lastMsg',
  name: 'i.name',
  version: 'i.version',
  deployState: 'i.deployState',
  lockState: 'i.lockState',
  instanceId: 'i.instanceId',
};

export interface InstanceRow {
  instance_id: string;
  composition_id: string;
  composition_target_id: string | null;
  name: string;
  version: string;
  description: string | null;
  derived_from: string | null;
  metadata: Record<string, unknown> | null;
  precheck: boolean | null;
  deploy_state: string;
  lock_state: string;
  sub_state: string;
  state_change_result: string;
  phase: number | null;
  last_msg: Date;
  revision_id: string;
  row_version: number;
}

export interface ElementRow {
  element_id: string;
  instance_id: string;
  position: number;
  definition_name: string;
  definition_version: string;
  participant_id: string | null;
  deploy_state: string;
  lock_state: string;
  sub_state: string;
  migration_state: string;
  stage: number | null;
  operational_state: string | null;
  use_state: string | null;
  description: string | null;
  message: string | null;
  properties: Record<string, unknown>;
  out_properties: Record<string, unknown>;
}

const INSTANCE_SELECT = `i.instance_id, i.composition_id, i.composition_target_id, i.name, i.version, i.description,
  i.derived_from, i.metadata, i.precheck, i.deploy_state, i.lock_state, i.sub_state, i.state_change_result, i.phase,
  i.last_msg, i.revision_id, i.row_version`;

const ELEMENT_JSON = ELEMENT_NAMES.split(',')
  .map((name) => name.trim())
  .map((name) => `'${name}', e.${name}`)
  .join(', ');

function instanceRowToEntity(row: InstanceRow): AutomationCompositionEntity {
  const entity = new AutomationCompositionEntity();
  entity.instanceId = row.instance_id;
  entity.compositionId = row.composition_id;
  entity.compositionTargetId = row.composition_target_id;
  entity.name = row.name;
  entity.version = row.version;
  entity.description = row.description;
  entity.derivedFrom = row.derived_from;
  entity.metadata = row.metadata;
  entity.precheck = row.precheck;
  entity.deployState = row.deploy_state;
  entity.lockState = row.lock_state;
  entity.subState = row.sub_state;
  entity.stateChangeResult = row.state_change_result;
  entity.phase = row.phase;
  entity.lastMsg = new Date(row.last_msg);
  entity.revisionId = row.revision_id;
  entity.rowVersion = row.row_version;
  return entity;
}

function elementRowToEntity(row: ElementRow): AutomationCompositionElementEntity {
  const entity = new AutomationCompositionElementEntity();
  entity.elementId = row.element_id;
  entity.instanceId = row.instance_id;
  entity.position = row.position;
  entity.definitionName = row.definition_name;
  entity.definitionVersion = row.definition_version;
  entity.participantId = row.participant_id;
  entity.deployState = row.deploy_state;
  entity.lockState = row.lock_state;
  entity.subState = row.sub_state;
  entity.migrationState = row.migration_state;
  entity.stage = row.stage;
  entity.operationalState = row.operational_state;
  entity.useState = row.use_state;
  entity.description = row.description;
  entity.message = row.message;
  entity.properties = row.properties;
  entity.outProperties = row.out_properties;
  return entity;
}

/** What `TypeOrmInstanceRepository.prepareUpdates` hands to the statement that writes the instances. */
export interface PreparedUpdates {
  /** Distinct instances written. */
  readonly count: number;
  /** Parameters of `instanceUpdateCtes`: the instance rows and the changed elements, as JSON. */
  readonly rows: string;
  readonly elements: string;
  /** With the ids the statement wrote: refuses a stale version, removes dropped elements, keeps the baseline. */
  finish(written: readonly string[]): Promise<void>;
}

/**
 * The CTEs `updated` (the versioned instance rows; RETURNING instance_id) and `elements` (their changed elements,
 * upserted; an element is written only when its instance was), over parameters `$rows` and `$elements`.
 */
export function instanceUpdateCtes(rows: number, elements: number): string {
  return `updated AS (
         UPDATE automation_composition AS i SET composition_id = x.composition_id,
           composition_target_id = x.composition_target_id, name = x.name, version = x.version,
           description = x.description, derived_from = x.derived_from, metadata = x.metadata, precheck = x.precheck,
           deploy_state = x.deploy_state, lock_state = x.lock_state, sub_state = x.sub_state,
           state_change_result = x.state_change_result, phase = x.phase, last_msg = x.last_msg,
           revision_id = x.revision_id, row_version = i.row_version + x.bumps
         FROM jsonb_to_recordset($${rows}::jsonb) AS x(instance_id uuid, expected integer, bumps integer,
           composition_id uuid, composition_target_id uuid, name text, version text, description text,
           derived_from text, metadata jsonb, precheck boolean, deploy_state text, lock_state text, sub_state text,
           state_change_result text, phase integer, last_msg timestamptz, revision_id uuid)
         WHERE i.instance_id = x.instance_id AND i.row_version = x.expected
         RETURNING i.instance_id
       ), elements AS (
         INSERT INTO automation_composition_element (${ELEMENT_NAMES})
         SELECT ${ELEMENT_NAMES} FROM jsonb_to_recordset($${elements}::jsonb) AS x(${ELEMENT_COLUMNS})
         WHERE x.instance_id IN (SELECT instance_id FROM updated)
         ON CONFLICT (element_id) DO UPDATE SET
           position = EXCLUDED.position, definition_name = EXCLUDED.definition_name,
           definition_version = EXCLUDED.definition_version, participant_id = EXCLUDED.participant_id,
           deploy_state = EXCLUDED.deploy_state, lock_state = EXCLUDED.lock_state, sub_state = EXCLUDED.sub_state,
           migration_state = EXCLUDED.migration_state, stage = EXCLUDED.stage,
           operational_state = EXCLUDED.operational_state, use_state = EXCLUDED.use_state,
           description = EXCLUDED.description, message = EXCLUDED.message, properties = EXCLUDED.properties,
           out_properties = EXCLUDED.out_properties
         WHERE automation_composition_element.instance_id = EXCLUDED.instance_id
       )`;
}

/** The instance rows with their elements as a JSON array, locked (FOR UPDATE) or not; see `lockAndLoad`. */
function loadText(where: string, lock: boolean): string {
  return lock
    ? `SELECT ${INSTANCE_SELECT},
         (SELECT coalesce(json_agg(json_build_object(${ELEMENT_JSON}) ORDER BY e.position), '[]'::json)
            FROM automation_composition_element e WHERE e.instance_id = i.instance_id) AS elements,
         (SELECT s.row_version FROM automation_composition s WHERE s.instance_id = i.instance_id) AS seen_version
       FROM automation_composition i WHERE ${where} ORDER BY i.instance_id FOR UPDATE OF i`
    : `SELECT ${INSTANCE_SELECT},
         (SELECT coalesce(json_agg(json_build_object(${ELEMENT_JSON}) ORDER BY e.position), '[]'::json)
            FROM automation_composition_element e WHERE e.instance_id = i.instance_id) AS elements
       FROM automation_composition i WHERE ${where}`;
}

const ONE = `i.instance_id = $1`;
export const MANY = `i.instance_id = ANY($1::uuid[])`;
const LOCK_AND_LOAD_ONE = preparedStatement(loadText(ONE, true));
const LOCK_AND_LOAD_MANY = preparedStatement(loadText(MANY, true));
const LOAD_ONE = preparedStatement(loadText(ONE, false));
const LOAD_MANY = preparedStatement(loadText(MANY, false));

export class TypeOrmInstanceRepository implements InstanceRepository {
  constructor(private readonly manager: EntityManager) {}

  async insert(instance: AutomationComposition): Promise<void> {
    try {
      await this.manager.insert(AutomationCompositionEntity, asInsertable(instanceToPersistence(instance, 1)));
      await this.manager.query(
        `INSERT INTO automation_composition_element (${ELEMENT_NAMES})
         SELECT ${ELEMENT_NAMES} FROM jsonb_to_recordset($1::jsonb) AS x(${ELEMENT_COLUMNS})`,
        [elementsToRecordSet(instance)],
      );
      this.remember(instance);
    } catch (error) {
      const pgError = pgErrorOf(error);
      if (pgError.code === UNIQUE_VIOLATION) {
        throw pgError.constraint === 'automation_composition_name_version'
          ? new DomainError('ALREADY_EXISTS', `${instance.name} ${instance.version} already defined`)
          : new DomainError('ALREADY_EXISTS', `Element id already used by another instance (UUID already used)`);
      }
      throw error;
    }
  }

  async find(instanceId: string): Promise<Versioned<AutomationComposition> | null> {
    return this.load(instanceId, false);
  }

  async findForUpdate(instanceId: string): Promise<Versioned<AutomationComposition> | null> {
    return this.load(instanceId, true);
  }

  /** One statement for the lot (a second one only for rows another transaction changed while this one waited). */
  async findManyForUpdate(instanceIds: readonly string[]): Promise<Map<string, Versioned<AutomationComposition>>> {
    const ids = [...new Set(instanceIds)].sort();
    const loaded = ids.length === 0 ? [] : await this.lockAndLoad(LOCK_AND_LOAD_MANY, [ids]);
    return new Map(loaded.map((instance) => [instance.value.instanceId, instance]));
  }

  /**
   * Locks the rows (in id order) and reads them with their elements in one statement. A statement that waited for a
   * lock sees the locked row as the holder committed it but everything else, the elements included, as it was when
   * the statement started (READ COMMITTED re-checks only the locked row). Every write of an instance's elements
   * under its lock bumps `row_version`, so a row whose version differs from the one the statement's snapshot saw
   * was changed meanwhile: those rows are read again, now that they are locked.
   */
  private async lockAndLoad(
    statement: PreparedStatement,
    parameters: unknown[],
  ): Promise<Array<Versioned<AutomationComposition>>> {
    const rows = await runPrepared<Array<InstanceRow & { elements: ElementRow[]; seen_version: number | null }>>(
      this.manager,
      statement,
      parameters,
    );
    const changed = rows.filter((row) => row.seen_version !== row.row_version).map((row) => row.instance_id);
    const reread = new Map(
      changed.length === 0
        ? []
        : (await this.loadRows(LOAD_MANY, [changed])).map((instance) => [instance.value.instanceId, instance]),
    );
    return rows.flatMap((row) => {
      if (row.seen_version !== row.row_version) {
        const again = reread.get(row.instance_id);
        return again === undefined ? [] : [again];
      }
      const value = instanceToDomain(instanceRowToEntity(row), row.elements.map(elementRowToEntity));
      this.remember(value);
      return [{ value, version: row.row_version }];
    });
  }

  private async loadRows(
    statement: PreparedStatement,
    parameters: unknown[],
  ): Promise<Array<Versioned<AutomationComposition>>> {
    const rows = await runPrepared<Array<InstanceRow & { elements: ElementRow[] }>>(
      this.manager,
      statement,
      parameters,
    );
    return rows.map((row) => {
      const value = instanceToDomain(instanceRowToEntity(row), row.elements.map(elementRowToEntity));
      this.remember(value);
      return { value, version: row.row_version };
    });
  }

  /**
   * The instance row with its elements as a JSON array, in one statement (taking the row lock when asked). The
   * elements as loaded are remembered, so `update` writes only the ones that changed.
   */
  private async load(instanceId: string, lock: boolean): Promise<Versioned<AutomationComposition> | null> {
    const [loaded] = lock
      ? await this.lockAndLoad(LOCK_AND_LOAD_ONE, [instanceId])
      : await this.loadRows(LOAD_ONE, [instanceId]);
    return loaded ?? null;
  }

  /** Element objects as last read or written in this transaction, by instance: the baseline of `update`. */
  private readonly baseline = new Map<string, Map<string, InstanceElement>>();

  private remember(instance: AutomationComposition): void {
    this.baseline.set(instance.instanceId, new Map(Object.entries(instance.elements)));
  }

  async list(query: InstanceQuery): Promise<AutomationComposition[]> {
    let builder = this.manager.createQueryBuilder(AutomationCompositionEntity, 'i');
    if (query.compositionId !== undefined) {
      builder = builder.andWhere('i.compositionId = :compositionId', { compositionId: query.compositionId });
    }
    if (query.name !== undefined) {
      builder = builder.andWhere('i.name = :name', { name: query.name });
    }
    if (query.version !== undefined) {
      builder = builder.andWhere('i.version = :version', { version: query.version });
    }
    if (query.instanceIds !== undefined) {
      builder = builder.andWhere('i.instanceId IN (:...instanceIds)', { instanceIds: query.instanceIds });
    }
    if (query.deployStates !== undefined) {
      builder = builder.andWhere('i.deployState IN (:...deployStates)', { deployStates: query.deployStates });
    }
    if (query.stateChangeResults !== undefined) {
      builder = builder.andWhere('i.stateChangeResult IN (:...results)', { results: query.stateChangeResults });
    }
    if (query.projects !== undefined) {
      builder = builder.andWhere(
        'i.composition_id IN (SELECT d.composition_id FROM composition_definition d WHERE d.project = ANY(:projects::text[]))',
        { projects: [...query.projects] },
      );
    }
    if (query.participantId !== undefined) {
      builder = builder.andWhere(
        'EXISTS (SELECT 1 FROM automation_composition_element e WHERE e.instance_id = i.instance_id AND e.participant_id = :participantId)',
        { participantId: query.participantId },
      );
    }
    builder = builder
      .orderBy(SORT_COLUMNS[query.sort ?? 'lastMsg'], query.sortOrder ?? 'DESC')
      .addOrderBy('i.instanceId', 'ASC');
    const rows = await paged(builder, query.page, query.size).getMany();
    if (rows.length === 0) {
      return [];
    }
    const elements = await this.manager
      .createQueryBuilder(AutomationCompositionElementEntity, 'e')
      .where('e.instanceId IN (:...ids)', { ids: rows.map((row) => row.instanceId) })
      .getMany();
    const byInstance = new Map<string, AutomationCompositionElementEntity[]>();
    for (const element of elements) {
      const list = byInstance.get(element.instanceId) ?? [];
      list.push(element);
      byInstance.set(element.instanceId, list);
    }
    return rows.map((row) => instanceToDomain(row, byInstance.get(row.instanceId) ?? []));
  }

  async elementsOfParticipant(participantId: string, page: PageRequest): Promise<InstanceElement[]> {
    let builder = this.manager
      .createQueryBuilder(AutomationCompositionElementEntity, 'e')
      .where('e.participantId = :participantId', { participantId })
      .orderBy('e.instanceId', 'ASC')
      .addOrderBy('e.position', 'ASC');
    if (page.page !== undefined && page.size !== undefined) {
      builder = builder.offset(page.page * page.size).limit(page.size);
    }
    return (await builder.getMany()).map(elementToDomain);
  }

  async countUsingDefinition(compositionId: string): Promise<number> {
    return this.manager
      .createQueryBuilder(AutomationCompositionEntity, 'i')
      .where('i.compositionId = :id OR i.compositionTargetId = :id', { id: compositionId })
      .getCount();
  }

  async isNameVersionTaken(name: string, version: string, exceptInstanceId?: string): Promise<boolean> {
    let builder = this.manager
      .createQueryBuilder(AutomationCompositionEntity, 'i')
      .where('i.name = :name AND i.version = :version', { name, version });
    if (exceptInstanceId !== undefined) {
      builder = builder.andWhere('i.instanceId <> :exceptInstanceId', { exceptInstanceId });
    }
    return (await builder.getCount()) > 0;
  }

  async elementIdsInUse(elementIds: readonly string[], exceptInstanceId?: string): Promise<string[]> {
    if (elementIds.length === 0) {
      return [];
    }
    let builder = this.manager
      .createQueryBuilder(AutomationCompositionElementEntity, 'e')
      .select('e.elementId', 'elementId')
      .where('e.elementId IN (:...elementIds)', { elementIds });
    if (exceptInstanceId !== undefined) {
      builder = builder.andWhere('e.instanceId <> :exceptInstanceId', { exceptInstanceId });
    }
    const rows = await builder.getRawMany<{ elementId: string }>();
    return rows.map((row) => row.elementId);
  }

  async update(instance: AutomationComposition, expectedVersion: number): Promise<void> {
    await this.updateMany([{ instance, expectedVersion }]);
  }

  /**
   * One statement for every instance and its changed elements (an instance updated k times in the list is written
   * once, k versions on), and one `DELETE` when elements were removed.
   */
  async updateMany(updates: readonly InstanceUpdate[]): Promise<void> {
    const prepared = this.prepareUpdates(updates);
    if (prepared.count === 0) {
      return;
    }
    const written: Array<{ instance_id: string }> = await this.manager.query(
      `WITH ${instanceUpdateCtes(1, 2)} SELECT instance_id FROM updated`,
      [prepared.rows, prepared.elements],
    );
    await prepared.finish(written.map((row) => row.instance_id));
  }

  /**
   * The parameters of `instanceUpdateCtes` for these updates, and what to do once the statement ran: refuse a
   * stale version, remove the elements the instances no longer hold, remember the written elements as the baseline.
   */
  prepareUpdates(updates: readonly InstanceUpdate[]): PreparedUpdates {
    const chains = new Map<string, { instance: AutomationComposition; expected: number; bumps: number }>();
    for (const { instance, expectedVersion } of updates) {
      const chain = chains.get(instance.instanceId);
      if (chain === undefined) {
        chains.set(instance.instanceId, { instance, expected: expectedVersion, bumps: 1 });
      } else if (expectedVersion !== chain.expected + chain.bumps) {
        throw concurrentChange('Automation composition', instance.instanceId);
      } else {
        chain.instance = instance;
        chain.bumps += 1;
      }
    }
    const rows = [...chains.values()].map(({ instance, expected, bumps }) => ({
      instance_id: instance.instanceId,
      expected,
      bumps,
      composition_id: instance.compositionId,
      composition_target_id: instance.compositionTargetId,
      name: instance.name,
      version: instance.version,
      description: instance.description,
      derived_from: instance.derivedFrom,
      metadata: instance.metadata,
      precheck: instance.precheck,
      deploy_state: instance.deployState,
      lock_state: instance.lockState,
      sub_state: instance.subState,
      state_change_result: instance.stateChangeResult,
      phase: instance.phase,
      last_msg: new Date(instance.lastMsg).toISOString(),
      revision_id: instance.revisionId,
    }));
    // Element objects are never mutated in place, so an element that is the very object loaded is unchanged.
    const changed = [...chains.values()].flatMap(({ instance }) => {
      const before = this.baseline.get(instance.instanceId);
      const only = new Set(Object.keys(instance.elements).filter((id) => before?.get(id) !== instance.elements[id]));
      return only.size === 0 ? [] : (JSON.parse(elementsToRecordSet(instance, only)) as unknown[]);
    });
    const finish = async (written: readonly string[]): Promise<void> => {
      if (written.length !== chains.size) {
        const done = new Set(written);
        const stale = [...chains.keys()].find((id) => !done.has(id)) ?? '';
        throw concurrentChange('Automation composition', stale);
      }
      const removed: string[] = [];
      for (const { instance } of chains.values()) {
        const before = this.baseline.get(instance.instanceId);
        if (before === undefined) {
          await this.manager.query(
            `DELETE FROM automation_composition_element WHERE instance_id = $1 AND NOT (element_id = ANY($2::uuid[]))`,
            [instance.instanceId, Object.keys(instance.elements)],
          );
        } else {
          removed.push(...[...before.keys()].filter((id) => instance.elements[id] === undefined));
        }
        this.remember(instance);
      }
      if (removed.length > 0) {
        await this.manager.query(`DELETE FROM automation_composition_element WHERE element_id = ANY($1::uuid[])`, [
          removed,
        ]);
      }
    };
    return { count: chains.size, rows: JSON.stringify(rows), elements: JSON.stringify(changed), finish };
  }

  async updateElementInfo(
    instanceId: string,
    elementId: string,
    participantId: string,
    info: ElementInfo,
  ): Promise<void> {
    await this.updateElementInfos([{ instanceId, elementId, participantId, info }]);
  }

  /** One guarded `UPDATE … FROM jsonb_to_recordset`; several reports of one element are merged first, in order. */
  async updateElementInfos(infos: readonly ElementInfoUpdate[]): Promise<void> {
    const merged = new Map<string, ElementInfoUpdate>();
    for (const update of infos) {
      const key = `${update.elementId}|${update.instanceId}|${update.participantId}`;
      const earlier = merged.get(key)?.info;
      merged.set(key, {
        ...update,
        info: {
          outProperties: update.info.outProperties ?? earlier?.outProperties ?? null,
          operationalState: update.info.operationalState ?? earlier?.operationalState ?? null,
          useState: update.info.useState ?? earlier?.useState ?? null,
        },
      });
    }
    if (merged.size === 0) {
      return;
    }
    const rows = [...merged.values()].map(({ instanceId, elementId, participantId, info }) => ({
      element_id: elementId,
      instance_id: instanceId,
      participant_id: participantId,
      out_properties: info.outProperties,
      operational_state: info.operationalState,
      use_state: info.useState,
    }));
    await this.manager.query(
      `UPDATE automation_composition_element AS e
       SET out_properties = coalesce(x.out_properties, e.out_properties),
           operational_state = coalesce(x.operational_state, e.operational_state),
           use_state = coalesce(x.use_state, e.use_state)
       FROM jsonb_to_recordset($1::jsonb) AS x(element_id uuid, instance_id uuid, participant_id uuid,
         out_properties jsonb, operational_state text, use_state text)
       WHERE e.element_id = x.element_id AND e.instance_id = x.instance_id AND e.participant_id = x.participant_id`,
      [JSON.stringify(rows)],
    );
    // A later update of these instances in the same transaction must not write back the old values.
    for (const { instanceId } of merged.values()) {
      this.baseline.delete(instanceId);
    }
  }

  async delete(instanceId: string, expectedVersion: number): Promise<void> {
    const result = await this.manager.delete(AutomationCompositionEntity, { instanceId, rowVersion: expectedVersion });
    if (result.affected !== 1) {
      throw concurrentChange('Automation composition', instanceId);
    }
    this.baseline.delete(instanceId);
  }
}
