import type {
  AutomationComposition,
  CompositionDefinition,
  ContextQuery,
  DefinitionRepository,
  ElementInfoUpdate,
  EventRepository,
  InstanceRepository,
  InstanceUpdate,
  RecordedMessage,
  MessageAnswer,
  MessageRecord,
  Operation,
  OperationEvent,
  OperationRepository,
  OutboxRecord,
  OperationSession,
  OutboxRepository,
  Participant,
  PhaseMessageRecord,
  RollbackSnapshot,
  SessionKeys,
  SessionRecords,
  ParticipantRepository,
  RollbackRepository,
  Store,
  StoreContext,
  StoreWrites,
  StoredEvent,
  Versioned,
} from '@acm/domain';
import { DomainError, elementWithInfo, saveWritesOneByOne } from '@acm/domain';

interface BufferedInstance {
  value: AutomationComposition;
  version: number;
  /** The version the database holds (as loaded, or as the last flush left it). */
  stored: number;
  /** Element information applied to `value` since the last flush, to write on its own if no versioned write does. */
  infos: ElementInfoUpdate[];
}

/**
 * An operation session (the engine's port) over one transaction of any `Store`, and that store as the session sees
 * it (a decorator, for the application's own checks and writes beside the engine's). `open` locks and loads every
 * instance an order or a batch of ACKs touches, their running operations and the answered messages with a constant
 * number of statements; reads of those are then answered from memory (each write is seen by the next read, so a
 * second ACK of an instance sees the first one's result), and writes to instances, element information, operations,
 * message records and answers, outbox and history are collected and written by `flush` (the session's `commit`)
 * with one set statement per table.
 * Anything else is read or written through the underlying store after a flush, so it sees every earlier write.
 * Versions follow the store's rule: each update must name the version the previous one left, and the stored row
 * ends as many versions on as it had updates.
 */
export class BufferedSession implements Store, OperationSession {
  readonly definitions: DefinitionRepository;
  readonly instances: InstanceRepository;
  readonly participants: ParticipantRepository;
  readonly operations: OperationRepository;
  readonly rollbacks: RollbackRepository;
  readonly outbox: OutboxRepository;
  readonly events: EventRepository;

  /** Locked and loaded instances by id. */
  private readonly loaded = new Map<string, BufferedInstance>();
  /** Instances asked for up front that do not exist, or were deleted since. */
  private readonly absent = new Set<string>();
  /** The running operation of each target asked for up front (null: none). */
  private readonly runningOf = new Map<string, Operation | null>();
  /** Operations as last read or written, by id. */
  private readonly known = new Map<string, Operation>();
  /** Messages asked for up front or recorded since (null: unknown message). */
  private readonly messages = new Map<string, { operationId: string; phase: number | null } | null>();
  private readonly definitionCache = new Map<string, Versioned<CompositionDefinition> | null>();
  /** The participants as read up front; forgotten at the first write to participants. */
  private participantList: Participant[] | null = null;

  private pendingInfos: ElementInfoUpdate[] = [];
  private pendingOperations = new Map<string, { operation: Operation; isNew: boolean }>();
  private pendingMessages: MessageRecord[] = [];
  private pendingAnswers: MessageAnswer[] = [];
  private pendingOutbox: OutboxRecord[] = [];
  private pendingEvents: OperationEvent[] = [];

  private constructor(private readonly inner: Store) {
    this.definitions = this.definitionRepository();
    this.instances = this.instanceRepository();
    this.participants = this.participantRepository();
    this.operations = this.operationRepository();
    this.rollbacks = this.passThrough(inner.rollbacks);
    this.outbox = {
      add: (records) => {
        this.pendingOutbox.push(...records);
        return Promise.resolve();
      },
    };
    this.events = {
      append: (events) => {
        this.pendingEvents.push(...events);
        return Promise.resolve();
      },
      list: async (subjectId, limit) => {
        await this.flush();
        return inner.events.list(subjectId, limit);
      },
    };
  }

