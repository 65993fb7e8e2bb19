import { randomUUID } from 'node:crypto';

import { UnitOfWork, freshControl } from '@acm/domain';
import type { AutomationComposition, DomainError, InstanceOperation, SessionKeys, Store } from '@acm/domain';

import { definitionOf, elementOf, instanceOf } from '../testing/builders';
import { InMemoryUnitOfWork } from '../testing/in-memory-store';
import { describeStoreContract } from '../testing/store.contract';
import { BufferedSession } from './buffered-session';

/** Every transaction through a session's store, flushed before the commit: the store contract must still hold. */
class SessionUnitOfWork extends UnitOfWork {
  constructor(
    private readonly inner: UnitOfWork,
    private readonly keys: SessionKeys = { instanceIds: [], messageIds: [] },
  ) {
    super();
  }

  override transaction<T>(work: (store: Store) => Promise<T>): Promise<T> {
    return this.inner.transaction(async (store) => {
      const batch = await BufferedSession.open(store, this.keys);
      const result = await work(batch);
      await batch.flush();
      return result;
    });
  }

  override read<T>(work: (store: Store) => Promise<T>): Promise<T> {
    return this.inner.read(work);
  }

  override ping(): Promise<void> {
    return this.inner.ping();
  }
}

describeStoreContract('BufferedSession over InMemoryUnitOfWork', () => {
  const unitOfWork = new InMemoryUnitOfWork();
  return Promise.resolve({
    unitOfWork: new SessionUnitOfWork(unitOfWork),
    queuedOutbox: () => Promise.resolve(unitOfWork.queuedRecords()),
    close: () => Promise.resolve(),
  });
});

