/**
 * The store's in-memory twin: `UnitOfWork` and every repository port with PostgreSQL's semantics as the
 * ports promise them (checked by `store.contract.ts` against both): READ COMMITTED transactions that commit
 * everything or nothing, row locks held until the transaction ends, versioned writes, SKIP LOCKED claims,
 * the same filters, orders and paging. It needs nothing but the domain, so unit tests of the engine run on
 * it with a fake clock and no database.
 */
import {
  DomainError,
  RetentionStore,
  UnitOfWork,
  elementWithInfo,
  rankOperations,
  saveWritesOneByOne,
} from '@acm/domain';
import type {
  AutomationComposition,
  CompositionDefinition,
  ContextQuery,
  DefinitionQuery,
  DefinitionRepository,
  ElementInfo,
  ElementInfoUpdate,
  EventRepository,
  InstanceElement,
  InstanceQuery,
  InstanceRepository,
  InstanceUpdate,
  MessageAnswer,
  MessageRecord,
  Operation,
  OperationCursor,
  OperationEvent,
  OperationRepository,
  OutboxRecord,
  OutboxRepository,
  PageRequest,
  PhaseMessageRecord,
  PrunedRows,
  RetentionCandidate,
  Participant,
  ParticipantRepository,
  RollbackRepository,
  RollbackSnapshot,
  Store,
  StoreContext,
  StoreWrites,
  StoredEvent,
  Versioned,
} from '@acm/domain';

/** An outbox row as committed, with its position: the same shape the PostgreSQL store hands its relay. */
export interface InMemoryQueuedRecord extends OutboxRecord {
  readonly id: string;
}

type InstanceRow = Omit<AutomationComposition, 'elements'>;

interface ElementRow {
  readonly instanceId: string;
  readonly position: number;
  readonly element: InstanceElement;
}

interface MessageRow {
  readonly operationId: string;
  readonly phase: number | null;
  readonly elementIds: readonly string[] | null;
}

interface AnswerRow {
  readonly messageId: string;
  readonly participantId: string;
  readonly replicaId: string;
}

interface ProbeRow {
  readonly participantId: string;
  readonly probedAt: number;
}

/** The tables, by primary key; elements are rows of their own (as in PostgreSQL) so they lock one by one. */
interface Rows {
  definition: Versioned<CompositionDefinition>;
  instance: Versioned<InstanceRow>;
  element: ElementRow;
  participant: Participant;
  operation: Operation;
  message: MessageRow;
  answer: AnswerRow;
  probe: ProbeRow;
  rollback: RollbackSnapshot;
}
type Table = keyof Rows;
const TABLES: readonly Table[] = [
  'definition',
  'instance',
  'element',
  'participant',
  'operation',
  'message',
  'answer',
  'probe',
  'rollback',
];

const DELETED = Symbol('deleted');
type Pending<T> = T | typeof DELETED;

/** Values leave and enter the store as copies, as they do through a database driver. */
const copy = <T>(value: T): T => structuredClone(value);

/** A unique or foreign key refusal, which PostgreSQL raises as a driver error rather than a domain error. */
class ConstraintViolation extends Error {
  override readonly name = 'ConstraintViolation';
}

function concurrentChange(kind: string, id: string): DomainError {
  return new DomainError(
    'CONCURRENT_MODIFICATION',
    `${kind} ${id} was changed by another request while this one was being applied; read it again and retry`,
    { id },
  );
}

function paged<T>(rows: T[], page: PageRequest): T[] {
  if (page.page !== undefined && page.size !== undefined) {
    return rows.slice(page.page * page.size, page.page * page.size + page.size);
  }
  return rows;
}

/** Byte-wise order, as PostgreSQL's C collation and its uuid type compare. */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Row locks: one holder per row until its transaction ends; waiters queue (FOR UPDATE / UPDATE). */
class RowLocks {
  private readonly holders = new Map<string, { owner: number; waiters: Array<() => void> }>();

  async acquire(key: string, owner: Transaction): Promise<void> {
    for (;;) {
      const holder = this.holders.get(key);
      if (holder === undefined) {
        this.holders.set(key, { owner: owner.id, waiters: [] });
        owner.locks.add(key);
        return;
      }
      if (holder.owner === owner.id) {
        return;
      }
      await new Promise<void>((resolve) => holder.waiters.push(resolve));
    }
  }

