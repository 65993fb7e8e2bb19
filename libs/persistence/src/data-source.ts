import { Clock, IdGenerator, UnitOfWork } from '@acm/domain';
import type { Store, StoredEvent } from '@acm/domain';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import type { ClientConfig } from 'pg';
import { DataSource, MigrationExecutor } from 'typeorm';
import type { PostgresConnectionOptions } from 'typeorm/driver/postgres/PostgresConnectionOptions';
import { AutomationCompositionElementEntity } from './entities/automation-composition-element.entity';
import { AutomationCompositionEntity } from './entities/automation-composition.entity';
import { CompositionDefinitionEntity } from './entities/composition-definition.entity';
import {
  ParticipantEntity,
  ParticipantReplicaEntity,
  ParticipantSupportedElementEntity,
} from './entities/participant.entity';
import type { QueuedRecord } from './engine-repositories';
import { claimOutbox, deleteOutbox } from './engine-repositories';
import { InitialSchema1764480000000 } from './migrations/1764480000000-InitialSchema';
import { OperationsOutboxEvents1764490000000 } from './migrations/1764490000000-OperationsOutboxEvents';
import { RollbackSnapshot1764500000000 } from './migrations/1764500000000-RollbackSnapshot';
import { MessageAnswers1764520000000 } from './migrations/1764520000000-MessageAnswers';
import { MessageElements1764530000000 } from './migrations/1764530000000-MessageElements';
import { OperationControl1764612000000 } from './migrations/1764612000000-OperationControl';
import { ParallelSlots1764700000000 } from './migrations/1764700000000-ParallelSlots';
import { OutboxTraceContext1764710000000 } from './migrations/1764710000000-OutboxTraceContext';
import { EventActor1764716000000 } from './migrations/1764716000000-EventActor';
import { OperationDueAt1764720000000 } from './migrations/1764720000000-OperationDueAt';
import { RetentionIndexes1764805000000 } from './migrations/1764805000000-RetentionIndexes';
import { AuditIndexes1764900000000 } from './migrations/1764900000000-AuditIndexes';
import { Rollouts1765500000000 } from './migrations/1765500000000-Rollouts';
import { RolloutStates1765600000000 } from './migrations/1765600000000-RolloutStates';
import { RolloutEvents1765600001000 } from './migrations/1765600001000-RolloutEvents';
import { RolloutInstances1765840000000 } from './migrations/1765840000000-RolloutInstances';
import { EventFeed1765700000000 } from './migrations/1765700000000-EventFeed';
import { DefinitionProjects1765830000000 } from './migrations/1765830000000-DefinitionProjects';
import { OperationGates1765810000000 } from './migrations/1765810000000-OperationGates';
import { ElementObservations1765800000000 } from './migrations/1765800000000-ElementObservations';
import { MaintenanceWindows1765820000000 } from './migrations/1765820000000-MaintenanceWindows';
import { OperationHeal1765850000000 } from './migrations/1765850000000-OperationHeal';
import { Approvals1765860000000 } from './migrations/1765860000000-Approvals';
import { StorageWrites } from './storage-writes';
import { DefinitionCache } from './typeorm/definition-cache';
import { TypeOrmStore } from './typeorm-store';

export const ENTITIES = [
  CompositionDefinitionEntity,
  AutomationCompositionEntity,
  AutomationCompositionElementEntity,
  ParticipantEntity,
  ParticipantSupportedElementEntity,
  ParticipantReplicaEntity,
];

/** Every migration in order; the schema is never synchronised from the entities. */
export const MIGRATIONS = [
  InitialSchema1764480000000,
  OperationsOutboxEvents1764490000000,
  RollbackSnapshot1764500000000,
  MessageAnswers1764520000000,
  MessageElements1764530000000,
  OperationControl1764612000000,
  ParallelSlots1764700000000,
  OutboxTraceContext1764710000000,
  EventActor1764716000000,
  OperationDueAt1764720000000,
  RetentionIndexes1764805000000,
  AuditIndexes1764900000000,
  Rollouts1765500000000,
  RolloutStates1765600000000,
  RolloutEvents1765600001000,
  EventFeed1765700000000,
  ElementObservations1765800000000,
  OperationGates1765810000000,
  MaintenanceWindows1765820000000,
  DefinitionProjects1765830000000,
  RolloutInstances1765840000000,
  OperationHeal1765850000000,
  Approvals1765860000000,
];

