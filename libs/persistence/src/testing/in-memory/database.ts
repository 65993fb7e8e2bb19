import { DomainError } from '@acm/domain';
import type {
  AutomationComposition,
  CompositionDefinition,
  InstanceElement,
  Operation,
  OutboxRecord,
  PageRequest,
  Participant,
  RollbackSnapshot,
  StoredEvent,
  Versioned,
} from '@acm/domain';

/** An outbox row as committed, with its position: the same shape the PostgreSQL store hands its relay. */
export interface InMemoryQueuedRecord extends OutboxRecord {
  readonly id: string;
}

export type InstanceRow = Omit<AutomationComposition, 'elements'>;

export interface ElementRow {
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
export interface Rows {
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

export const DELETED = Symbol('deleted');
type Pending<T> = T | typeof DELETED;

/** Values leave and enter the store as copies, as they do through a database driver. */
export const copy = <T>(value: T): T => structuredClone(value);

/** A unique or foreign key refusal, which PostgreSQL raises as a driver error rather than a domain error. */
export class ConstraintViolation extends Error {
  override readonly name = 'ConstraintViolation';
}

export function concurrentChange(kind: string, id: string): DomainError {
  return new DomainError(
    'CONCURRENT_MODIFICATION',
    `${kind} ${id} was changed by another request while this one was being applied; read it again and retry`,
    { id },
  );
}

export function paged<T>(rows: T[], page: PageRequest): T[] {
  if (page.page !== undefined && page.size !== undefined) {
    return rows.slice(page.page * page.size, page.page * page.size + page.size);
  }
  return rows;
}

/** Byte-wise order, as PostgreSQL's C collation and its uuid type compare. */
export function compareText(a: string, b: string): number {
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
export class Transaction {
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
export class Database {
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
export interface Session {
  readonly db: Database;
  run<T>(work: (tx: Transaction) => T | Promise<T>): Promise<T>;
}

export class TransactionSession implements Session {
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
export class AutocommitSession implements Session {
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
