import { definitionOf, operationOf, participantOf, token } from '../builders';
import { gate } from './contract-support';
import type { ContractContext } from './contract-support';

/**
 * The contract of `UnitOfWork`: transactions, isolation and row locks,
 * run against every adapter (see `describeStoreContract`).
 */
export function describeUnitOfWorkContract(context: ContractContext): void {
  const { it, inTransaction, read, storedInstance, queuedOutbox, unitOfWork } = context;

  describe('UnitOfWork', () => {
    it('answers ping', async () => {
      await expect(unitOfWork().ping()).resolves.toBeUndefined();
    });

    it('returns what the work returned and commits it; read sees it', async () => {
      const definition = definitionOf();
      const result = await inTransaction(async (store) => {
        await store.definitions.insert(definition);
        return 'done';
      });
      expect(result).toBe('done');
      expect(await read((store) => store.definitions.find(definition.compositionId))).toEqual({
        value: definition,
        version: 1,
      });
    });

    it('writes outside a transaction commit statement by statement', async () => {
      const definition = definitionOf();
      await read((store) => store.definitions.insert(definition));
      await read((store) => store.definitions.update({ ...definition, state: 'PRIMING' }, 1));
      expect(await inTransaction((store) => store.definitions.find(definition.compositionId))).toEqual({
        value: { ...definition, state: 'PRIMING' },
        version: 2,
      });
    });

    it('shows a transaction its own writes and nobody else until it commits (no dirty reads)', async () => {
      const definition = definitionOf();
      const written = gate();
      const checked = gate();
      const writer = inTransaction(async (store) => {
        await store.definitions.insert(definition);
        expect(await store.definitions.find(definition.compositionId)).toEqual({ value: definition, version: 1 });
        written.open();
        await checked.opened;
      });
      await written.opened;
      const seenBeforeCommit = await read((store) => store.definitions.find(definition.compositionId));
      checked.open();
      await writer;
      expect(seenBeforeCommit).toBeNull();
      expect(await read((store) => store.definitions.find(definition.compositionId))).not.toBeNull();
    });

    it('rolls back everything a failing transaction wrote, in every repository, and rethrows', async () => {
      const instance = await storedInstance();
      const participant = participantOf();
      const operation = operationOf(instance.instanceId);
      const topic = `t${token()}`;
      const failure = new Error('work failed half-way');
      await expect(
        inTransaction(async (store) => {
          const found = await store.instances.findForUpdate(instance.instanceId);
          await store.instances.update({ ...found!.value, deployState: 'DEPLOYING' }, found!.version);
          await store.definitions.insert(definitionOf({ compositionId: operation.operationId }));
          await store.participants.save(participant);
          await store.operations.insert(operation);
          await store.operations.recordMessage(operation.operationId, operation.operationId, 0);
          await store.rollbacks.save({
            instanceId: instance.instanceId,
            compositionId: instance.compositionId,
            elements: instance.elements,
            createdAt: 1,
          });
          await store.outbox.add([{ topic, key: null, value: 'never sent' }]);
          await store.events.append([
            {
              subjectId: instance.instanceId,
              operationId: null,
              event: 'ORDERED',
              detail: { order: 'DEPLOY' },
              actor: { kind: 'request', user: null, requestId: null },
              at: 1,
            },
          ]);
          throw failure;
        }),
      ).rejects.toBe(failure);

      await read(async (store) => {
        expect(await store.instances.find(instance.instanceId)).toEqual({ value: instance, version: 1 });
        expect(await store.definitions.find(operation.operationId)).toBeNull();
        expect(await store.participants.find(participant.participantId)).toBeNull();
        expect(await store.operations.find(operation.operationId)).toBeNull();
        expect(await store.operations.findByMessage(operation.operationId)).toBeNull();
        expect(await store.rollbacks.find(instance.instanceId)).toBeNull();
        expect(await store.events.list(instance.instanceId, 10)).toEqual([]);
      });
      expect((await queuedOutbox()).filter((record) => record.topic === topic)).toEqual([]);
    });

    it('releases row locks when a transaction fails', async () => {
      const instance = await storedInstance();
      await expect(
        inTransaction(async (store) => {
          await store.instances.findForUpdate(instance.instanceId);
          throw new Error('give up');
        }),
      ).rejects.toThrow('give up');
      const locked = await inTransaction((store) => store.instances.findForUpdate(instance.instanceId));
      expect(locked?.version).toBe(1);
    });
  });
}