export interface DatabaseOptions {
  readonly url: string;
  /** Connections in the pool. */
  readonly poolSize?: number;
  /** Schema to use instead of public (tests run each suite in a schema of its own). */
  readonly schema?: string;
  /** How long a query waits for a connection of the pool, or for a new one to open (ms). Default 5,000. */
  readonly connectTimeoutMs?: number;
  /**
   * Every connection reaches the same PostgreSQL session (PGlite behind its socket server): the statements a closed
   * connection prepared are still there, and preparing one of their names again fails, so a new connection
   * deallocates them first.
   */
  readonly sharedSession?: boolean;
  /**
   * Plan each prepared statement once for any values (`plan_cache_mode = force_generic_plan`) instead of planning it
   * again for the values of most calls. For PGlite, which plans in WebAssembly on the one thread that answers every
   * statement: embedded B2 spent 6 % less CPU per instance with it (docs/performance.md). Not for a server, where the
   * generic plans of the hot statements have not been checked against large tables.
   */
  readonly genericPlans?: boolean;
  /**
   * The deadline of every statement (ms), or none when undefined or 0 (the embedded database, migrations). The
   * server cancels a statement that runs longer and ends a session idle inside a transaction for longer; the client
   * gives up `QUERY_DEADLINE_MARGIN_MS` later on a server that said nothing, and destroys that connection.
   */
  readonly statementTimeoutMs?: number;
}

/**
 * How much later than the server's own deadline the client gives up: a server that is alive cancels the statement
 * itself (and says so, 57014), so the client's deadline only ends waits on a server that went silent.
 */
export const QUERY_DEADLINE_MARGIN_MS = 1000;

/** Idle time before the first TCP keepalive probe of a pooled connection, on both ends (ms). */
const KEEPALIVE_IDLE_MS = 10_000;

/** What node-postgres rejects a query with when its `query_timeout` passed. */
export const QUERY_DEADLINE_MESSAGE = 'Query read timeout';

interface SetupClient {
  query(text: string): Promise<unknown>;
}

/** pg-pool's hook for a connection just opened, before the pool hands it out: the session's setup, when it has one. */
function onConnectHook(options: DatabaseOptions): { onConnect?: (client: SetupClient) => Promise<void> } {
  const setup = [
    ...(options.sharedSession === true ? ['DEALLOCATE ALL'] : []),
    ...(options.genericPlans === true ? ['SET plan_cache_mode = force_generic_plan'] : []),
  ];
  if (setup.length === 0) {
    return {};
  }
  return {
    onConnect: async (client) => {
      for (const statement of setup) {
        await client.query(statement);
      }
    },
  };
}

/**
 * The pool's settings that bound every wait on the server. `statement_timeout` cancels a statement the server runs
 * for too long (a lock it waits on included, so no `lock_timeout` of its own). `idle_in_transaction_session_timeout`,
 * equal to it, ends a session whose client went quiet inside a transaction: the client sends a statement only after
 * the answer to the one before, so a COMMIT the network held back reaches the server at least that long after the
 * statement before it, finds the session ended and applies nothing. As the client waits a margin longer than that
 * for any answer, an order either committed before its request was answered 503, or never will. TCP keepalive, on
 * both ends, finds connections of the pool, and sessions on the server, whose peer vanished without a word.
 */
function deadlineSettings(options: DatabaseOptions): Record<string, unknown> {
  const statementMs = options.statementTimeoutMs ?? 0;
  if (statementMs <= 0) {
    return {};
  }
  const keepaliveSeconds = KEEPALIVE_IDLE_MS / 1000;
  const serverKeepalive = [
    `tcp_keepalives_idle=${keepaliveSeconds}`,
    `tcp_keepalives_interval=${keepaliveSeconds / 2}`,
    'tcp_keepalives_count=3',
  ];
  return {
    statement_timeout: statementMs,
    idle_in_transaction_session_timeout: statementMs,
    query_timeout: statementMs + QUERY_DEADLINE_MARGIN_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS,
    Client: DeadlineClient,
    serverOptions: serverKeepalive.map((setting) => `-c ${setting}`),
  };
}

