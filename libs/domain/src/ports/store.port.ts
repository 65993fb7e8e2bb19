import type { AutomationComposition, CompositionDefinition, InstanceElement, JsonObject, Participant } from '../model';
import type { DeployState, StateChangeResult } from '../states';
import type {
  EventRepository,
  MessageAnswer,
  MessageRecord,
  Operation,
  OperationRepository,
  OutboxRecord,
  OutboxRepository,
} from './engine.port';
import type { OperationEvent } from '../history/history-events';

/** A stored object with the version it was read at: writes succeed only against that version. */
export interface Versioned<T> {
  readonly value: T;
  readonly version: number;
}

/** ONAP paging: applies only when both page (0-based) and size are given. */
export interface PageRequest {
  readonly page?: number;
  readonly size?: number;
}

export interface DefinitionQuery extends PageRequest {
  readonly name?: string;
  readonly version?: string;
  readonly participantId?: string;
  /** Only definitions of these projects. */
  readonly projects?: readonly string[];
}

export interface InstanceQuery extends PageRequest {
  readonly compositionId?: string;
  readonly name?: string;
  readonly version?: string;
  readonly participantId?: string;
  readonly instanceIds?: readonly string[];
  readonly deployStates?: readonly DeployState[];
  readonly stateChangeResults?: readonly StateChangeResult[];
  readonly sort?: InstanceSortField;
  readonly sortOrder?: 'ASC' | 'DESC';
  /** Only instances of definitions of these projects. */
  readonly projects?: readonly string[];
}

export const INSTANCE_SORT_FIELDS = ['lastMsg', 'name', 'version', 'deployState', 'lockState', 'instanceId'] as const;
export type InstanceSortField = (typeof INSTANCE_SORT_FIELDS)[number];

export interface DefinitionRepository {
  insert(definition: CompositionDefinition): Promise<void>;
  find(compositionId: string): Promise<Versioned<CompositionDefinition> | null>;
  findForUpdate(compositionId: string): Promise<Versioned<CompositionDefinition> | null>;
  list(query: DefinitionQuery): Promise<CompositionDefinition[]>;
  /** Writes the definition if it is still at `expectedVersion`; otherwise CONCURRENT_MODIFICATION. */
  update(definition: CompositionDefinition, expectedVersion: number): Promise<void>;
  delete(compositionId: string, expectedVersion: number): Promise<void>;
}

export interface InstanceRepository {
  /** Refuses a taken name/version or element id with ALREADY_EXISTS. */
  insert(instance: AutomationComposition): Promise<void>;
  find(instanceId: string): Promise<Versioned<AutomationComposition> | null>;
  /** Reads and row-locks the instance until the transaction ends; ACKs of one instance apply one at a time. */
  findForUpdate(instanceId: string): Promise<Versioned<AutomationComposition> | null>;
  /**
   * As `findForUpdate` for many instances at once, locked in the order of their ids (so two callers never
   * deadlock); unknown ids are absent from the answer.
   */
  findManyForUpdate(instanceIds: readonly string[]): Promise<Map<string, Versioned<AutomationComposition>>>;
  list(query: InstanceQuery): Promise<AutomationComposition[]>;
  /** The elements a participant serves, across instances, in a stable order; paged like every ONAP list. */
  elementsOfParticipant(participantId: string, page: PageRequest): Promise<InstanceElement[]>;
  /** Instances whose compositionId or compositionTargetId is the definition. */
  countUsingDefinition(compositionId: string): Promise<number>;
  isNameVersionTaken(name: string, version: string, exceptInstanceId?: string): Promise<boolean>;
  /** Of the given element ids, those already used by an instance other than `exceptInstanceId`. */
  elementIdsInUse(elementIds: readonly string[], exceptInstanceId?: string): Promise<string[]>;
  update(instance: AutomationComposition, expectedVersion: number): Promise<void>;
  /**
   * The same as calling `update` for each entry in order (an instance may appear several times, each entry at the
   * version the one before left), written with a constant number of statements.
   */
  updateMany(updates: readonly InstanceUpdate[]): Promise<void>;
  /**
   * Stores what a participant reports about its own element outside an order (outProperties, operational
   * and use state); null keeps the stored value. Other participants' elements are left alone.
   */
  updateElementInfo(instanceId: string, elementId: string, participantId: string, info: ElementInfo): Promise<void>;
  /** The same as calling `updateElementInfo` for each entry in order, with a constant number of statements. */
  updateElementInfos(infos: readonly ElementInfoUpdate[]): Promise<void>;
  delete(instanceId: string, expectedVersion: number): Promise<void>;
}

/** One versioned write of `InstanceRepository.updateMany`. */
export interface InstanceUpdate {
  readonly instance: AutomationComposition;
  readonly expectedVersion: number;
}

/** What a participant reports about its own element; null keeps the stored value. */
export interface ElementInfo {
  readonly outProperties: JsonObject | null;
  readonly operationalState: string | null;
  readonly useState: string | null;
}

/** One `updateElementInfo` of `InstanceRepository.updateElementInfos`. */
export interface ElementInfoUpdate {
  readonly instanceId: string;
  readonly elementId: string;
  readonly participantId: string;
  readonly info: ElementInfo;
}

/**
 * An element as `updateElementInfo` leaves it: the participant's reported fields over the stored ones, only when the
 * element is that participant's; the very same object when nothing applies.
 */