  /**
   * Locks and loads the instances (in id order), then reads, in one more statement, the answered messages, the
   * instances' running operations and their definitions (own and migration target), and the participants when
   * asked: two statements whatever the batch's size.
   */
  static async open(inner: Store, keys: SessionKeys): Promise<BufferedSession> {
    const store = new BufferedSession(inner);
    const instanceIds = [...new Set(keys.instanceIds)];
    if (instanceIds.length === 0 && keys.messageIds.length === 0 && keys.participants !== true) {
      // Nothing to lock or load up front (a supervision pass): every read goes to the store when asked.
      return store;
    }
    const found = await inner.instances.findManyForUpdate(instanceIds);
    for (const id of instanceIds) {
      const instance = found.get(id);
      if (instance === undefined) {
        store.absent.add(id);
      } else {
        store.loaded.set(id, { value: instance.value, version: instance.version, stored: instance.version, infos: [] });
      }
    }
    const messageIds = [...new Set(keys.messageIds)];
    const compositionIds = [...found.values()].flatMap(({ value }) =>
      value.compositionTargetId === null ? [value.compositionId] : [value.compositionId, value.compositionTargetId],
    );
    // Read under the instances' locks, so each running or answered operation is as the last commit left it.
    const context = await inner.readContext({
      runningOf: [...found.keys()],
      definitions: compositionIds,
      messages: messageIds,
      participants: keys.participants ?? false,
    });
    for (const id of messageIds) {
      const message = context.answered.get(id);
      store.messages.set(id, message ? { operationId: message.operation.operationId, phase: message.phase } : null);
      if (message) {
        store.known.set(message.operation.operationId, message.operation);
      }
    }
    for (const id of found.keys()) {
      const operation = context.running.get(id) ?? null;
      store.runningOf.set(id, operation);
      if (operation !== null) {
        store.known.set(operation.operationId, operation);
      }
    }
    for (const compositionId of compositionIds) {
      store.definitionCache.set(compositionId, context.definitions.get(compositionId) ?? null);
    }
    store.participantList = context.participants;
    return store;
  }

  /**
   * A session over instances the caller already locked and loaded in `inner`'s transaction (an order started
   * on a plain store): nothing is read, and the writes go out on `flush` as in any batch.
   */
  static over(inner: Store, instances: ReadonlyArray<Versioned<AutomationComposition>>): BufferedSession {
    const store = new BufferedSession(inner);
    for (const instance of instances) {
      store.loaded.set(instance.value.instanceId, {
        value: instance.value,
        version: instance.version,
        stored: instance.version,
        infos: [],
      });
    }
    return store;
  }

  lockInstance(instanceId: string): Promise<Versioned<AutomationComposition> | null> {
    return this.instances.findForUpdate(instanceId);
  }

  lockDefinition(compositionId: string): Promise<Versioned<CompositionDefinition> | null> {
    return this.definitions.findForUpdate(compositionId);
  }

  definition(compositionId: string): Promise<Versioned<CompositionDefinition> | null> {
    return this.definitions.find(compositionId);
  }

  running(targetId: string): Promise<Operation | null> {
    return this.operations.findRunning(targetId);
  }

  operation(operationId: string): Promise<Operation | null> {
    return this.operations.find(operationId);
  }

  answered(messageId: string): Promise<RecordedMessage | null> {
    return this.operations.findByMessage(messageId);
  }

  phaseMessages(operationId: string, phase: number | null): Promise<PhaseMessageRecord[]> {
    return this.operations.phaseMessages(operationId, phase);
  }

  history(subjectId: string, limit: number): Promise<StoredEvent[]> {
    return this.events.list(subjectId, limit);
  }

  rollback(instanceId: string): Promise<RollbackSnapshot | null> {
    return this.rollbacks.find(instanceId);
  }

  writeInstance(instance: AutomationComposition, expectedVersion: number): Promise<void> {
    return this.instances.update(instance, expectedVersion);
  }