/** True when node-postgres gave up waiting for the answer to a statement (its `query_timeout`). */
export function isQueryDeadline(error: unknown): boolean {
  return error instanceof Error && error.message === QUERY_DEADLINE_MESSAGE;
}

type QueryFunction = (...args: unknown[]) => unknown;

/**
 * A node-postgres client that destroys its connection when a statement misses its deadline. node-postgres only
 * rejects the statement's promise: the connection still waits for that answer, every later statement queues behind
 * it, and the pool would hand it out again. Destroyed, it fails what queued behind (a transaction's ROLLBACK) at
 * once, and the pool replaces it.
 */
class DeadlineClient extends Client {
  constructor(config?: string | ClientConfig) {
    super(config);
    // Looked up at each call, so what wraps pg's own query (statement counters of the tests and the bench) still sees it.
    const query: QueryFunction = (...args) => (Client.prototype.query as unknown as QueryFunction).apply(this, args);
    const cutOnDeadline = (error: unknown): void => {
      if (isQueryDeadline(error)) {
        // node-postgres offers no public way to drop a connection without the goodbye a silent server never
        // acknowledges (`end()` waits for it); its own pipeline mode drops one the same way. Marked unusable first,
        // so the pool, which the caller returns it to before the socket's close is seen, discards it.
        const internals = this as unknown as { _queryable: boolean; connection: { stream: { destroy(): void } } };
        internals._queryable = false;
        internals.connection.stream.destroy();
      }
    };
    const deadlined: QueryFunction = (...args) => {
      const last = args[args.length - 1];
      if (typeof last === 'function') {
        const callback = last as (error: unknown, result: unknown) => void;
        args[args.length - 1] = (error: unknown, result: unknown): void => {
          cutOnDeadline(error);
          callback(error, result);
        };
        return query(...args);
      }
      const result = query(...args);
      if (result instanceof Promise) {
        return result.catch((error: unknown) => {
          cutOnDeadline(error);
          throw error;
        });
      }
      return result;
    };
    Object.assign(this, { query: deadlined });
  }
}

export function createDataSource(options: DatabaseOptions): DataSource {
  const { serverOptions, ...deadlines } = deadlineSettings(options) as { serverOptions?: string[] };
  const startupOptions = [...(options.schema ? [`-c search_path=${options.schema}`] : []), ...(serverOptions ?? [])];
  return new DataSource({
    type: 'postgres',
    url: options.url,
    schema: options.schema,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'acm_migrations',
    synchronize: false,
    migrationsRun: false,
    logging: ['error'],
    poolSize: options.poolSize ?? 10,
    // Without a bound, a request waits forever for a connection while the database is unreachable.
    connectTimeoutMS: options.connectTimeoutMs ?? 5000,
    extra: {
      ...(startupOptions.length > 0 ? { options: startupOptions.join(' ') } : {}),
      ...deadlines,
      ...onConnectHook(options),
    },
  });
}

/** Arbitrary key for pg_advisory_lock, so replicas starting together migrate one at a time. */
const MIGRATION_LOCK_KEY = 0x41434d; // "ACM"

/**
 * Runs pending migrations under an advisory lock; safe when several replicas start at once. The lock and
 * the migrations share one connection, so a pool of one connection (the embedded database) cannot wait
 * on itself.
 */
export async function migrate(dataSource: DataSource): Promise<void> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    const executor = new MigrationExecutor(dataSource, runner);
    executor.transaction = 'all';
    await executor.executePendingMigrations();
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    await runner.release();
  }
}

