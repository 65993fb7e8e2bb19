import type { AutomationComposition, CompositionDefinition, Participant } from '../model';
import type { Operation } from './engine.port';
import type { InstanceQuery, Store, Versioned } from './store.port';

/**
 * The queries of supervision and of the parallelism pass: which operations are overdue, due or waiting, what the
 * runtime-wide slots hold, which replicas worked and which probes are over. Unlocked reads (a pass locks its target
 * through an `OperationSession` and reads the operation again there), but for `lockSlots` and `takeProbes`.
 */
export interface SupervisionQueries {
  /** Running, not paused, not timed-out operations past their deadline, oldest deadline first. */
  overdue(now: number, limit: number): Promise<Operation[]>;
  /** Running operations, least recently progressed first. */
  running(limit: number): Promise<Operation[]>;
  /** Running operations with a due time, earliest first. */
  due(limit: number): Promise<Operation[]>;
  /** The runtime-wide parallelism lock, held until the transaction ends (one holder across every replica). */
  lockSlots(): Promise<void>;
  /** The runtime-wide slots in use. */
  slotsInUse(): Promise<number>;
  /** Running, not paused operations waiting for a runtime-wide slot, in the order they take their turn. */
  slotWaiting(limit: number): Promise<Operation[]>;
  /** Removes and returns the liveness probes started before `before` (one replica takes each). */
  takeProbes(before: number): Promise<Array<{ participantId: string; probedAt: number }>>;
  /** Of these replicas, the ones that ever answered a message. */
  workers(replicaIds: readonly string[]): Promise<Set<string>>;
  participant(participantId: string): Promise<Participant | null>;
  participantIds(): Promise<string[]>;
  /** Instances, unlocked: by ids (a pass's candidates) or by the participant that serves their elements. */
  instances(query: Pick<InstanceQuery, 'instanceIds' | 'participantId'>): Promise<AutomationComposition[]>;
  /** A definition, unlocked. */
  definition(compositionId: string): Promise<Versioned<CompositionDefinition> | null>;
}

/** Supervision's queries answered by a store's repositories. */
export function supervisionQueriesOf(store: Store): SupervisionQueries {
  const { operations, participants, instances, definitions } = store;
  return {
    overdue: (now, limit) => operations.findOverdue(now, limit),
    running: (limit) => operations.listRunning(limit),
    due: (limit) => operations.listDue(limit),
    lockSlots: () => operations.lockSlots(),
    slotsInUse: () => operations.slotsInUse(),
    slotWaiting: (limit) => operations.listSlotWaiting(limit),
    takeProbes: (before) => operations.takeProbes(before),
    workers: (replicaIds) => operations.workers(replicaIds),
    participant: (participantId) => participants.find(participantId),
    participantIds: async () => (await participants.list()).map((participant) => participant.participantId),
    instances: (query) => instances.list(query),
    definition: (compositionId) => definitions.find(compositionId),
  };
}
