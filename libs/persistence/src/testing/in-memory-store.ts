/**
 * The store's in-memory twin: `UnitOfWork` and every repository port with PostgreSQL's semantics as the
 * ports promise them (checked by the contract suites in `testing/contracts/` against both): READ COMMITTED
 * transactions that commit everything or nothing, row locks held until the transaction ends, versioned writes,
 * SKIP LOCKED claims, the same filters, orders and paging. The tables and their locks are in `in-memory/database.ts`,
 * one file per repository beside it. It needs nothing but the domain, so unit tests of the engine run on it with a
 * fake clock and no database.
 */
import {
  AuditLedger,
  DEFAULT_PROJECT,
  RetentionStore,
  UnitOfWork,
  compareAudit,
  matchesAudit,
  rankOperations,
  saveWritesOneByOne,
} from '@acm/domain';
import type {
  AuditCursor,
  AuditFilter,
  CompositionDefinition,
  ContextQuery,
  DefinitionRepository,
  EventRepository,
  InstanceRepository,
  Operation,
  OperationCursor,
  OperationRepository,
  OutboxRecord,
  OutboxRepository,
  PrunedRows,
  RetentionCandidate,
  ParticipantRepository,
  RollbackRepository,
  Store,
  StoreContext,
  StoreWrites,
  StoredEvent,
  Versioned,
} from '@acm/domain';
import type { InMemoryQueuedRecord, Session } from './in-memory/database';
import { copy, compareText, Database, TransactionSession, AutocommitSession } from './in-memory/database';
import { InMemoryDefinitionRepository } from './in-memory/definitions';
import { InMemoryInstanceRepository } from './in-memory/instances';
import { InMemoryParticipantRepository } from './in-memory/participants';
import { InMemoryOperationRepository } from './in-memory/operations';
import { InMemoryRollbackRepository, InMemoryOutboxRepository, InMemoryEventRepository } from './in-memory/records';
import { InMemoryRolloutStore } from './in-memory/rollouts';

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

  private rolloutStore: InMemoryRolloutStore | null = null;

  /** The rollout store over the same operations (its own port, as on PostgreSQL); one per unit of work. */
  rollouts(): InMemoryRolloutStore {
    this.rolloutStore ??= new InMemoryRolloutStore(this.db);
    return this.rolloutStore;
  }

  /** The retention store over the same tables (its own port, as on PostgreSQL). */
  retention(): RetentionStore {
    return new InMemoryRetentionStore(this.db);
  }

  audit(): AuditLedger {
    return new InMemoryAuditLedger(this.db);
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

/** The audit port over the in-memory tables: committed events, filtered and ordered as the SQL adapter does. */
class InMemoryAuditLedger extends AuditLedger {
  private readonly session: AutocommitSession;

  constructor(private readonly db: Database) {
    super();
    this.session = new AutocommitSession(db);
  }

  events(filter: AuditFilter, after: AuditCursor | null, offset: number, limit: number): Promise<StoredEvent[]> {
    return this.session.run((tx) => {
      const compositionId = filter.compositionId;
      const subjects =
        compositionId === undefined
          ? null
          : new Set([
              compositionId,
              ...this.db
                .scan(tx, 'instance')
                .filter(([, row]) => row.value.compositionId === compositionId)
                .map(([instanceId]) => instanceId),
            ]);
      const projects = filter.projects;
      const inProjects =
        projects === undefined
          ? null
          : new Set(
              this.db
                .scan(tx, 'definition')
                .filter(([, row]) => projects.includes(row.value.project ?? DEFAULT_PROJECT))
                .map(([id]) => id),
            );
      for (const [instanceId, row] of inProjects === null ? [] : this.db.scan(tx, 'instance')) {
        if (inProjects?.has(row.value.compositionId) === true) {
          inProjects.add(instanceId);
        }
      }
      return this.db.events
        .filter(
          (event) =>
            matchesAudit(event, filter) &&
            (subjects === null || subjects.has(event.subjectId)) &&
            (inProjects === null || inProjects.has(event.subjectId)) &&
            (after === null || compareAudit(event, after) > 0),
        )
        .sort(compareAudit)
        .slice(offset, offset + limit)
        .map(copy);
    });
  }
}
