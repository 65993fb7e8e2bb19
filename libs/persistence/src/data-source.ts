import { Clock, IdGenerator, UnitOfWork } from '@acm/domain';
import type { Store, StoredEvent } from '@acm/domain';
import { randomUUID } from 'node:crypto';
import { DataSource, MigrationExecutor } from 'typeorm';
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
import { DefinitionCache, TypeOrmStore } from './typeorm-store';

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
}

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

export function createDataSource(options: DatabaseOptions): DataSource {
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
      ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
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

  constructor(private readonly dataSource: DataSource) {
    super();
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
    const result = await this.dataSource.transaction((manager) =>
      work(
        new TypeOrmStore(
          manager,
          (records) => queued.push(...records),
          (events) => appended.push(...events),
          this.definitionCache,
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
    await deleteOutbox(this.dataSource.manager, ids);
  }

  /**
   * Sends the oldest queued messages: claims them (SKIP LOCKED, so replicas never send the same row at
   * once), hands them to `send`, and deletes them only after `send` resolved. Returns how many went out.
   */
  async relayOutbox(send: (records: QueuedRecord[]) => Promise<void>, limit: number): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
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
