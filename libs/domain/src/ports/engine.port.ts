import type { GateState } from '../control/health-gate';
import type { InstanceOrder } from '../instance/instance-lifecycle';
import { INSTANCE_ORDERS } from '../instance/instance-lifecycle';
import type { DefinitionOrder } from '../definition/definition-lifecycle';
import type { OperationEvent, StoredEvent } from '../history/history-events';

export type OperationState = 'RUNNING' | 'COMPLETED' | 'FAILED' | 'SUPERSEDED' | 'CANCELLED';

interface OperationFields {
  readonly operationId: string;
  readonly targetId: string;
  state: OperationState;
  /** Set once the deadline passed; late successful ACKs may still complete the operation. */
  timedOut: boolean;
  /** Epoch milliseconds. */
  readonly startedAt: number;
  deadlineAt: number;
  finishedAt: number | null;
  /** What supervision needs to resend, retry and pause it (libs/domain/src/control). */
  control: OperationControl;
  /** The open phase or stage of an instance operation; always null for a definition's. */
  phase: number | null;
}

/** An instance order's operation: its order is an instance order, and it walks phases (or stages). */
export interface InstanceOperation extends OperationFields {
  readonly targetKind: 'INSTANCE';
  readonly order: InstanceOrder;
  /** A heal (a DEPLOY the runtime started under `drift: correct`): the elements it re-applies; absent otherwise. */
  readonly heal?: readonly string[];
}

/** A prime or deprime: one message, no phase. */
export interface DefinitionOperation extends OperationFields {
  readonly targetKind: 'DEFINITION';
  readonly order: DefinitionOrder;
}

/** A running or finished transition of one instance or definition (Heat's traversal). */
export type Operation = InstanceOperation | DefinitionOperation;

/** What a store row holds, before it is known which kind of operation it is. */
export interface OperationRecord extends OperationFields {
  readonly targetKind: string;
  readonly order: string;
  /** The elements a heal re-applies (an instance's DEPLOY only); absent or null: not a heal. */
  readonly heal?: readonly string[] | null;
}

const INSTANCE_ORDER_NAMES: ReadonlySet<string> = new Set(INSTANCE_ORDERS);
const DEFINITION_ORDER_NAMES: ReadonlySet<string> = new Set(['PRIME', 'DEPRIME']);

function isInstanceOrder(order: string): order is InstanceOrder {
  return INSTANCE_ORDER_NAMES.has(order);
}

function isDefinitionOrder(order: string): order is DefinitionOrder {
  return DEFINITION_ORDER_NAMES.has(order);
}

/** Narrows a stored row to its kind; a row whose kind and order disagree was never written by the engine. */
export function operationFromRecord(record: OperationRecord): Operation {
  const { targetKind, order, heal, ...fields } = record;
  if (targetKind === 'INSTANCE' && isInstanceOrder(order)) {
    return { ...fields, targetKind, order, ...(heal !== undefined && heal !== null ? { heal } : {}) };
  }
  if (targetKind === 'DEFINITION' && isDefinitionOrder(order)) {
    return { ...fields, targetKind, order, phase: null };
  }
  throw new Error(`operation ${record.operationId} has order ${order} for a ${targetKind} target`);
}

/** The control clocks and counters of an operation. */
export interface OperationControl {
  /** Epoch ms of the open phase's last progress: opened, dispatched, answered, resent, retried or resumed. */
  progressAt: number;
  /** Resends of the open phase since that progress (MAX_RETRY_COUNT bounds them). */
  resent: number;
  /** Epoch ms of the pause in progress; null while running. */
  pausedAt: number | null;
  /** Paused time already over, summed. */
  pausedMs: number;
  /** Automatic retries of failed elements so far (retryPolicy.limit bounds them). */
  retried: number;
  /** Epoch ms when the scheduled retry of the failed elements is due; null when none is scheduled. */
  retryAt: number | null;
  /**
   * Elements of the open phase dispatched and not answered yet, kept only under a runtime-wide parallelism limit
   * (MAX_PARALLEL_ELEMENTS): the runtime's slots in use are the sum over running operations.
   */
  inFlight: number;
  /** What the operation waits for a runtime-wide slot to send; null when it waits for none (see SlotWait). */
  slotWait: SlotWait | null;
  /**
   * Epoch ms when supervision must next look at the operation (a deadline, a resend, a retry, a no-progress report;
   * see operation/supervision-due.ts); null when nothing of it can fall due. Stored, so every replica honours it.
   */
  dueAt: number | null;
  /**
   * The health gates of elements that answered DEPLOYED and wait to be healthy, by element id (control/health-gate.ts);
   * absent or empty when none waits. Stored with the operation, so a restart resumes each gate where it was.
   */
  gates?: Readonly<Record<string, GateState>>;
}

/**
 * Under a runtime-wide parallelism limit, what a waiting operation sends once slots are free: the opening message of
 * its first phase (FIRST_PHASE, which tells participants the order starts), of a later phase (PHASE), or more
 * elements of a phase already open (ELEMENTS).
 */
export type SlotWait = 'FIRST_PHASE' | 'PHASE' | 'ELEMENTS';

/** A new operation's control state. */
export function freshControl(now: number): OperationControl {
  return {
    progressAt: now,
    resent: 0,
    pausedAt: null,
    pausedMs: 0,
    retried: 0,
    retryAt: null,
    inFlight: 0,
    slotWait: null,
    dueAt: null,
  };
}