describe('BufferedSession', () => {
  const COMPOSITION = randomUUID();
  const PARTICIPANT = randomUUID();

  async function stored(): Promise<{ unitOfWork: InMemoryUnitOfWork; instance: AutomationComposition }> {
    const unitOfWork = new InMemoryUnitOfWork();
    const element = elementOf(PARTICIPANT, { definition: { name: 'e', version: '1.0.0' }, properties: {} });
    const instance = instanceOf(COMPOSITION, [element]);
    await unitOfWork.transaction(async (store) => {
      await store.definitions.insert(
        definitionOf({ compositionId: COMPOSITION, name: 'd', serviceTemplate: {}, state: 'PRIMED' }),
      );
      await store.instances.insert(instance);
    });
    return { unitOfWork, instance };
  }

  function operationOf(targetId: string, order: InstanceOperation['order']): InstanceOperation {
    return {
      operationId: randomUUID(),
      targetKind: 'INSTANCE',
      targetId,
      order,
      state: 'RUNNING',
      timedOut: false,
      phase: 0,
      startedAt: 1_764_000_000_000,
      deadlineAt: 4_000_000_000_000,
      finishedAt: null,
      control: freshControl(1_764_000_000_000),
    };
  }

  it('answers reads from what it wrote, writes nothing before flush, and refuses a stale version', async () => {
    const { unitOfWork, instance } = await stored();
    await unitOfWork.transaction(async (store) => {
      const batch = await BufferedSession.open(store, { instanceIds: [instance.instanceId], messageIds: [] });
      const found = await batch.instances.findForUpdate(instance.instanceId);
      await batch.instances.update({ ...found!.value, phase: 0 }, found!.version);
      const again = await batch.instances.findForUpdate(instance.instanceId);
      expect(again).toEqual({ value: { ...instance, phase: 0 }, version: 2 });
      await expect(batch.instances.update(instance, 1)).rejects.toEqual(
        expect.objectContaining({ code: 'CONCURRENT_MODIFICATION' }) as DomainError,
      );
      await batch.instances.update({ ...again!.value, phase: 1 }, again!.version);
      // The transaction's own store has not seen a write yet.
      expect((await store.instances.find(instance.instanceId))?.version).toBe(1);
      await batch.flush();
      expect(await store.instances.find(instance.instanceId)).toEqual({ value: { ...instance, phase: 1 }, version: 3 });
    });
  });

  it('keeps the running operation and the answered message current within the batch', async () => {
    const { unitOfWork, instance } = await stored();
    const first = operationOf(instance.instanceId, 'DEPLOY');
    const messageId = randomUUID();
    await unitOfWork.transaction(async (store) => {
      await store.operations.insert(first);
      await store.operations.recordMessage(messageId, first.operationId, 0);
    });
    const second = operationOf(instance.instanceId, 'UNDEPLOY');
    const newMessage = randomUUID();
    await unitOfWork.transaction(async (store) => {
      const batch = await BufferedSession.open(store, { instanceIds: [instance.instanceId], messageIds: [messageId] });
      expect(await batch.operations.findRunning(instance.instanceId)).toEqual(first);
      const superseded: InstanceOperation = { ...first, state: 'SUPERSEDED', finishedAt: 1_764_000_001_000 };
      await batch.operations.update(superseded);
      await batch.operations.insert(second);
      await batch.operations.recordMessage(newMessage, second.operationId, 0, [randomUUID()]);
      expect(await batch.operations.findRunning(instance.instanceId)).toEqual(second);
      expect(await batch.operations.findByMessage(messageId)).toEqual({ operation: superseded, phase: 0 });
      expect(await batch.operations.findByMessage(newMessage)).toEqual({ operation: second, phase: 0 });
      // A read it does not answer itself goes to the store after a flush, so it sees the collected writes.
      expect((await batch.operations.phaseMessages(second.operationId, 0)).map((m) => m.messageId)).toEqual([
        newMessage,
      ]);
    });
    await unitOfWork.read(async (store) => {
      expect(await store.operations.findRunning(instance.instanceId)).toEqual(second);
      expect((await store.operations.find(first.operationId))?.state).toBe('SUPERSEDED');
    });
  });

  it('deletes a loaded instance after writing what came before; it is then gone for the batch', async () => {
    const { unitOfWork, instance } = await stored();
    await unitOfWork.transaction(async (store) => {
      const batch = await BufferedSession.open(store, { instanceIds: [instance.instanceId], messageIds: [] });
      await batch.instances.update({ ...instance, phase: 3 }, 1);
      await batch.instances.delete(instance.instanceId, 2);
      expect(await batch.instances.findForUpdate(instance.instanceId)).toBeNull();
      await batch.flush();
    });
    expect(await unitOfWork.read((store) => store.instances.find(instance.instanceId))).toBeNull();
  });

  it('answers the participants from the read up front until a participant is written', async () => {
    const { unitOfWork, instance } = await stored();
    await unitOfWork.transaction(async (store) => {
      await store.participants.save({ participantId: PARTICIPANT, participantSupportedElementTypes: {}, replicas: {} });
    });
    await unitOfWork.transaction(async (store) => {
      const list = jest.spyOn(store.participants, 'list');
      const batch = await BufferedSession.open(store, {
        instanceIds: [instance.instanceId],
        messageIds: [],
        participants: true,
      });
      const first = await batch.participants.list();
      expect(await batch.participants.list()).toBe(first);
      expect(first.map((participant) => participant.participantId)).toEqual([PARTICIPANT]);
      expect(list).toHaveBeenCalledTimes(1);
      await batch.participants.touchReplica(PARTICIPANT, randomUUID(), 1_764_000_000_001);
      await batch.participants.list();
      expect(list).toHaveBeenCalledTimes(2);
    });
  });

  it('over instances the caller loaded: reads nothing, collects the writes of saveAll and flushes them', async () => {
    const { unitOfWork, instance } = await stored();
    const operation = operationOf(instance.instanceId, 'DEPLOY');
    await unitOfWork.transaction(async (store) => {
      const found = await store.instances.findForUpdate(instance.instanceId);
      const batch = BufferedSession.over(store, [found!]);
      const lock = jest.spyOn(store.instances, 'findForUpdate');
      expect(await batch.instances.findForUpdate(instance.instanceId)).toEqual(found);
      expect(lock).not.toHaveBeenCalled();
      await batch.saveAll({
        instances: [{ instance: { ...instance, deployState: 'DEPLOYING' }, expectedVersion: 1 }],
        operations: [{ operation, isNew: true }],
        messages: [],
        answers: [],
        outbox: [],
        events: [
          {
            subjectId: instance.instanceId,
            operationId: operation.operationId,
            event: 'ORDERED',
            detail: { order: 'DEPLOY' },
            actor: { kind: 'request', user: 'runtimeUser', requestId: 'r-1' },
            at: 1,
          },
        ],
      });
      expect(await store.operations.findRunning(instance.instanceId)).toBeNull();
      await batch.flush();
      expect(await store.operations.findRunning(instance.instanceId)).toEqual(operation);
    });
    await unitOfWork.read(async (store) => {
      expect(await store.instances.find(instance.instanceId)).toEqual({
        value: { ...instance, deployState: 'DEPLOYING' },
        version: 2,
      });
      expect((await store.events.list(instance.instanceId, 5)).map((event) => event.event)).toEqual(['ORDERED']);
    });
  });

  it('reads each definition once per batch', async () => {
    const { unitOfWork, instance } = await stored();
    await unitOfWork.transaction(async (store) => {
      const find = jest.spyOn(store.definitions, 'find');
      const batch = await BufferedSession.open(store, { instanceIds: [instance.instanceId], messageIds: [] });
      await batch.definitions.find(COMPOSITION);
      await batch.definitions.find(COMPOSITION);
      expect(find).toHaveBeenCalledTimes(1);
    });
  });
});
