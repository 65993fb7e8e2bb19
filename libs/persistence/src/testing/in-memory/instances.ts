import { DEFAULT_PROJECT, DomainError, elementWithInfo } from '@acm/domain';
import type {
  AutomationComposition,
  ElementInfo,
  ElementInfoUpdate,
  InstanceElement,
  InstanceQuery,
  InstanceRepository,
  InstanceUpdate,
  PageRequest,
  Versioned,
} from '@acm/domain';
import type { InstanceRow, ElementRow, Transaction, Database, Session } from './database';
import { ConstraintViolation, concurrentChange, paged, compareText } from './database';

const SORT_KEYS: Record<NonNullable<InstanceQuery['sort']>, (instance: InstanceRow) => string | number> = {
  lastMsg: (instance) => instance.lastMsg,
  name: (instance) => instance.name,
  version: (instance) => instance.version,
  deployState: (instance) => instance.deployState,
  lockState: (instance) => instance.lockState,
  instanceId: (instance) => instance.instanceId,
};

function compareValues(a: string | number, b: string | number): number {
  return typeof a === 'number' && typeof b === 'number' ? a - b : compareText(String(a), String(b));
}

export function sameElement(a: ElementRow, b: ElementRow): boolean {
  return a.instanceId === b.instanceId && a.position === b.position && JSON.stringify(a) === JSON.stringify(b);
}

export class InMemoryInstanceRepository implements InstanceRepository {
  constructor(private readonly session: Session) {}

  private get db(): Database {
    return this.session.db;
  }

  private elementsOf(tx: Transaction, instanceId: string): ElementRow[] {
    return this.db
      .scan(tx, 'element')
      .map(([, row]) => row)
      .filter((row) => row.instanceId === instanceId)
      .sort((a, b) => a.position - b.position);
  }

  private assemble(tx: Transaction, row: Versioned<InstanceRow>): Versioned<AutomationComposition> {
    const elements = Object.fromEntries(
      this.elementsOf(tx, row.value.instanceId).map((element) => [element.element.id, element.element]),
    );
    return { value: { ...row.value, elements }, version: row.version };
  }

  private rowOf(instance: AutomationComposition): InstanceRow {
    const { elements: _elements, ...row } = instance;
    return row;
  }

  insert(instance: AutomationComposition): Promise<void> {
    return this.session.run((tx) => {
      const db = this.db;
      const taken = db
        .scan(tx, 'instance')
        .some(([, row]) => row.value.name === instance.name && row.value.version === instance.version);
      if (taken) {
        throw new DomainError('ALREADY_EXISTS', `${instance.name} ${instance.version} already defined`);
      }
      if (
        db.get(tx, 'instance', instance.instanceId) !== null ||
        Object.keys(instance.elements).some((id) => db.get(tx, 'element', id) !== null)
      ) {
        throw new DomainError('ALREADY_EXISTS', `Element id already used by another instance (UUID already used)`);
      }
      for (const compositionId of [instance.compositionId, instance.compositionTargetId]) {
        if (compositionId !== null && db.get(tx, 'definition', compositionId) === null) {
          throw new ConstraintViolation(`instance ${instance.instanceId} refers to a missing definition`);
        }
      }
      db.put(tx, 'instance', instance.instanceId, { value: this.rowOf(instance), version: 1 });
      Object.values(instance.elements).forEach((element, position) =>
        db.put(tx, 'element', element.id, { instanceId: instance.instanceId, position, element }),
      );
    });
  }

  find(instanceId: string): Promise<Versioned<AutomationComposition> | null> {
    return this.session.run((tx) => {
      const row = this.db.get(tx, 'instance', instanceId);
      return row === null ? null : this.assemble(tx, row);
    });
  }

  findForUpdate(instanceId: string): Promise<Versioned<AutomationComposition> | null> {
    return this.session.run(async (tx) => {
      if (this.db.get(tx, 'instance', instanceId) === null) {
        return null;
      }
      await this.db.locks.acquire(`instance:${instanceId}`, tx);
      const row = this.db.get(tx, 'instance', instanceId);
      return row === null ? null : this.assemble(tx, row);
    });
  }

  async findManyForUpdate(instanceIds: readonly string[]): Promise<Map<string, Versioned<AutomationComposition>>> {
    const found = new Map<string, Versioned<AutomationComposition>>();
    for (const instanceId of [...new Set(instanceIds)].sort()) {
      const instance = await this.findForUpdate(instanceId);
      if (instance !== null) {
        found.set(instanceId, instance);
      }
    }
    return found;
  }

  list(query: InstanceQuery): Promise<AutomationComposition[]> {
    return this.session.run((tx) => {
      const sortKey = SORT_KEYS[query.sort ?? 'lastMsg'];
      const direction = (query.sortOrder ?? 'DESC') === 'ASC' ? 1 : -1;
      const elements = this.db.scan(tx, 'element').map(([, row]) => row);
      const inProjects = new Set(
        this.db
          .scan(tx, 'definition')
          .filter(([, row]) => query.projects?.includes(row.value.project ?? DEFAULT_PROJECT) ?? true)
          .map(([compositionId]) => compositionId),
      );
      const rows = this.db
        .scan(tx, 'instance')
        .map(([, row]) => row.value)
        .filter((instance) => query.projects === undefined || inProjects.has(instance.compositionId))
        .filter((instance) => query.compositionId === undefined || instance.compositionId === query.compositionId)
        .filter((instance) => query.name === undefined || instance.name === query.name)
        .filter((instance) => query.version === undefined || instance.version === query.version)
        .filter((instance) => query.instanceIds === undefined || query.instanceIds.includes(instance.instanceId))
        .filter((instance) => query.deployStates === undefined || query.deployStates.includes(instance.deployState))
        .filter(
          (instance) =>
            query.stateChangeResults === undefined || query.stateChangeResults.includes(instance.stateChangeResult),
        )
        .filter(
          (instance) =>
            query.participantId === undefined ||
            elements.some(
              (row) => row.instanceId === instance.instanceId && row.element.participantId === query.participantId,
            ),
        )
        .sort((a, b) => direction * compareValues(sortKey(a), sortKey(b)) || compareText(a.instanceId, b.instanceId));
      return paged(rows, query).map((instance) => {
        const own = elements
          .filter((row) => row.instanceId === instance.instanceId)
          .sort((a, b) => a.position - b.position);
        return { ...instance, elements: Object.fromEntries(own.map((row) => [row.element.id, row.element])) };
      });
    });
  }