  /** SKIP LOCKED: takes the lock when it is free or already ours, never waits. */
  tryAcquire(key: string, owner: Transaction): boolean {
    const holder = this.holders.get(key);
    if (holder !== undefined && holder.owner !== owner.id) {
      return false;
    }
    if (holder === undefined) {
      this.holders.set(key, { owner: owner.id, waiters: [] });
      owner.locks.add(key);
    }
    return true;
  }

  releaseAll(owner: Transaction): void {
    for (const key of owner.locks) {
      const holder = this.holders.get(key);
      if (holder?.owner === owner.id) {
        this.holders.delete(key);
        for (const wake of holder.waiters) {
          wake();
        }
      }
    }
    owner.locks.clear();
  }
}

/** What one transaction wrote and has not committed yet, and the row locks it holds. */
class Transaction {
  readonly pending = new Map<Table, Map<string, Pending<unknown>>>(TABLES.map((table) => [table, new Map()]));
  readonly outbox: InMemoryQueuedRecord[] = [];
  readonly events: StoredEvent[] = [];
  readonly locks = new Set<string>();

  constructor(readonly id: number) {}

  rows<K extends Table>(table: K): Map<string, Pending<Rows[K]>> {
    return this.pending.get(table) as Map<string, Pending<Rows[K]>>;
  }
}

/** The committed state, the locks and the sequences shared by every transaction of one store. */
class Database {
  readonly committed = new Map<Table, Map<string, unknown>>(TABLES.map((table) => [table, new Map()]));
  readonly outbox: InMemoryQueuedRecord[] = [];
  readonly events: StoredEvent[] = [];
  readonly locks = new RowLocks();
  private nextTransaction = 1;
  private nextOutboxId = 1;
  private nextEventSequence = 1;

  begin(): Transaction {
    return new Transaction(this.nextTransaction++);
  }

  outboxId(): string {
    return String(this.nextOutboxId++);
  }

  eventSequence(): number {
    return this.nextEventSequence++;
  }

  private table<K extends Table>(table: K): Map<string, Rows[K]> {
    return this.committed.get(table) as Map<string, Rows[K]>;
  }

  /** READ COMMITTED: the transaction's own writes over the latest committed rows. */
  get<K extends Table>(tx: Transaction, table: K, key: string): Rows[K] | null {
    const mine = tx.rows(table);
    if (mine.has(key)) {
      const row = mine.get(key);
      return row === DELETED || row === undefined ? null : copy(row);
    }
    const row = this.table(table).get(key);
    return row === undefined ? null : copy(row);
  }

  scan<K extends Table>(tx: Transaction, table: K): Array<[string, Rows[K]]> {
    const mine = tx.rows(table);
    const result: Array<[string, Rows[K]]> = [];
    for (const [key, row] of this.table(table)) {
      if (!mine.has(key)) {
        result.push([key, copy(row)]);
      }
    }
    for (const [key, row] of mine) {
      if (row !== DELETED) {
        result.push([key, copy(row)]);
      }
    }
    return result;
  }

  put<K extends Table>(tx: Transaction, table: K, key: string, row: Rows[K]): void {
    tx.rows(table).set(key, copy(row));
  }

  remove(tx: Transaction, table: Table, key: string): void {
    tx.rows(table).set(key, DELETED);
  }

  /** Applies everything the transaction wrote at once (no await: nobody sees half of it). */
  commit(tx: Transaction): void {
    for (const table of TABLES) {
      const target = this.table(table);
      for (const [key, row] of tx.rows(table)) {
        if (row === DELETED) {
          target.delete(key);
        } else {
          target.set(key, row);
        }
      }
    }
    this.outbox.push(...tx.outbox);
    this.outbox.sort((a, b) => Number(a.id) - Number(b.id));
    this.events.push(...tx.events);
    this.events.sort((a, b) => a.sequence - b.sequence);
  }
}

/** How a repository reaches the tables: inside the caller's transaction, or one statement at a time. */
interface Session {
  readonly db: Database;
  run<T>(work: (tx: Transaction) => T | Promise<T>): Promise<T>;
}

class TransactionSession implements Session {
  constructor(
    readonly db: Database,
    private readonly tx: Transaction,
  ) {}

  run<T>(work: (tx: Transaction) => T | Promise<T>): Promise<T> {
    // A constructor callback turns a synchronous throw into a rejection, as a failed statement is.
    return new Promise<T>((resolve) => resolve(work(this.tx)));
  }
}

