import type { Operation, OperationEvent, OutboxRecord, Participant, Store } from '@acm/domain';
import { UnitOfWork, freshControl } from '@acm/domain';
import type { CommittedEvent, ReplicaChange } from './observed-unit-of-work';
import { ObservedUnitOfWork } from './observed-unit-of-work';

/** An instance with one element, named after the instance, which is all the watch reads of it. */
const instanceOf = (id: string) => ({
  instanceId: id,
  compositionId: `c-of-${id}`,
  elements: { [`e-of-${id}`]: { id: `e-of-${id}`, definition: { name: `Element.of.${id}`, version: '1.0.0' } } },
});

/** Just the repository methods the watch wraps; the rest of a store is not needed here. */
function fakeStore(): Store {
  const participants = new Map<string, Participant>();
  return {
    definitions: {
      find: (id: string) => Promise.resolve({ value: { compositionId: id }, version: 1 }),
    },
    instances: {
      findForUpdate: (id: string) => Promise.resolve({ value: instanceOf(id), version: 1 }),
      findManyForUpdate: (ids: string[]) =>
        Promise.resolve(new Map(ids.map((id) => [id, { value: instanceOf(id), version: 1 }]))),
    },
    participants: {
      find: (id: string) => Promise.resolve(participants.get(id) ?? null),
      save: (participant: Participant) => {
        participants.set(participant.participantId, structuredClone(participant));
        return Promise.resolve();
      },
      deleteReplica: (participantId: string, replicaId: string) => {
        delete participants.get(participantId)?.replicas[replicaId];
        return Promise.resolve();
      },
    },
    operations: {
      insert: () => Promise.resolve(),
      update: () => Promise.resolve(),
      saveMany: () => Promise.resolve(),
    },
    events: { append: () => Promise.resolve() },
    saveAll: () => Promise.resolve(),
    readContext: () =>
      Promise.resolve({
        running: new Map(),
        definitions: new Map([['c-9', { value: { compositionId: 'c-9' }, version: 1 }]]),
        answered: new Map(),
        participants: null,
      }),
  } as unknown as Store;
}

class FakeUnitOfWork extends UnitOfWork {
  readonly store = fakeStore();
  override transaction<T>(work: (store: Store) => Promise<T>): Promise<T> {
    return work(this.store);
  }
  override read<T>(work: (store: Store) => Promise<T>): Promise<T> {
    return work(this.store);
  }
  override ping(): Promise<void> {
    return Promise.resolve();
  }
}

function observed(): { unitOfWork: ObservedUnitOfWork; seen: Array<[CommittedEvent[], ReplicaChange[]]> } {
  const seen: Array<[CommittedEvent[], ReplicaChange[]]> = [];
  const unitOfWork = new ObservedUnitOfWork(new FakeUnitOfWork(), [
    { committed: (events, replicas) => seen.push([[...events], [...replicas]]) },
  ]);
  return { unitOfWork, seen };
}

/** The observer passes events on whatever their kind: these carry no detail of their kind. */
const event = (subjectId: string, name: string): OperationEvent =>
  ({
    subjectId,
    operationId: 'o-1',
    event: name,
    detail: {},
    actor: { kind: 'runtime', rule: 'timeout' },
    at: 1,
  }) as unknown as OperationEvent;