  elementsOfParticipant(participantId: string, page: PageRequest): Promise<InstanceElement[]> {
    return this.session.run((tx) => {
      const rows = this.db
        .scan(tx, 'element')
        .map(([, row]) => row)
        .filter((row) => row.element.participantId === participantId)
        .sort((a, b) => compareText(a.instanceId, b.instanceId) || a.position - b.position);
      return paged(rows, page).map((row) => row.element);
    });
  }

  countUsingDefinition(compositionId: string): Promise<number> {
    return this.session.run(
      (tx) =>
        this.db
          .scan(tx, 'instance')
          .filter(
            ([, row]) => row.value.compositionId === compositionId || row.value.compositionTargetId === compositionId,
          ).length,
    );
  }

  isNameVersionTaken(name: string, version: string, exceptInstanceId?: string): Promise<boolean> {
    return this.session.run((tx) =>
      this.db
        .scan(tx, 'instance')
        .some(
          ([, row]) =>
            row.value.name === name && row.value.version === version && row.value.instanceId !== exceptInstanceId,
        ),
    );
  }

  elementIdsInUse(elementIds: readonly string[], exceptInstanceId?: string): Promise<string[]> {
    return this.session.run((tx) =>
      elementIds.filter((id) => {
        const row = this.db.get(tx, 'element', id);
        return row !== null && row.instanceId !== exceptInstanceId;
      }),
    );
  }

  update(instance: AutomationComposition, expectedVersion: number): Promise<void> {
    return this.session.run(async (tx) => {
      const db = this.db;
      await db.locks.acquire(`instance:${instance.instanceId}`, tx);
      const current = db.get(tx, 'instance', instance.instanceId);
      if (current?.version !== expectedVersion) {
        throw concurrentChange('Automation composition', instance.instanceId);
      }
      db.put(tx, 'instance', instance.instanceId, { value: this.rowOf(instance), version: expectedVersion + 1 });
      const stored = new Map(this.elementsOf(tx, instance.instanceId).map((row) => [row.element.id, row]));
      for (const id of stored.keys()) {
        if (instance.elements[id] === undefined) {
          await db.locks.acquire(`element:${id}`, tx);
          db.remove(tx, 'element', id);
        }
      }
      const wanted = Object.values(instance.elements).map((element, position): ElementRow => ({
        instanceId: instance.instanceId,
        position,
        element,
      }));
      for (const row of wanted) {
        const before = stored.get(row.element.id);
        if (before !== undefined && sameElement(before, row)) {
          continue;
        }
        const owner = before ?? db.get(tx, 'element', row.element.id);
        // As the upsert's ON CONFLICT ... WHERE: an element id of another instance is left alone.
        if (owner !== null && owner.instanceId !== instance.instanceId) {
          continue;
        }
        await db.locks.acquire(`element:${row.element.id}`, tx);
        db.put(tx, 'element', row.element.id, row);
      }
    });
  }

  async updateMany(updates: readonly InstanceUpdate[]): Promise<void> {
    for (const { instance, expectedVersion } of updates) {
      await this.update(instance, expectedVersion);
    }
  }

  async updateElementInfos(infos: readonly ElementInfoUpdate[]): Promise<void> {
    for (const { instanceId, elementId, participantId, info } of infos) {
      await this.updateElementInfo(instanceId, elementId, participantId, info);
    }
  }

  updateElementInfo(instanceId: string, elementId: string, participantId: string, info: ElementInfo): Promise<void> {
    return this.session.run(async (tx) => {
      const db = this.db;
      const found = db.get(tx, 'element', elementId);
      if (found === null || found.instanceId !== instanceId || found.element.participantId !== participantId) {
        return;
      }
      await db.locks.acquire(`element:${elementId}`, tx);
      const row = db.get(tx, 'element', elementId);
      if (row === null || row.instanceId !== instanceId || row.element.participantId !== participantId) {
        return;
      }
      db.put(tx, 'element', elementId, { ...row, element: elementWithInfo(row.element, participantId, info) });
    });
  }

  delete(instanceId: string, expectedVersion: number): Promise<void> {
    return this.session.run(async (tx) => {
      const db = this.db;
      await db.locks.acquire(`instance:${instanceId}`, tx);
      const current = db.get(tx, 'instance', instanceId);
      if (current?.version !== expectedVersion) {
        throw concurrentChange('Automation composition', instanceId);
      }
      db.remove(tx, 'instance', instanceId);
      for (const row of this.elementsOf(tx, instanceId)) {
        db.remove(tx, 'element', row.element.id);
      }
      db.remove(tx, 'rollback', instanceId);
    });
  }
}