  deleteInstance(instanceId: string, expectedVersion: number): Promise<void> {
    return this.instances.delete(instanceId, expectedVersion);
  }

  writeDefinition(definition: CompositionDefinition, expectedVersion: number): Promise<void> {
    return this.definitions.update(definition, expectedVersion);
  }

  saveOperations(operations: ReadonlyArray<{ readonly operation: Operation; readonly isNew: boolean }>): void {
    for (const { operation, isNew } of operations) {
      this.holdOperation(operation, isNew);
    }
  }

  record(records: SessionRecords): void {
    for (const message of records.messages ?? []) {
      this.holdMessage(message);
    }
    this.pendingAnswers.push(...(records.answers ?? []));
    this.pendingOutbox.push(...(records.outbox ?? []));
    this.pendingEvents.push(...(records.events ?? []));
  }

  commit(): Promise<void> {
    return this.flush();
  }

  /** Collected like the single writes; `flush` writes them. */
  saveAll(writes: StoreWrites): Promise<void> {
    return saveWritesOneByOne(this, writes);
  }

  async readContext(query: ContextQuery): Promise<StoreContext> {
    await this.flush();
    return this.inner.readContext(query);
  }

  /** Writes everything collected so far, one statement per table (none for a table with nothing to write). */
  async flush(): Promise<void> {
    const updates: InstanceUpdate[] = [];
    const infos = this.pendingInfos;
    for (const buffered of this.loaded.values()) {
      // A versioned write carries the element information applied in memory; otherwise it is written on its own.
      for (let version = buffered.stored; version < buffered.version; version += 1) {
        updates.push({ instance: buffered.value, expectedVersion: version });
      }
      if (buffered.version === buffered.stored) {
        infos.push(...buffered.infos);
      }
      buffered.stored = buffered.version;
      buffered.infos = [];
    }
    const operations = [...this.pendingOperations.values()];
    const messages = this.pendingMessages;
    const answers = this.pendingAnswers;
    const outbox = this.pendingOutbox;
    const events = this.pendingEvents;
    this.pendingInfos = [];
    this.pendingOperations = new Map();
    this.pendingMessages = [];
    this.pendingAnswers = [];
    this.pendingOutbox = [];
    this.pendingEvents = [];
    // The instance rows with their elements, operations, message records, answers, outbox and history: one statement.
    await this.inner.saveAll({ instances: updates, operations, messages, answers, outbox, events });
    if (infos.length > 0) {
      await this.inner.instances.updateElementInfos(infos);
    }
  }

  /** Every method of `repository`, each called after a flush so it sees (and follows) every collected write. */
  private passThrough<T extends object>(repository: T): T {
    const flushed = {} as Record<string, unknown>;
    let proto: object | null = repository;
    while (proto !== null && proto !== Object.prototype) {
      for (const name of Object.getOwnPropertyNames(proto)) {
        const member = (repository as Record<string, unknown>)[name];
        if (name !== 'constructor' && typeof member === 'function' && !(name in flushed)) {
          flushed[name] = async (...args: unknown[]): Promise<unknown> => {
            await this.flush();
            return (member as (...parameters: unknown[]) => unknown).apply(repository, args);
          };
        }
      }
      proto = Object.getPrototypeOf(proto) as object | null;
    }
    return flushed as T;
  }

  private participantRepository(): ParticipantRepository {
    const through = this.passThrough(this.inner.participants);
    // Any write to participants makes the list read up front stale for this transaction.
    const forget = (): void => {
      this.participantList = null;
    };
    return {
      ...through,
      // The list read up front, in the same transaction as the rest of the batch: the same answer a read at this
      // point could give, as the transaction holds no participant lock either way.
      list: () => (this.participantList !== null ? Promise.resolve(this.participantList) : through.list()),
      save: (participant) => {
        forget();
        return through.save(participant);
      },
      deleteReplica: (participantId, replicaId) => {
        forget();
        return through.deleteReplica(participantId, replicaId);
      },
      touchReplica: (participantId, replicaId, now) => {
        forget();
        return through.touchReplica(participantId, replicaId, now);
      },
      markSilentReplicasOffline: (cutoff) => {
        forget();
        return through.markSilentReplicasOffline(cutoff);
      },
    };
  }