export class TypeOrmUnitOfWork extends UnitOfWork {
  /** Shared by every store of this unit of work; see `DefinitionCache` for why it is never stale. */
  private readonly definitionCache = new DefinitionCache();
  private readonly outboxListeners: Array<(records: readonly QueuedRecord[]) => void> = [];
  private readonly eventListeners: Array<(events: readonly StoredEvent[]) => void> = [];

  /** Whether writes succeed, or what stopped the last one (readiness and metrics read it). */
  readonly storage = new StorageWrites();
  /** Whether the server ends sessions idle in a transaction (see `deadlineSettings`). */
  private readonly idleTransactionsEnded: boolean;

  constructor(private readonly dataSource: DataSource) {
    super();
    const extra = (dataSource.options as PostgresConnectionOptions).extra as Record<string, unknown> | undefined;
    this.idleTransactionsEnded = typeof extra?.['idle_in_transaction_session_timeout'] === 'number';
  }

  /**
   * Called after each commit that queued outgoing messages, with those rows: the relay sends them at once
   * instead of reading them back at its next pass.
   */
  onOutboxCommitted(listener: (records: readonly QueuedRecord[]) => void): void {
    this.outboxListeners.push(listener);
  }

  /**
   * Called after each commit that appended history events, with those rows in sequence order: the live
   * event stream follows the history from the one place it is written. Rolled back events never reach it.
   */
  onEventsCommitted(listener: (events: readonly StoredEvent[]) => void): void {
    this.eventListeners.push(listener);
  }

  override async transaction<T>(work: (store: Store) => Promise<T>): Promise<T> {
    const queued: QueuedRecord[] = [];
    const appended: StoredEvent[] = [];
    const result = await this.storage.track(() =>
      this.dataSource.transaction((manager) =>
        work(
          new TypeOrmStore(
            manager,
            (records) => queued.push(...records),
            (events) => appended.push(...events),
            this.definitionCache,
          ),
        ),
      ),
    );
    if (queued.length > 0) {
      for (const listener of this.outboxListeners) {
        listener(queued);
      }
    }
    this.publishEvents(appended);
    return result;
  }

  private publishEvents(events: readonly StoredEvent[]): void {
    if (events.length === 0) {
      return;
    }
    for (const listener of this.eventListeners) {
      listener(events);
    }
  }

  /** Forgets outbox rows the broker acknowledged. */
  async deleteOutbox(ids: readonly string[]): Promise<void> {
    await this.storage.track(() => deleteOutbox(this.dataSource.manager, ids));
  }

  /**
   * Sends the oldest queued messages: claims them (SKIP LOCKED, so replicas never send the same row at
   * once), hands them to `send`, and deletes them only after `send` resolved. Returns how many went out.
   */
  async relayOutbox(send: (records: QueuedRecord[]) => Promise<void>, limit: number): Promise<number> {
    return this.storage.track(
      () => this.relayTransaction(send, limit),
      (sent) => sent > 0,
    );
  }

  private relayTransaction(send: (records: QueuedRecord[]) => Promise<void>, limit: number): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      if (this.idleTransactionsEnded) {
        // This transaction waits for the broker, not the database, and may do so longer than a session may sit
        // idle: its late commit only deletes rows already sent, and keepalive ends the session of a vanished client.
        await manager.query('SET LOCAL idle_in_transaction_session_timeout = 0');
      }
      const rows = await claimOutbox(manager, limit);
      if (rows.length > 0) {
        await send(rows);
        await deleteOutbox(
          manager,
          rows.map((row) => row.id),
        );
      }
      return rows.length;
    });
  }

  override read<T>(work: (store: Store) => Promise<T>): Promise<T> {
    // Outside a transaction each statement commits on its own, so appended events are published at once.
    return work(
      new TypeOrmStore(
        this.dataSource.manager,
        undefined,
        (events) => this.publishEvents(events),
        this.definitionCache,
      ),
    );
  }

  override async ping(): Promise<void> {
    await this.dataSource.query('SELECT 1');
  }
}

export class SystemClock extends Clock {
  override now(): number {
    return Date.now();
  }
}

export class RandomIdGenerator extends IdGenerator {
  override uuid(): string {
    return randomUUID();
  }
}