/** Outside a transaction every call commits on its own, as an autocommitted statement does. */
class AutocommitSession implements Session {
  constructor(readonly db: Database) {}

  async run<T>(work: (tx: Transaction) => T | Promise<T>): Promise<T> {
    const tx = this.db.begin();
    try {
      const result = await work(tx);
      this.db.commit(tx);
      return result;
    } finally {
      this.db.locks.releaseAll(tx);
    }
  }
}

class InMemoryDefinitionRepository implements DefinitionRepository {
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
      db.put(tx, 'definition', definition.compositionId, { value: definition, version: expectedVersion + 1 });
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

function sameElement(a: ElementRow, b: ElementRow): boolean {
  return a.instanceId === b.instanceId && a.position === b.position && JSON.stringify(a) === JSON.stringify(b);
}

class InMemoryInstanceRepository implements InstanceRepository {
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
      const rows = this.db
        .scan(tx, 'instance')
        .map(([, row]) => row.value)
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

class InMemoryParticipantRepository implements ParticipantRepository {
  constructor(private readonly session: Session) {}

  private get db(): Database {
    return this.session.db;
  }

  /** Supported types come back ordered by type name, as the PostgreSQL mapper orders them. */
  private view(participant: Participant): Participant {
    const types = Object.values(participant.participantSupportedElementTypes).sort((a, b) =>
      a.typeName.localeCompare(b.typeName),
    );
    return { ...participant, participantSupportedElementTypes: Object.fromEntries(types.map((t) => [t.id, t])) };
  }

  list(): Promise<Participant[]> {
    return this.session.run((tx) =>
      this.db
        .scan(tx, 'participant')
        .map(([, participant]) => this.view(participant))
        .sort((a, b) => compareText(a.participantId, b.participantId)),
    );
  }

  find(participantId: string): Promise<Participant | null> {
    return this.session.run((tx) => {
      const participant = this.db.get(tx, 'participant', participantId);
      return participant === null ? null : this.view(participant);
    });
  }

  save(participant: Participant): Promise<void> {
    return this.session.run((tx) => this.db.put(tx, 'participant', participant.participantId, participant));
  }

  deleteReplica(participantId: string, replicaId: string): Promise<void> {
    return this.session.run((tx) => {
      const participant = this.db.get(tx, 'participant', participantId);
      if (participant?.replicas[replicaId] !== undefined) {
        const { [replicaId]: _removed, ...replicas } = participant.replicas;
        this.db.put(tx, 'participant', participantId, { ...participant, replicas });
      }
    });
  }

  touchReplica(participantId: string, replicaId: string, now: number): Promise<boolean> {
    return this.session.run((tx) => {
      const participant = this.db.get(tx, 'participant', participantId);
      const replica = participant?.replicas[replicaId];
      if (participant === null || replica === undefined) {
        return false;
      }
      this.db.put(tx, 'participant', participantId, {
        ...participant,
        replicas: { ...participant.replicas, [replicaId]: { ...replica, participantState: 'ON_LINE', lastMsg: now } },
      });
      return true;
    });
  }

  markSilentReplicasOffline(cutoff: number): Promise<string[]> {
    return this.session.run((tx) => {
      const changed: string[] = [];
      for (const [participantId, participant] of this.db.scan(tx, 'participant')) {
        const silent = Object.values(participant.replicas).filter(
          (replica) => replica.participantState === 'ON_LINE' && replica.lastMsg < cutoff,
        );
        if (silent.length === 0) {
          continue;
        }
        const replicas = { ...participant.replicas };
        for (const replica of silent) {
          replicas[replica.replicaId] = { ...replica, participantState: 'OFF_LINE' };
        }
        this.db.put(tx, 'participant', participantId, { ...participant, replicas });
        changed.push(participantId);
      }
      return changed;
    });
  }
}

class InMemoryOperationRepository implements OperationRepository {
  constructor(private readonly session: Session) {}

  private get db(): Database {
    return this.session.db;
  }

  insert(operation: Operation): Promise<void> {
    return this.session.run((tx) => {
      if (this.db.get(tx, 'operation', operation.operationId) !== null) {
        throw new ConstraintViolation(`duplicate key: operation ${operation.operationId}`);
      }
      const running = this.db
        .scan(tx, 'operation')
        .some(([, row]) => row.targetId === operation.targetId && row.state === 'RUNNING');
      if (operation.state === 'RUNNING' && running) {
        throw new ConstraintViolation(`duplicate key: a running operation of ${operation.targetId} exists`);
      }
      this.db.put(tx, 'operation', operation.operationId, operation);
    });
  }