  private definitionRepository(): DefinitionRepository {
    const inner = this.inner.definitions;
    const through = this.passThrough(inner);
    return {
      ...through,
      find: async (compositionId) => {
        const cached = this.definitionCache.get(compositionId);
        if (cached !== undefined) {
          return cached;
        }
        // Definitions are never written through this store's buffer, so reading one needs no flush.
        const found = await inner.find(compositionId);
        this.definitionCache.set(compositionId, found);
        return found;
      },
      findForUpdate: (compositionId) => {
        this.definitionCache.delete(compositionId);
        return through.findForUpdate(compositionId);
      },
      update: (definition, expectedVersion) => {
        this.definitionCache.delete(definition.compositionId);
        return through.update(definition, expectedVersion);
      },
      delete: (compositionId, expectedVersion) => {
        this.definitionCache.delete(compositionId);
        return through.delete(compositionId, expectedVersion);
      },
    };
  }

  private instanceRepository(): InstanceRepository {
    const through = this.passThrough(this.inner.instances);
    const repository: InstanceRepository = {
      ...through,
      find: (instanceId) => this.bufferedInstance(instanceId) ?? through.find(instanceId),
      findForUpdate: (instanceId) => this.bufferedInstance(instanceId) ?? through.findForUpdate(instanceId),
      findManyForUpdate: async (instanceIds) => {
        const found = new Map<string, Versioned<AutomationComposition>>();
        for (const id of [...new Set(instanceIds)].sort()) {
          const instance = await repository.findForUpdate(id);
          if (instance !== null) {
            found.set(id, instance);
          }
        }
        return found;
      },
      update: (instance, expectedVersion) => {
        const buffered = this.loaded.get(instance.instanceId);
        if (buffered === undefined) {
          return through.update(instance, expectedVersion);
        }
        if (buffered.version !== expectedVersion) {
          return Promise.reject(concurrentChange(instance.instanceId));
        }
        buffered.value = instance;
        buffered.version += 1;
        return Promise.resolve();
      },
      updateMany: async (updates) => {
        for (const { instance, expectedVersion } of updates) {
          await repository.update(instance, expectedVersion);
        }
      },
      updateElementInfo: (instanceId, elementId, participantId, info) => {
        this.applyInfo({ instanceId, elementId, participantId, info });
        return Promise.resolve();
      },
      updateElementInfos: (infos) => {
        infos.forEach((update) => this.applyInfo(update));
        return Promise.resolve();
      },
      delete: async (instanceId, expectedVersion) => {
        if (!this.loaded.has(instanceId)) {
          return through.delete(instanceId, expectedVersion);
        }
        await through.delete(instanceId, expectedVersion);
        this.loaded.delete(instanceId);
        this.absent.add(instanceId);
      },
    };
    return repository;
  }

  private bufferedInstance(instanceId: string): Promise<Versioned<AutomationComposition> | null> | null {
    const buffered = this.loaded.get(instanceId);
    if (buffered !== undefined) {
      return Promise.resolve({ value: buffered.value, version: buffered.version });
    }
    return this.absent.has(instanceId) ? Promise.resolve(null) : null;
  }

  /** As the store's `updateElementInfo`; on a loaded instance also in memory, so later reads and writes see it. */
  private applyInfo(update: ElementInfoUpdate): void {
    const buffered = this.loaded.get(update.instanceId);
    if (buffered === undefined) {
      if (!this.absent.has(update.instanceId)) {
        this.pendingInfos.push(update);
      }
      return;
    }
    const element = buffered.value.elements[update.elementId];
    const changed = element === undefined ? element : elementWithInfo(element, update.participantId, update.info);
    if (changed !== undefined && changed !== element) {
      buffered.value = { ...buffered.value, elements: { ...buffered.value.elements, [update.elementId]: changed } };
      buffered.infos.push(update);
    }
  }