/** A message on its way to the bus, written in the same transaction as the state that caused it. */
export interface OutboxRecord {
  readonly topic: string;
  readonly key: string | null;
  readonly value: string;
  /** Record headers the message leaves with: the W3C trace context of the work that wrote it, when traced. */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface OperationRepository {
  insert(operation: Operation): Promise<void>;
  update(operation: Operation): Promise<void>;
  find(operationId: string): Promise<Operation | null>;
  /** The running operation of an instance or definition, if any. */
  findRunning(targetId: string): Promise<Operation | null>;
  /** `findRunning` of many targets at once, by target id; a target with none is absent. */
  findManyRunning(targetIds: readonly string[]): Promise<Map<string, Operation>>;
  /**
   * Inserts the new operations and updates the others (as `insert` and `update` would, updates first, so an
   * operation that stops running makes room for its successor), with a constant number of statements. One
   * entry per operation.
   */
  saveMany(operations: ReadonlyArray<{ readonly operation: Operation; readonly isNew: boolean }>): Promise<void>;
  /** Remembers which operation and phase a sent message belongs to, so its ACKs can be matched. */
  recordMessage(
    messageId: string,
    operationId: string,
    phase: number | null,
    /** The elements of its phase the message sets going. */
    elementIds?: readonly string[] | null,
  ): Promise<void>;
  /** The same as `recordMessage` for each entry, in one statement. */
  recordMessages(messages: readonly MessageRecord[]): Promise<void>;
  findByMessage(messageId: string): Promise<{ operation: Operation; phase: number | null } | null>;
  /** `findByMessage` of many messages at once, by message id; an unknown one is absent. */
  findManyByMessage(
    messageIds: readonly string[],
  ): Promise<Map<string, { operation: Operation; phase: number | null }>>;
  /** Remembers that a replica of a participant answered a message (it took that message's work). */
  recordAnswer(messageId: string, participantId: string, replicaId: string): Promise<void>;
  /** The same as `recordAnswer` for each entry, in one statement. */
  recordAnswers(answers: readonly MessageAnswer[]): Promise<void>;
  /** The messages sent for one phase of an operation, each with the replicas that answered it, per participant. */
  phaseMessages(operationId: string, phase: number | null): Promise<PhaseMessageRecord[]>;
  /** Of these replicas, the ones that ever answered a message: a replica that did no work has none to hand over. */
  workers(replicaIds: readonly string[]): Promise<Set<string>>;
  /** Asks, from `at`, which replicas of a participant are still alive (a pending probe moves to `at`). */
  recordProbe(participantId: string, at: number): Promise<void>;
  /** Removes and returns the probes started before `before` (one replica takes each). */
  takeProbes(before: number): Promise<Array<{ participantId: string; probedAt: number }>>;
  /**
   * Running, not paused, not yet timed-out operations past their deadline, unlocked: the caller locks each target
   * first (as an ACK does) and reads the operation again under that lock.
   */
  findOverdue(now: number, limit: number): Promise<Operation[]>;
  /**
   * Running operations, unlocked, least recently progressed first: supervision decides resends and retries
   * for each (libs/domain/src/control) after locking its target and reading it again.
   */
  listRunning(limit: number): Promise<Operation[]>;
  /**
   * Running operations with a due time (`control.dueAt`), unlocked, earliest due first: the supervision timer arms
   * for the first and, once it fires, decides each one that is due after locking its target and reading it again.
   */
  listDue(limit: number): Promise<Operation[]>;
  /**
   * Takes the runtime-wide parallelism lock until the transaction ends (one holder across every replica). Taken
   * before any target row, and only by the pass that fills free slots, so it never waits behind an ACK's locks.
   */
  lockSlots(): Promise<void>;
  /** The runtime-wide slots in use: `control.inFlight` summed over running operations. */
  slotsInUse(): Promise<number>;
  /**
   * Running, not paused operations waiting for a runtime-wide slot (`control.slotWait` set), unlocked, in the order
   * they take their turn: oldest start first, then operation id.
   */
  listSlotWaiting(limit: number): Promise<Operation[]>;
  /** Finished operations of a target, newest first. */
  history(targetId: string, limit: number): Promise<Operation[]>;
}

/** A sent message as `recordMessage` remembers it. */
export interface MessageRecord {
  readonly messageId: string;
  readonly operationId: string;
  readonly phase: number | null;
  readonly elementIds: readonly string[] | null;
}

/** A replica's answer to a message, as `recordAnswer` remembers it. */
export interface MessageAnswer {
  readonly messageId: string;
  readonly participantId: string;
  readonly replicaId: string;
}

export interface PhaseMessageRecord {
  readonly messageId: string;
  /** The elements of its phase it set going; null when not recorded (it described the whole phase). */
  readonly elementIds: readonly string[] | null;
  readonly answeredBy: ReadonlyArray<{ readonly participantId: string; readonly replicaId: string }>;
}

export interface OutboxRepository {
  add(records: readonly OutboxRecord[]): Promise<void>;
}

export interface EventRepository {
  append(events: readonly OperationEvent[]): Promise<void>;
  list(subjectId: string, limit: number): Promise<StoredEvent[]>;
}
