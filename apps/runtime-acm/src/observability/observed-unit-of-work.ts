import type {
  AutomationComposition,
  InstanceRepository,
  DefinitionRepository,
  EventRepository,
  OperationEvent,
  Operation,
  OperationRepository,
  OutboxRecord,
  OutboxRepository,
  Participant,
  ParticipantRepository,
  ParticipantState,
  Store,
} from '@acm/domain';
import { UnitOfWork } from '@acm/domain';

/** The order an event belongs to and when it started, when the transaction wrote or read its operation. */
export interface CommittedOperation {
  readonly order: string;
  /** Epoch milliseconds. */
  readonly startedAt: number;
}

/**
 * A history event as it committed, with the composition and instance it concerns, its operation's order and start,
 * and the names of the elements of the instance, when the transaction knew them.
 */
export type CommittedEvent = OperationEvent & {
  readonly compositionId: string | null;
  readonly instanceId: string | null;
  readonly operation?: CommittedOperation;
  /** Element id → its definition's name, for the instance the event concerns. */
  readonly elementNames?: ReadonlyMap<string, string>;
};

/**
 * A participant replica whose state a committed transaction changed. DEREGISTERED: the replica row left the registry
 * (the replica said DEREGISTER on a clean stop, or it belonged to an earlier run of an embedded runtime).
 */
export interface ReplicaChange {
  readonly participantId: string;
  readonly replicaId: string | null;
  readonly from: ParticipantState | null;
  readonly to: ParticipantState | 'DEREGISTERED';
}

/** What a tracer does with one transaction (operation-traces.ts): stamp its rows before commit, then settle. */
export interface TracedTransaction {
  /** Inside the transaction, once its work is done: starts its spans, returns its rows with their headers. */
  stamp(events: readonly CommittedEvent[], records: readonly OutboxRecord[]): OutboxRecord[];
  /** After the transaction committed (true) or rolled back (false). */
  settle(committed: boolean): void;
}

export interface TransactionTracer {
  begin(): TracedTransaction;
}

/**
 * Told, after each commit, what the transaction wrote to the history and to the participants, and the supervision
 * due times (`control.dueAt`) it wrote on running operations.
 */
export interface CommitObserver {
  committed(events: readonly CommittedEvent[], replicas: readonly ReplicaChange[], dueTimes: readonly number[]): void;
}

/**
 * The UnitOfWork the runtime's services use: the store's own, watched. The history (acm_event) is where the engine
 * records every order, phase, element result, resend and timeout, so logs and metrics read them there, after the
 * commit (a rolled-back transaction reports nothing), and the engine itself knows nothing of logging or metrics.
 */
export class ObservedUnitOfWork extends UnitOfWork {
  /**
   * `traces` (tracing on): each transaction's operation and phase spans start from what it wrote, and its outbox
   * rows, held back to the end of its work, are written with the trace context they leave with.
   */
  constructor(
    private readonly inner: UnitOfWork,
    private readonly observers: readonly CommitObserver[],
    private readonly traces: TransactionTracer | null = null,
  ) {
    super();
  }

  override async transaction<T>(work: (store: Store) => Promise<T>): Promise<T> {
    const watch = new TransactionWatch(this.traces !== null);
    let traced: TracedTransaction | null = null;
    let result: T;
    try {
      result = await this.inner.transaction(async (store) => {
        const done = await work(watch.wrap(store));
        if (this.traces !== null) {
          traced = this.traces.begin();
          await watch.writeHeldOutbox(store, (records) => traced!.stamp(watch.changes().events, records));
        }
        return done;
      });
    } catch (error) {
      (traced as TracedTransaction | null)?.settle(false);
      throw error;
    }
    (traced as TracedTransaction | null)?.settle(true);
    const { events, replicas, dueTimes } = watch.changes();
    if (events.length > 0 || replicas.length > 0 || dueTimes.length > 0) {
      for (const observer of this.observers) {
        observer.committed(events, replicas, dueTimes);
      }
    }
    return result;
  }

  override read<T>(work: (store: Store) => Promise<T>): Promise<T> {
    return this.inner.read(work);
  }

  override ping(): Promise<void> {
    return this.inner.ping();
  }
}