  private operationRepository(): OperationRepository {
    const through = this.passThrough(this.inner.operations);
    const repository: OperationRepository = {
      ...through,
      insert: (operation) => {
        this.holdOperation(operation, true);
        return Promise.resolve();
      },
      update: (operation) => {
        this.holdOperation(operation, false);
        return Promise.resolve();
      },
      saveMany: async (operations) => {
        for (const { operation, isNew } of operations) {
          await (isNew ? repository.insert(operation) : repository.update(operation));
        }
      },
      find: (operationId) => {
        const operation = this.known.get(operationId);
        return operation !== undefined ? Promise.resolve(operation) : through.find(operationId);
      },
      findRunning: (targetId) => {
        const operation = this.runningOf.get(targetId);
        return operation !== undefined ? Promise.resolve(operation) : through.findRunning(targetId);
      },
      findManyRunning: async (targetIds) => {
        const found = new Map<string, Operation>();
        for (const id of new Set(targetIds)) {
          const operation = await repository.findRunning(id);
          if (operation !== null) {
            found.set(id, operation);
          }
        }
        return found;
      },
      recordMessage: (messageId, operationId, phase, elementIds = null) => {
        this.holdMessage({ messageId, operationId, phase, elementIds });
        return Promise.resolve();
      },
      recordMessages: async (messages) => {
        for (const { messageId, operationId, phase, elementIds } of messages) {
          await repository.recordMessage(messageId, operationId, phase, elementIds);
        }
      },
      findByMessage: (messageId) => {
        const message = this.messages.get(messageId);
        const operation = message ? this.known.get(message.operationId) : undefined;
        if (message === null) {
          return Promise.resolve(null);
        }
        return message !== undefined && operation !== undefined
          ? Promise.resolve({ operation, phase: message.phase })
          : through.findByMessage(messageId);
      },
      findManyByMessage: async (messageIds) => {
        const found = new Map<string, { operation: Operation; phase: number | null }>();
        for (const id of new Set(messageIds)) {
          const answered = await repository.findByMessage(id);
          if (answered !== null) {
            found.set(id, answered);
          }
        }
        return found;
      },
      recordAnswer: (messageId, participantId, replicaId) => {
        this.pendingAnswers.push({ messageId, participantId, replicaId });
        return Promise.resolve();
      },
      recordAnswers: (answers) => {
        this.pendingAnswers.push(...answers);
        return Promise.resolve();
      },
    };
    return repository;
  }

  /** An operation to write at the flush: inserted when new (an update of one not flushed yet inserts it still). */
  private holdOperation(operation: Operation, isNew: boolean): void {
    const held = isNew || (this.pendingOperations.get(operation.operationId)?.isNew ?? false);
    this.pendingOperations.set(operation.operationId, { operation, isNew: held });
    this.remember(operation);
  }

  private holdMessage(message: MessageRecord): void {
    this.pendingMessages.push(message);
    this.messages.set(message.messageId, { operationId: message.operationId, phase: message.phase });
  }

  /** Keeps an operation written through this store as the latest of its id and of its target's running one. */
  private remember(operation: Operation): void {
    this.known.set(operation.operationId, operation);
    const running = this.runningOf.get(operation.targetId);
    if (operation.state === 'RUNNING') {
      this.runningOf.set(operation.targetId, operation);
    } else if (running?.operationId === operation.operationId) {
      this.runningOf.set(operation.targetId, null);
    }
  }
}

function concurrentChange(instanceId: string): DomainError {
  return new DomainError(
    'CONCURRENT_MODIFICATION',
    `Automation composition ${instanceId} was changed by another request while this one was being applied; read it again and retry`,
    { id: instanceId },
  );
}