  update(operation: Operation): Promise<void> {
    return this.session.run(async (tx) => {
      await this.db.locks.acquire(`operation:${operation.operationId}`, tx);
      const current = this.db.get(tx, 'operation', operation.operationId);
      if (current === null) {
        return;
      }
      // Only the mutable columns, as the SQL UPDATE writes them.
      this.db.put(tx, 'operation', operation.operationId, {
        ...current,
        state: operation.state,
        timedOut: operation.timedOut,
        phase: operation.phase,
        deadlineAt: operation.deadlineAt,
        finishedAt: operation.finishedAt,
        control: operation.control,
      });
    });
  }

  find(operationId: string): Promise<Operation | null> {
    return this.session.run((tx) => this.db.get(tx, 'operation', operationId));
  }

  findRunning(targetId: string): Promise<Operation | null> {
    return this.session.run(
      (tx) =>
        this.db
          .scan(tx, 'operation')
          .map(([, row]) => row)
          .find((row) => row.targetId === targetId && row.state === 'RUNNING') ?? null,
    );
  }

  async findManyRunning(targetIds: readonly string[]): Promise<Map<string, Operation>> {
    const found = new Map<string, Operation>();
    for (const targetId of new Set(targetIds)) {
      const running = await this.findRunning(targetId);
      if (running !== null) {
        found.set(targetId, running);
      }
    }
    return found;
  }

  async saveMany(operations: ReadonlyArray<{ readonly operation: Operation; readonly isNew: boolean }>): Promise<void> {
    for (const { operation } of operations.filter((entry) => !entry.isNew)) {
      await this.update(operation);
    }
    for (const { operation } of operations.filter((entry) => entry.isNew)) {
      await this.insert(operation);
    }
  }

  async recordMessages(messages: readonly MessageRecord[]): Promise<void> {
    for (const { messageId, operationId, phase, elementIds } of messages) {
      await this.recordMessage(messageId, operationId, phase, elementIds);
    }
  }

  async findManyByMessage(
    messageIds: readonly string[],
  ): Promise<Map<string, { operation: Operation; phase: number | null }>> {
    const found = new Map<string, { operation: Operation; phase: number | null }>();
    for (const messageId of new Set(messageIds)) {
      const answered = await this.findByMessage(messageId);
      if (answered !== null) {
        found.set(messageId, answered);
      }
    }
    return found;
  }

  async recordAnswers(answers: readonly MessageAnswer[]): Promise<void> {
    for (const { messageId, participantId, replicaId } of answers) {
      await this.recordAnswer(messageId, participantId, replicaId);
    }
  }

  recordMessage(
    messageId: string,
    operationId: string,
    phase: number | null,
    elementIds: readonly string[] | null = null,
  ): Promise<void> {
    return this.session.run((tx) => {
      if (this.db.get(tx, 'message', messageId) !== null) {
        throw new ConstraintViolation(`duplicate key: message ${messageId}`);
      }
      if (this.db.get(tx, 'operation', operationId) === null) {
        throw new ConstraintViolation(`message ${messageId} refers to a missing operation ${operationId}`);
      }
      this.db.put(tx, 'message', messageId, {
        operationId,
        phase,
        elementIds: elementIds === null ? null : [...elementIds],
      });
    });
  }

  findByMessage(messageId: string): Promise<{ operation: Operation; phase: number | null } | null> {
    return this.session.run((tx) => {
      const message = this.db.get(tx, 'message', messageId);
      const operation = message === null ? null : this.db.get(tx, 'operation', message.operationId);
      return message === null || operation === null ? null : { operation, phase: message.phase };
    });
  }

  recordAnswer(messageId: string, participantId: string, replicaId: string): Promise<void> {
    return this.session.run((tx) => {
      if (this.db.get(tx, 'message', messageId) === null) {
        throw new ConstraintViolation(`answer refers to a missing message ${messageId}`);
      }
      // One row per (message, participant, replica); a repeated answer changes nothing (ON CONFLICT DO NOTHING).
      this.db.put(tx, 'answer', `${messageId}|${participantId}|${replicaId}`, { messageId, participantId, replicaId });
    });
  }