describe(ObservedUnitOfWork.name, () => {
  it('reports committed events with the composition and instance the transaction read', async () => {
    const { unitOfWork, seen } = observed();
    await unitOfWork.transaction(async (store) => {
      await store.instances.findForUpdate('i-1');
      await store.definitions.find('c-2');
      await store.events.append([event('i-1', 'ORDERED'), event('c-2', 'COMPLETED'), event('x', 'OTHER')]);
    });
    expect(seen).toEqual([
      [
        [
          expect.objectContaining({ event: 'ORDERED', instanceId: 'i-1', compositionId: 'c-of-i-1' }),
          expect.objectContaining({ event: 'COMPLETED', instanceId: null, compositionId: 'c-2' }),
          expect.objectContaining({ event: 'OTHER', instanceId: null, compositionId: null }),
        ],
        [],
      ],
    ]);
  });

  it('reports the events of a saveAll, with the instances it wrote and the definitions readContext read', async () => {
    const { unitOfWork, seen } = observed();
    await unitOfWork.transaction(async (store) => {
      await store.readContext({ runningOf: [], definitions: ['c-9'], messages: [], participants: false });
      await store.saveAll({
        instances: [
          { instance: { instanceId: 'i-7', compositionId: 'c-7', elements: {} } as never, expectedVersion: 1 },
        ],
        operations: [],
        messages: [],
        answers: [],
        outbox: [],
        events: [event('i-7', 'ORDERED'), event('c-9', 'PRIMED')],
      });
    });
    expect(seen).toEqual([
      [
        [
          expect.objectContaining({ event: 'ORDERED', instanceId: 'i-7', compositionId: 'c-7' }),
          expect.objectContaining({ event: 'PRIMED', instanceId: null, compositionId: 'c-9' }),
        ],
        [],
      ],
    ]);
  });

  it('with tracing, holds the outbox rows of a saveAll back and writes them stamped at the end of the work', async () => {
    const inner = new FakeUnitOfWork();
    const saved: unknown[] = [];
    const added: unknown[] = [];
    Object.assign(inner.store, {
      saveAll: (writes: unknown) => {
        saved.push(writes);
        return Promise.resolve();
      },
      outbox: {
        add: (records: unknown[]) => {
          added.push(...records);
          return Promise.resolve();
        },
      },
    });
    const tracer = {
      begin: () => ({
        stamp: (_events: unknown, records: readonly OutboxRecord[]) =>
          records.map((record) => ({ ...record, headers: { traceparent: 't' } })),
        settle: () => undefined,
      }),
    };
    const unitOfWork = new ObservedUnitOfWork(inner, [], tracer);
    const record = { topic: 'x', key: null, value: 'v' };
    await unitOfWork.transaction((store) =>
      store.saveAll({ instances: [], operations: [], messages: [], answers: [], outbox: [record], events: [] }),
    );
    expect(saved).toEqual([expect.objectContaining({ outbox: [] })]);
    expect(added).toEqual([{ ...record, headers: { traceparent: 't' } }]);
  });

  it('reports the due times a transaction wrote on running operations, by every write path', async () => {
    const dueTimes: number[][] = [];
    const unitOfWork = new ObservedUnitOfWork(new FakeUnitOfWork(), [
      { committed: (_events, _replicas, due) => dueTimes.push([...due]) },
    ]);
    const operation = (dueAt: number | null, state: Operation['state'] = 'RUNNING'): Operation => ({
      operationId: 'o-1',
      targetKind: 'INSTANCE',
      targetId: 'i-1',
      order: 'DEPLOY',
      state,
      timedOut: false,
      phase: 0,
      startedAt: 1,
      deadlineAt: 100,
      finishedAt: null,
      control: { ...freshControl(1), dueAt },
    });
    await unitOfWork.transaction(async (store) => {
      await store.operations.insert(operation(30));
      await store.operations.update(operation(20));
      await store.operations.saveMany([{ operation: operation(40), isNew: false }]);
      await store.saveAll({
        instances: [],
        operations: [
          { operation: operation(10), isNew: false },
          { operation: operation(5, 'COMPLETED'), isNew: false },
          { operation: operation(null), isNew: false },
        ],
        messages: [],
        answers: [],
        outbox: [],
        events: [],
      });
    });
    // A transaction that wrote no due time tells nothing, even with an event.
    await unitOfWork.transaction((store) => store.events.append([event('i-1', 'ORDERED')]));
    expect(dueTimes).toEqual([[30, 20, 40, 10], []]);
  });

  it('knows the instances a batch loaded together', async () => {
    const { unitOfWork, seen } = observed();
    await unitOfWork.transaction(async (store) => {
      await store.instances.findManyForUpdate(['i-1', 'i-2']);
      await store.events.append([event('i-2', 'ELEMENT_RESULT')]);
    });
    expect(seen[0]?.[0]).toEqual([
      expect.objectContaining({ event: 'ELEMENT_RESULT', instanceId: 'i-2', compositionId: 'c-of-i-2' }),
    ]);
  });

  it('reports nothing for a transaction that failed, or one that wrote no event', async () => {
    const { unitOfWork, seen } = observed();
    await expect(
      unitOfWork.transaction(async (store) => {
        await store.events.append([event('i-1', 'ORDERED')]);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await unitOfWork.transaction(async (store) => store.instances.findForUpdate('i-1'));
    expect(seen).toEqual([]);
  });

  it('reports a replica whose state a save changed, and not one it left as it was', async () => {
    const { unitOfWork, seen } = observed();
    const participant = (state: 'ON_LINE' | 'OFF_LINE'): Participant => ({
      participantId: 'p-1',
      participantSupportedElementTypes: {},
      replicas: { 'r-1': { replicaId: 'r-1', participantState: state, lastMsg: 0 } },
    });
    const save = (state: 'ON_LINE' | 'OFF_LINE') =>
      unitOfWork.transaction(async (store) => {
        await store.participants.find('p-1');
        await store.participants.save(participant(state));
      });
    await save('ON_LINE');
    await save('ON_LINE');
    await save('OFF_LINE');
    expect(seen.map(([, replicas]) => replicas)).toEqual([
      [{ participantId: 'p-1', replicaId: 'r-1', from: null, to: 'ON_LINE' }],
      [{ participantId: 'p-1', replicaId: 'r-1', from: 'ON_LINE', to: 'OFF_LINE' }],
    ]);
  });

  it("gives each event its operation's order and start, and the names of its instance's elements", async () => {
    const { unitOfWork, seen } = observed();
    await unitOfWork.transaction(async (store) => {
      await store.instances.findForUpdate('i-1');
      await store.operations.update({
        operationId: 'o-1',
        targetId: 'i-1',
        targetKind: 'INSTANCE',
        order: 'DEPLOY',
        state: 'COMPLETED',
        timedOut: false,
        startedAt: 100,
        deadlineAt: 1000,
        finishedAt: 900,
        control: freshControl(100),
        phase: null,
      });
      await store.events.append([event('i-1', 'COMPLETED')]);
    });
    const [committed] = seen[0]?.[0] ?? [];
    expect(committed?.operation).toEqual({ order: 'DEPLOY', startedAt: 100 });
    expect(Object.fromEntries(committed?.elementNames ?? [])).toEqual({ 'e-of-i-1': 'Element.of.i-1' });
  });

  it('reports a replica that deregistered as ON_LINE -> DEREGISTERED', async () => {
    const { unitOfWork, seen } = observed();
    await unitOfWork.transaction(async (store) => {
      await store.participants.save({
        participantId: 'p-1',
        participantSupportedElementTypes: {},
        replicas: { 'r-1': { replicaId: 'r-1', participantState: 'ON_LINE', lastMsg: 0 } },
      });
    });
    await unitOfWork.transaction(async (store) => {
      await store.participants.find('p-1');
      await store.participants.deleteReplica('p-1', 'r-1');
    });
    expect(seen.at(-1)?.[1]).toEqual([{ participantId: 'p-1', replicaId: 'r-1', from: 'ON_LINE', to: 'DEREGISTERED' }]);
  });
});