type Method<R, K extends keyof R> = R[K] extends (...args: infer A) => infer P ? (...args: A) => P : never;

/** A view of `repository` whose listed methods are replaced; the others are the repository's own. */
function intercept<R extends object>(repository: R, overrides: { [K in keyof R]?: Method<R, K> }): R {
  return new Proxy(repository, {
    get(target, property, receiver) {
      const override = (overrides as Record<PropertyKey, unknown>)[property];
      if (override !== undefined) {
        return override;
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** What one transaction wrote that the observers care about, and what it read to give it context. */
class TransactionWatch {
  private readonly events: OperationEvent[] = [];
  private readonly compositionOfInstance = new Map<string, string>();
  private readonly elementNamesOfInstance = new Map<string, Map<string, string>>();
  private readonly operationsSeen = new Map<string, CommittedOperation>();
  private readonly definitions = new Set<string>();
  private readonly replicaStates = new Map<string, ParticipantState>();
  private readonly replicaChanges: ReplicaChange[] = [];
  private readonly heldOutbox: OutboxRecord[] = [];
  private readonly dueTimes: number[] = [];

  /** `holdOutbox`: outbox rows are written at the end of the work (`writeHeldOutbox`), once their trace is known. */
  constructor(private readonly holdOutbox: boolean = false) {}

  /** Writes the rows held back, as `stamp` returns them; stamp is called even with none (spans start from events). */
  async writeHeldOutbox(store: Store, stamp: (records: readonly OutboxRecord[]) => OutboxRecord[]): Promise<void> {
    const records = stamp(this.heldOutbox.splice(0));
    if (records.length > 0) {
      await store.outbox.add(records);
    }
  }

  wrap(store: Store): Store {
    return {
      ...store,
      ...(this.holdOutbox
        ? {
            outbox: intercept<OutboxRepository>(store.outbox, {
              add: (records) => {
                this.heldOutbox.push(...records);
                return Promise.resolve();
              },
            }),
          }
        : {}),
      definitions: this.definitionsOf(store.definitions),
      instances: this.instancesOf(store.instances),
      participants: this.participantsOf(store.participants),
      operations: this.operationsOf(store.operations),
      events: intercept<EventRepository>(store.events, {
        append: async (events) => {
          await store.events.append(events);
          this.events.push(...events);
        },
      }),
      // The set write and read of operation sessions (orders, ACK batches) carry what the single calls above would.
      saveAll: async (writes) => {
        if (this.holdOutbox) {
          this.heldOutbox.push(...writes.outbox);
        }
        await store.saveAll(this.holdOutbox ? { ...writes, outbox: [] } : writes);
        writes.operations.forEach(({ operation }) => this.rememberDue(operation));
        for (const { instance } of writes.instances) {
          this.rememberInstance(instance);
        }
        this.events.push(...writes.events);
      },
      readContext: async (query) => {
        const context = await store.readContext(query);
        context.definitions.forEach((definition) => this.definitions.add(definition.value.compositionId));
        context.participants?.forEach((participant) => this.rememberReplicas(participant));
        return context;
      },
    };
  }

  private rememberReplicas(participant: Participant | null): Participant | null {
    for (const replica of Object.values(participant?.replicas ?? {})) {
      this.replicaStates.set(replica.replicaId, replica.participantState);
    }
    return participant;
  }

  private rememberInstance(instance: AutomationComposition): void {
    this.compositionOfInstance.set(instance.instanceId, instance.compositionId);
    this.elementNamesOfInstance.set(
      instance.instanceId,
      new Map(Object.values(instance.elements).map((element) => [element.id, element.definition.name])),
    );
  }

  private rememberDue(operation: Operation): void {
    this.operationsSeen.set(operation.operationId, { order: operation.order, startedAt: operation.startedAt });
    if (operation.state === 'RUNNING' && operation.control.dueAt !== null) {
      this.dueTimes.push(operation.control.dueAt);
    }
  }

  private operationsOf(repository: OperationRepository): OperationRepository {
    return intercept<OperationRepository>(repository, {
      insert: async (operation) => {
        await repository.insert(operation);
        this.rememberDue(operation);
      },
      update: async (operation) => {
        await repository.update(operation);
        this.rememberDue(operation);
      },
      saveMany: async (operations) => {
        await repository.saveMany(operations);
        operations.forEach(({ operation }) => this.rememberDue(operation));
      },
    });
  }

  changes(): { events: CommittedEvent[]; replicas: ReplicaChange[]; dueTimes: number[] } {
    const events = this.events.map((event): CommittedEvent => {
      const composition = this.compositionOfInstance.get(event.subjectId);
      const operation = event.operationId === null ? undefined : this.operationsSeen.get(event.operationId);
      const elementNames = this.elementNamesOfInstance.get(event.subjectId);
      const context = { ...(operation ? { operation } : {}), ...(elementNames ? { elementNames } : {}) };
      if (composition !== undefined) {
        return { ...event, ...context, compositionId: composition, instanceId: event.subjectId };
      }
      return {
        ...event,
        ...context,
        compositionId: this.definitions.has(event.subjectId) ? event.subjectId : null,
        instanceId: null,
      };
    });
    return { events, replicas: this.replicaChanges, dueTimes: this.dueTimes };
  }

  private definitionsOf(repository: DefinitionRepository): DefinitionRepository {
    const seen = <T extends { value: { compositionId: string } } | null>(found: T): T => {
      if (found !== null) {
        this.definitions.add(found.value.compositionId);
      }
      return found;
    };
    return intercept<DefinitionRepository>(repository, {
      find: async (id) => seen(await repository.find(id)),
      findForUpdate: async (id) => seen(await repository.findForUpdate(id)),
      insert: async (definition) => {
        await repository.insert(definition);
        this.definitions.add(definition.compositionId);
      },
    });
  }

  private instancesOf(repository: InstanceRepository): InstanceRepository {
    const seen = <T extends { value: AutomationComposition } | null>(found: T): T => {
      if (found !== null) {
        this.rememberInstance(found.value);
      }
      return found;
    };
    return intercept<InstanceRepository>(repository, {
      find: async (id) => seen(await repository.find(id)),
      findForUpdate: async (id) => seen(await repository.findForUpdate(id)),
      // An operation session loads and writes its instances through these (BufferedSession).
      findManyForUpdate: async (ids) => {
        const found = await repository.findManyForUpdate(ids);
        found.forEach((instance) => seen(instance));
        return found;
      },
      insert: async (instance) => {
        await repository.insert(instance);
        this.rememberInstance(instance);
      },
      update: async (instance, expectedVersion) => {
        await repository.update(instance, expectedVersion);
        this.rememberInstance(instance);
      },
      updateMany: async (updates) => {
        await repository.updateMany(updates);
        for (const { instance } of updates) {
          this.rememberInstance(instance);
        }
      },
    });
  }

  private participantsOf(repository: ParticipantRepository): ParticipantRepository {
    const remember = (participant: Participant | null): Participant | null => this.rememberReplicas(participant);
    return intercept<ParticipantRepository>(repository, {
      find: async (id) => remember(await repository.find(id)),
      list: async () => {
        const participants = await repository.list();
        participants.forEach(remember);
        return participants;
      },
      save: async (participant) => {
        await repository.save(participant);
        for (const replica of Object.values(participant.replicas)) {
          const before = this.replicaStates.get(replica.replicaId) ?? null;
          if (before !== replica.participantState) {
            this.replicaChanges.push({
              participantId: participant.participantId,
              replicaId: replica.replicaId,
              from: before,
              to: replica.participantState,
            });
            this.replicaStates.set(replica.replicaId, replica.participantState);
          }
        }
      },
      deleteReplica: async (participantId, replicaId) => {
        await repository.deleteReplica(participantId, replicaId);
        this.replicaChanges.push({
          participantId,
          replicaId,
          from: this.replicaStates.get(replicaId) ?? null,
          to: 'DEREGISTERED',
        });
      },
      markSilentReplicasOffline: async (cutoff) => {
        const participantIds = await repository.markSilentReplicasOffline(cutoff);
        for (const participantId of participantIds) {
          this.replicaChanges.push({ participantId, replicaId: null, from: 'ON_LINE', to: 'OFF_LINE' });
        }
        return participantIds;
      },
    });
  }
}