  phaseMessages(operationId: string, phase: number | null): Promise<PhaseMessageRecord[]> {
    return this.session.run((tx) => {
      const answers = this.db.scan(tx, 'answer').map(([, row]) => row);
      return this.db
        .scan(tx, 'message')
        .filter(([, row]) => row.operationId === operationId && row.phase === phase)
        .map(([messageId, row]) => ({
          messageId,
          elementIds: row.elementIds,
          answeredBy: answers
            .filter((answer) => answer.messageId === messageId)
            .map(({ participantId, replicaId }) => ({ participantId, replicaId })),
        }));
    });
  }

  workers(replicaIds: readonly string[]): Promise<Set<string>> {
    return this.session.run((tx) => {
      const wanted = new Set(replicaIds);
      return new Set(
        this.db
          .scan(tx, 'answer')
          .map(([, row]) => row.replicaId)
          .filter((replicaId) => wanted.has(replicaId)),
      );
    });
  }

  recordProbe(participantId: string, at: number): Promise<void> {
    return this.session.run(async (tx) => {
      await this.db.locks.acquire(`probe:${participantId}`, tx);
      const current = this.db.get(tx, 'probe', participantId);
      this.db.put(tx, 'probe', participantId, { participantId, probedAt: Math.max(current?.probedAt ?? at, at) });
    });
  }

  takeProbes(before: number): Promise<Array<{ participantId: string; probedAt: number }>> {
    return this.session.run((tx) => {
      const taken = this.db
        .scan(tx, 'probe')
        .map(([, row]) => row)
        .filter((row) => row.probedAt < before);
      for (const probe of taken) {
        this.db.remove(tx, 'probe', probe.participantId);
      }
      return taken.map(({ participantId, probedAt }) => ({ participantId, probedAt }));
    });
  }

  findOverdue(now: number, limit: number): Promise<Operation[]> {
    return this.session.run((tx) =>
      this.db
        .scan(tx, 'operation')
        .map(([, row]) => row)
        .filter(
          (row) => row.state === 'RUNNING' && !row.timedOut && row.deadlineAt < now && row.control.pausedAt === null,
        )
        .sort((a, b) => a.deadlineAt - b.deadlineAt)
        .slice(0, limit),
    );
  }

  listRunning(limit: number): Promise<Operation[]> {
    return this.session.run((tx) =>
      this.db
        .scan(tx, 'operation')
        .map(([, row]) => row)
        .filter((row) => row.state === 'RUNNING')
        .sort((a, b) => a.control.progressAt - b.control.progressAt || (a.operationId < b.operationId ? -1 : 1))
        .slice(0, limit),
    );
  }

  listDue(limit: number): Promise<Operation[]> {
    return this.session.run((tx) =>
      this.db
        .scan(tx, 'operation')
        .map(([, row]) => row)
        .filter((row) => row.state === 'RUNNING' && row.control.dueAt !== null)
        .sort((a, b) => a.control.dueAt! - b.control.dueAt! || compareText(a.operationId, b.operationId))
        .slice(0, limit),
    );
  }

  lockSlots(): Promise<void> {
    return this.session.run((tx) => this.db.locks.acquire('slots', tx));
  }

  slotsInUse(): Promise<number> {
    return this.session.run((tx) =>
      this.db
        .scan(tx, 'operation')
        .filter(([, row]) => row.state === 'RUNNING')
        .reduce((sum, [, row]) => sum + row.control.inFlight, 0),
    );
  }

  listSlotWaiting(limit: number): Promise<Operation[]> {
    return this.session.run((tx) =>
      this.db
        .scan(tx, 'operation')
        .map(([, row]) => row)
        .filter((row) => row.state === 'RUNNING' && row.control.slotWait !== null && row.control.pausedAt === null)
        .sort((a, b) => a.startedAt - b.startedAt || compareText(a.operationId, b.operationId))
        .slice(0, limit),
    );
  }

  history(targetId: string, limit: number): Promise<Operation[]> {
    return this.session.run((tx) =>
      this.db
        .scan(tx, 'operation')
        .map(([, row]) => row)
        .filter((row) => row.targetId === targetId)
        .sort((a, b) => b.startedAt - a.startedAt)
        .slice(0, limit),
    );
  }
}

class InMemoryRollbackRepository implements RollbackRepository {
  constructor(private readonly session: Session) {}

