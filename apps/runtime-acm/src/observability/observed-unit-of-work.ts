import type {
  InstanceRepository,
  DefinitionRepository,
  EventRepository,
  OperationEvent,
  Participant,
  ParticipantRepository,
  ParticipantState,
  Store,
} from '@acm/domain';
import { UnitOfWork } from '@acm/domain';

/** A history event as it committed, with the composition and instance it concerns when the transaction knew them. */
export interface CommittedEvent extends OperationEvent {
  readonly compositionId: string | null;
  readonly instanceId: string | null;
}

/** A participant replica whose state a committed transaction changed (REMOVED: the replica row went). */
export interface ReplicaChange {
  readonly participantId: string;
  readonly replicaId: string | null;
  readonly from: ParticipantState | null;
  readonly to: ParticipantState | 'REMOVED';
}

/** Told, after each commit, what the transaction wrote to the history and to the participants. */
export interface CommitObserver {
  committed(events: readonly CommittedEvent[], replicas: readonly ReplicaChange[]): void;
}

/**
 * The UnitOfWork the runtime's services use: the store's own, watched. The history (acm_event) is where the engine
 * records every order, phase, element result, resend and timeout, so logs and metrics read them there, after the
 * commit (a rolled-back transaction reports nothing), and the engine itself knows nothing of logging or metrics.
 */
export class ObservedUnitOfWork extends UnitOfWork {
  constructor(
    private readonly inner: UnitOfWork,
    private readonly observers: readonly CommitObserver[],
  ) {
    super();
  }

  override async transaction<T>(work: (store: Store) => Promise<T>): Promise<T> {
    const watch = new TransactionWatch();
    const result = await this.inner.transaction((store) => work(watch.wrap(store)));
    const { events, replicas } = watch.changes();
    if (events.length > 0 || replicas.length > 0) {
      for (const observer of this.observers) {
        observer.committed(events, replicas);
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
  private readonly definitions = new Set<string>();
  private readonly replicaStates = new Map<string, ParticipantState>();
  private readonly replicaChanges: ReplicaChange[] = [];

  wrap(store: Store): Store {
    return {
      ...store,
      definitions: this.definitionsOf(store.definitions),
      instances: this.instancesOf(store.instances),
      participants: this.participantsOf(store.participants),
      events: intercept<EventRepository>(store.events, {
        append: async (events) => {
          await store.events.append(events);
          this.events.push(...events);
        },
      }),
    };
  }

  changes(): { events: CommittedEvent[]; replicas: ReplicaChange[] } {
    const events = this.events.map((event): CommittedEvent => {
      const composition = this.compositionOfInstance.get(event.subjectId);
      if (composition !== undefined) {
        return { ...event, compositionId: composition, instanceId: event.subjectId };
      }
      return {
        ...event,
        compositionId: this.definitions.has(event.subjectId) ? event.subjectId : null,
        instanceId: null,
      };
    });
    return { events, replicas: this.replicaChanges };
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
    const seen = <T extends { value: { instanceId: string; compositionId: string } } | null>(found: T): T => {
      if (found !== null) {
        this.compositionOfInstance.set(found.value.instanceId, found.value.compositionId);
      }
      return found;
    };
    return intercept<InstanceRepository>(repository, {
      find: async (id) => seen(await repository.find(id)),
      findForUpdate: async (id) => seen(await repository.findForUpdate(id)),
      // A batch of participant messages loads and writes its instances through these (BatchStore).
      findManyForUpdate: async (ids) => {
        const found = await repository.findManyForUpdate(ids);
        found.forEach((instance) => seen(instance));
        return found;
      },
      insert: async (instance) => {
        await repository.insert(instance);
        this.compositionOfInstance.set(instance.instanceId, instance.compositionId);
      },
      update: async (instance, expectedVersion) => {
        await repository.update(instance, expectedVersion);
        this.compositionOfInstance.set(instance.instanceId, instance.compositionId);
      },
      updateMany: async (updates) => {
        await repository.updateMany(updates);
        for (const { instance } of updates) {
          this.compositionOfInstance.set(instance.instanceId, instance.compositionId);
        }
      },
    });
  }

  private participantsOf(repository: ParticipantRepository): ParticipantRepository {
    const remember = (participant: Participant | null): Participant | null => {
      for (const replica of Object.values(participant?.replicas ?? {})) {
        this.replicaStates.set(replica.replicaId, replica.participantState);
      }
      return participant;
    };
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
          to: 'REMOVED',
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