export function elementWithInfo(element: InstanceElement, participantId: string, info: ElementInfo): InstanceElement {
  if (element.participantId !== participantId) {
    return element;
  }
  return {
    ...element,
    outProperties: info.outProperties ?? element.outProperties,
    operationalState: info.operationalState ?? element.operationalState,
    useState: info.useState ?? element.useState,
  };
}

export interface ParticipantRepository {
  list(): Promise<Participant[]>;
  find(participantId: string): Promise<Participant | null>;
  /** Creates or replaces the participant row, its supported types and its replicas. */
  save(participant: Participant): Promise<void>;
  deleteReplica(participantId: string, replicaId: string): Promise<void>;
  /** A heartbeat of a known replica: ON_LINE, last message now. False when the replica is unknown. */
  touchReplica(participantId: string, replicaId: string, now: number): Promise<boolean>;
  /** Marks replicas silent since before `cutoff` OFF_LINE; returns the participants that changed. */
  markSilentReplicasOffline(cutoff: number): Promise<string[]>;
}

/**
 * The elements of an instance as they were before an update or migration started (ONAP
 * AutomationCompositionRollback): what a rollback restores.
 */
export interface RollbackSnapshot {
  readonly instanceId: string;
  /** The composition the snapshotted elements belong to. */
  readonly compositionId: string;
  readonly elements: Record<string, InstanceElement>;
  /** Epoch milliseconds. */
  readonly createdAt: number;
}

export interface RollbackRepository {
  /** Creates or replaces the instance's snapshot (one per instance, as in ONAP). */
  save(snapshot: RollbackSnapshot): Promise<void>;
  find(instanceId: string): Promise<RollbackSnapshot | null>;
}

/** The writes of a step or of a batch of steps, as `Store.saveAll` takes them. */
export interface StoreWrites {
  /** As `InstanceRepository.updateMany`. */
  readonly instances: readonly InstanceUpdate[];
  /** As `OperationRepository.saveMany`. */
  readonly operations: ReadonlyArray<{ readonly operation: Operation; readonly isNew: boolean }>;
  readonly messages: readonly MessageRecord[];
  readonly answers: readonly MessageAnswer[];
  readonly outbox: readonly OutboxRecord[];
  readonly events: readonly OperationEvent[];
}

/**
 * `Store.saveAll` as the single writes, one table after the other: the instances first, so a stale version throws
 * before any other row is written. For stores whose single writes are already what they should be (in memory, or
 * collecting writes for a later set statement).
 */
export async function saveWritesOneByOne(
  store: Omit<Store, 'saveAll' | 'readContext'>,
  writes: StoreWrites,
): Promise<void> {
  await store.instances.updateMany(writes.instances);
  await store.operations.saveMany(writes.operations);
  await store.operations.recordMessages(writes.messages);
  await store.operations.recordAnswers(writes.answers);
  await store.outbox.add(writes.outbox);
  await store.events.append(writes.events);
}

/** What `Store.readContext` reads besides locked instances; each part is read only when asked for. */
export interface ContextQuery {
  /** Targets whose running operation to read. */
  readonly runningOf: readonly string[];
  /** Composition definitions to read, by composition id. */
  readonly definitions: readonly string[];
  /** Sent messages whose operation and phase to read. */
  readonly messages: readonly string[];
  /** Whether to read every participant (as `ParticipantRepository.list`). */
  readonly participants: boolean;
}

/** The answer of `Store.readContext`: what `findManyRunning`, `find`, `findManyByMessage` and `list` answer. */
export interface StoreContext {
  readonly running: Map<string, Operation>;
  readonly definitions: Map<string, Versioned<CompositionDefinition>>;
  readonly answered: Map<string, { operation: Operation; phase: number | null }>;
  /** Null when not asked for. */
  readonly participants: Participant[] | null;
}

/** The repositories as seen inside one transaction. */
export interface Store {
  readonly definitions: DefinitionRepository;
  readonly instances: InstanceRepository;
  readonly participants: ParticipantRepository;
  readonly operations: OperationRepository;
  readonly rollbacks: RollbackRepository;
  readonly outbox: OutboxRepository;
  readonly events: EventRepository;
  /**
   * The same as `instances.updateMany`, `operations.saveMany`, `operations.recordMessages`, `operations.recordAnswers`,
   * `outbox.add` and `events.append` in that order, written with one statement (plus one `DELETE` when elements were
   * removed). A stale instance version refuses the lot with CONCURRENT_MODIFICATION and writes none of the other rows.
   */
  saveAll(writes: StoreWrites): Promise<void>;
  /**
   * The same as `operations.findManyRunning`, `definitions.find` of each composition, `operations.findManyByMessage`
   * and `participants.list`, read with one statement: what an order or a batch needs besides its locked instances.
   */
  readContext(query: ContextQuery): Promise<StoreContext>;
}

/**
 * Runs work in one database transaction: everything it wrote commits together or not at all.
 * Reads outside a transaction use `read`, which may run on any connection; each of its statements commits on its own,
 * so it also carries a single-statement write that needs no transaction (a heartbeat's `touchReplica`).
 */
export abstract class UnitOfWork {
  abstract transaction<T>(work: (store: Store) => Promise<T>): Promise<T>;
  abstract read<T>(work: (store: Store) => Promise<T>): Promise<T>;
  /** Resolves when the store answers; health checks use it. */
  abstract ping(): Promise<void>;
}

/** Time as the domain sees it: epoch milliseconds, injected so tests control it. */
export abstract class Clock {
  abstract now(): number;
}

/** Identifier source, injected so tests can predict ids. */
export abstract class IdGenerator {
  abstract uuid(): string;
}