  save(snapshot: RollbackSnapshot): Promise<void> {
    return this.session.run((tx) => {
      if (this.session.db.get(tx, 'instance', snapshot.instanceId) === null) {
        throw new ConstraintViolation(`rollback snapshot refers to a missing instance ${snapshot.instanceId}`);
      }
      this.session.db.put(tx, 'rollback', snapshot.instanceId, snapshot);
    });
  }

  find(instanceId: string): Promise<RollbackSnapshot | null> {
    return this.session.run((tx) => this.session.db.get(tx, 'rollback', instanceId));
  }
}

class InMemoryOutboxRepository implements OutboxRepository {
  constructor(private readonly session: Session) {}

  add(records: readonly OutboxRecord[]): Promise<void> {
    return this.session.run((tx) => {
      tx.outbox.push(...records.map((record) => ({ id: this.session.db.outboxId(), ...copy(record) })));
    });
  }
}

class InMemoryEventRepository implements EventRepository {
  constructor(private readonly session: Session) {}

  append(events: readonly OperationEvent[]): Promise<void> {
    return this.session.run((tx) => {
      // Sequences are taken at insert time, as bigserial does; rows become visible to others at commit.
      tx.events.push(...events.map((event) => ({ ...copy(event), sequence: this.session.db.eventSequence() })));
    });
  }

  list(subjectId: string, limit: number): Promise<StoredEvent[]> {
    return this.session.run((tx) =>
      [...this.session.db.events, ...tx.events]
        .filter((event) => event.subjectId === subjectId)
        .sort((a, b) => a.sequence - b.sequence)
        .slice(0, limit)
        .map(copy),
    );
  }
}

class InMemoryRepositories implements Store {
  readonly definitions: DefinitionRepository;
  readonly instances: InstanceRepository;
  readonly participants: ParticipantRepository;
  readonly operations: OperationRepository;
  readonly rollbacks: RollbackRepository;
  readonly outbox: OutboxRepository;
  readonly events: EventRepository;

  constructor(session: Session) {
    this.definitions = new InMemoryDefinitionRepository(session);
    this.instances = new InMemoryInstanceRepository(session);
    this.participants = new InMemoryParticipantRepository(session);
    this.operations = new InMemoryOperationRepository(session);
    this.rollbacks = new InMemoryRollbackRepository(session);
    this.outbox = new InMemoryOutboxRepository(session);
    this.events = new InMemoryEventRepository(session);
  }

  /** The instances first: a stale version throws before any other row is written. */
  saveAll(writes: StoreWrites): Promise<void> {
    return saveWritesOneByOne(this, writes);
  }

  async readContext(query: ContextQuery): Promise<StoreContext> {
    const definitions = new Map<string, Versioned<CompositionDefinition>>();
    for (const compositionId of new Set(query.definitions)) {
      const found = await this.definitions.find(compositionId);
      if (found !== null) {
        definitions.set(compositionId, found);
      }
    }
    return {
      running: await this.operations.findManyRunning(query.runningOf),
      definitions,
      answered: await this.operations.findManyByMessage(query.messages),
      participants: query.participants ? await this.participants.list() : null,
    };
  }
}

/**
 * The in-memory `UnitOfWork`. Besides the port it lets tests see and consume the outbox as a relay would
 * (`queuedOutbox`, `deleteOutbox`).
 */
export class InMemoryUnitOfWork extends UnitOfWork {
  private readonly db = new Database();

  override async transaction<T>(work: (store: Store) => Promise<T>): Promise<T> {
    const tx = this.db.begin();
    try {
      const result = await work(new InMemoryRepositories(new TransactionSession(this.db, tx)));
      this.db.commit(tx);
      return result;
    } finally {
      this.db.locks.releaseAll(tx);
    }
  }

  override read<T>(work: (store: Store) => Promise<T>): Promise<T> {
    return work(new InMemoryRepositories(new AutocommitSession(this.db)));
  }

  override ping(): Promise<void> {
    return Promise.resolve();
  }

  /** The retention store over the same tables (its own port, as on PostgreSQL). */
  retention(): RetentionStore {
    return new InMemoryRetentionStore(this.db);
  }

  /** Every committed outbox row not yet deleted, oldest first. */
  queuedOutbox(): InMemoryQueuedRecord[] {
    return this.db.outbox.map(copy);
  }

  /** The queued rows as they were added: topic, key, value and headers (only when they had some), no row ids. */
  queuedRecords(): OutboxRecord[] {
    return this.db.outbox.map(({ topic, key, value, headers }) => ({
      topic,
      key,
      value,
      ...(headers === undefined ? {} : { headers: { ...headers } }),
    }));
  }

