import type { AutomationComposition, CompositionDefinition } from '../model';
import type { OperationEvent, StoredEvent } from '../history/history-events';
import type { MessageAnswer, MessageRecord, Operation, OutboxRecord, PhaseMessageRecord } from './engine.port';
import type { RollbackSnapshot, Store, Versioned } from './store.port';
import type { SupervisionQueries } from './supervision-queries.port';

/** What a session locks and loads when it opens: the instances an order or a batch of ACKs concerns, and more. */
export interface SessionKeys {
  readonly instanceIds: readonly string[];
  /** The sent messages the batch's ACKs answer. */
  readonly messageIds: readonly string[];
  /** Whether to read the participants too (an order checks that they are online). */
  readonly participants?: boolean;
}

/** A sent message as recorded: the operation and phase it belongs to. */
export interface RecordedMessage {
  readonly operation: Operation;
  readonly phase: number | null;
}

/** The rows a decided step adds besides its target: each list is appended in order at the commit. */
export interface SessionRecords {
  readonly messages?: readonly MessageRecord[];
  readonly answers?: readonly MessageAnswer[];
  readonly outbox?: readonly OutboxRecord[];
  readonly events?: readonly OperationEvent[];
}

/**
 * The engine's port: one operation session over one transaction. It locks and loads a set of targets with what a
 * decision reads (their running operations, definitions, answered messages), answers a few explicit late reads,
 * and holds every write until `commit`, which writes them all at once. Each read sees every write made before it
 * in the session. Locks are taken in the order of ids when the session opens; a target locked later
 * (`lockInstance` / `lockDefinition` of one not loaded) is locked at that call.
 */
export interface OperationSession {
  /** The instance, row-locked until the transaction ends; null when it does not exist (or was deleted here). */
  lockInstance(instanceId: string): Promise<Versioned<AutomationComposition> | null>;
  /** The definition, row-locked until the transaction ends (a prime or deprime and its ACKs). */
  lockDefinition(compositionId: string): Promise<Versioned<CompositionDefinition> | null>;
  /** The definition, unlocked: an instance's own or its migration target. */
  definition(compositionId: string): Promise<Versioned<CompositionDefinition> | null>;
  /** The running operation of an instance or a definition, if any. */
  running(targetId: string): Promise<Operation | null>;
  operation(operationId: string): Promise<Operation | null>;
  /** The operation and phase of a sent message; null for a message the runtime never recorded. */
  answered(messageId: string): Promise<RecordedMessage | null>;
  /** Late read: the messages sent for one phase of an operation, each with the replicas that answered it. */
  phaseMessages(operationId: string, phase: number | null): Promise<PhaseMessageRecord[]>;
  /** Late read: the newest history events of an instance or definition. */
  history(subjectId: string, limit: number): Promise<StoredEvent[]>;
  /** Late read: the instance's rollback snapshot (update, migration and their rollbacks). */
  rollback(instanceId: string): Promise<RollbackSnapshot | null>;
  /** A versioned write: a stale `expectedVersion` refuses it with CONCURRENT_MODIFICATION (a concurrent order). */
  writeInstance(instance: AutomationComposition, expectedVersion: number): Promise<void>;
  deleteInstance(instanceId: string, expectedVersion: number): Promise<void>;
  writeDefinition(definition: CompositionDefinition, expectedVersion: number): Promise<void>;
  /** New operations (`isNew`) and changed ones; a stopped one makes room for its successor. */
  saveOperations(operations: ReadonlyArray<{ readonly operation: Operation; readonly isNew: boolean }>): void;
  /** Message records, answers, outbox rows and history events, appended in order. */
  record(records: SessionRecords): void;
  /**
   * Writes everything held so far (one set statement per kind of row); the caller's transaction then commits it.
   * Needed only on a session `join`ed to the caller's transaction: `OperationSessions.transaction` commits its own.
   */
  commit(): Promise<void>;
}

/** What a session's work receives besides the session: the transaction's store (seeing the session's writes). */
export interface SessionScope {
  /** The transaction's repositories for the application's own checks and writes, through the session's buffer. */
  readonly store: Store;
  /** Supervision's queries, inside the same transaction. */
  readonly queries: SupervisionQueries;
}

/** Opens operation sessions (`libs/persistence` implements it over the unit of work). */
export abstract class OperationSessions {
  /**
   * One transaction: the keys are locked and loaded (two statements whatever their number), `work` runs, the
   * session's writes go out and the transaction commits, or nothing does.
   */
  abstract transaction<T>(
    keys: SessionKeys,
    work: (session: OperationSession, scope: SessionScope) => Promise<T>,
  ): Promise<T>;
  /**
   * A session inside a transaction the caller holds, over instances it already locked and loaded there: nothing
   * is read; the caller commits the session before its transaction ends.
   */
  abstract join(store: Store, locked: ReadonlyArray<Versioned<AutomationComposition>>): OperationSession;
  /** Supervision's queries outside any transaction (each statement commits on its own). */
  abstract read<T>(work: (queries: SupervisionQueries) => Promise<T>): Promise<T>;
}