  /** Forgets outbox rows, as the relay does once the broker acknowledged them. */
  deleteOutbox(ids: readonly string[]): Promise<void> {
    const gone = new Set(ids);
    const kept = this.db.outbox.filter((record) => !gone.has(record.id));
    this.db.outbox.splice(0, this.db.outbox.length, ...kept);
    return Promise.resolve();
  }
}

/** The retention port over the in-memory tables; each method commits on its own, as one SQL statement does. */
class InMemoryRetentionStore extends RetentionStore {
  private readonly session: AutocommitSession;

  constructor(private readonly db: Database) {
    super();
    this.session = new AutocommitSession(db);
  }

  subjectsAfter(after: string | null, limit: number): Promise<string[]> {
    return this.session.run((tx) => {
      const subjects = new Set<string>([
        ...this.db.scan(tx, 'operation').map(([, row]) => row.targetId),
        ...this.db.events.map((event) => event.subjectId),
      ]);
      return [...subjects]
        .filter((id) => after === null || id > after)
        .sort(compareText)
        .slice(0, limit);
    });
  }

  candidates(subjectIds: readonly string[]): Promise<RetentionCandidate[]> {
    const wanted = new Set(subjectIds);
    return this.session.run((tx) =>
      rankOperations(
        this.db
          .scan(tx, 'operation')
          .map(([, row]) => row)
          .filter((row) => wanted.has(row.targetId)),
      ),
    );
  }

  prune(operationIds: readonly string[]): Promise<PrunedRows> {
    return this.session.run((tx) => {
      const doomed = new Set<string>();
      for (const operationId of new Set(operationIds)) {
        const operation = this.db.get(tx, 'operation', operationId);
        if (
          operation !== null &&
          operation.state !== 'RUNNING' &&
          this.db.locks.tryAcquire(`operation:${operationId}`, tx)
        ) {
          doomed.add(operationId);
        }
      }
      const messages = this.db.scan(tx, 'message').filter(([, row]) => doomed.has(row.operationId));
      const messageIds = new Set(messages.map(([messageId]) => messageId));
      const answers = this.db.scan(tx, 'answer').filter(([, row]) => messageIds.has(row.messageId));
      for (const [key] of answers) {
        this.db.remove(tx, 'answer', key);
      }
      for (const [key] of messages) {
        this.db.remove(tx, 'message', key);
      }
      for (const operationId of doomed) {
        this.db.remove(tx, 'operation', operationId);
      }
      const events = this.removeEvents((event) => event.operationId !== null && doomed.has(event.operationId));
      return { operations: doomed.size, messages: messages.length, answers: answers.length, events };
    });
  }

  pruneLooseEvents(before: number, limit: number): Promise<number> {
    return this.session.run(() => {
      const loose = this.db.events
        .filter((event) => event.operationId === null && event.at < before)
        .sort((a, b) => a.at - b.at)
        .slice(0, limit);
      const gone = new Set(loose.map((event) => event.sequence));
      return this.removeEvents((event) => gone.has(event.sequence));
    });
  }

  operationsPage(subjectId: string, after: OperationCursor | null, limit: number): Promise<Operation[]> {
    return this.session.run((tx) =>
      this.db
        .scan(tx, 'operation')
        .map(([, row]) => row)
        .filter(
          (row) =>
            row.targetId === subjectId &&
            (after === null ||
              row.startedAt > after.startedAt ||
              (row.startedAt === after.startedAt && row.operationId > after.operationId)),
        )
        .sort((a, b) => a.startedAt - b.startedAt || compareText(a.operationId, b.operationId))
        .slice(0, limit),
    );
  }

  eventsPage(subjectId: string, after: number, limit: number): Promise<StoredEvent[]> {
    return this.session.run(() =>
      this.db.events
        .filter((event) => event.subjectId === subjectId && event.sequence > after)
        .slice(0, limit)
        .map(copy),
    );
  }

  /** Committed events only: an event leaves the store's list at once, as a deleted row does at commit. */
  private removeEvents(doomed: (event: StoredEvent) => boolean): number {
    const kept = this.db.events.filter((event) => !doomed(event));
    const removed = this.db.events.length - kept.length;
    this.db.events.splice(0, this.db.events.length, ...kept);
    return removed;
  }
}
