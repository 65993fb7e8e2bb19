import { randomUUID } from 'node:crypto';

import type { Operation, OperationEvent, OperationSessions } from '@acm/domain';

import { BufferedSessions } from '../../session/buffered-sessions';
import { elementOf, operationOf, token } from '../builders';
import { refusalOf } from './contract-support';
import type { ContractContext } from './contract-support';

const NO_KEYS = { instanceIds: [], messageIds: [] } as const;

function orderedEvent(subjectId: string, operationId: string): OperationEvent {
  return {
    subjectId,
    operationId,
    event: 'ORDERED',
    detail: { order: 'DEPLOY' },
    actor: { kind: 'request', user: 'runtimeUser', requestId: `r-${token()}` },
    at: 1_764_000_000_000,
  };
}

/**
 * The contract of `OperationSession` (the engine's port) as `BufferedSessions` opens it over the adapter's unit of
 * work: what it locks and loads, that every read sees the session's own writes, that nothing is written before the
 * commit and everything is at the commit, and that a refused write leaves nothing behind.
 */
export function describeOperationSessionContract(context: ContractContext): void {
  const { it, read, inTransaction, storedInstance, queuedOutbox, unitOfWork } = context;
  const sessions = (): OperationSessions => new BufferedSessions(unitOfWork());

  describe('OperationSession', () => {
    it('answers from what it loaded and wrote, and writes everything at the commit only', async () => {
      const instance = await storedInstance([elementOf(randomUUID())]);
      const first = operationOf(instance.instanceId);
      const sent = randomUUID();
      await inTransaction(async (store) => {
        await store.operations.insert(first);
        await store.operations.recordMessage(sent, first.operationId, 0, null);
      });
      const successor = operationOf(instance.instanceId, { order: 'UNDEPLOY' });
      const superseded: Operation = { ...first, state: 'SUPERSEDED', finishedAt: 1_764_000_001_000 };
      const [messageId, topic] = [randomUUID(), `t${token()}`];
      const keys = { instanceIds: [instance.instanceId], messageIds: [sent], participants: true };
      await sessions().transaction(keys, async (session) => {
        const found = await session.lockInstance(instance.instanceId);
        expect(found).toEqual({ value: instance, version: 1 });
        expect(await session.running(instance.instanceId)).toEqual(first);
        expect(await session.answered(sent)).toEqual({ operation: first, phase: 0 });
        expect((await session.definition(instance.compositionId))?.value.compositionId).toBe(instance.compositionId);

        await session.writeInstance({ ...instance, deployState: 'UNDEPLOYING' }, 1);
        session.saveOperations([
          { operation: superseded, isNew: false },
          { operation: successor, isNew: true },
        ]);
        session.record({
          messages: [{ messageId, operationId: successor.operationId, phase: 0, elementIds: null }],
          answers: [{ messageId: sent, participantId: 'p', replicaId: 'r' }],
          outbox: [{ topic, key: null, value: 'v' }],
          events: [orderedEvent(instance.instanceId, successor.operationId)],
        });
        expect(await session.lockInstance(instance.instanceId)).toEqual({
          value: { ...instance, deployState: 'UNDEPLOYING' },
          version: 2,
        });
        expect(await session.running(instance.instanceId)).toEqual(successor);
        expect(await session.operation(first.operationId)).toEqual(superseded);
        expect(await session.answered(messageId)).toEqual({ operation: successor, phase: 0 });
        // Another connection sees nothing of the session before its commit.
        expect(await read((store) => store.operations.findRunning(instance.instanceId))).toEqual(first);
        // A late read goes to the store after the held writes, so it sees them.
        expect((await session.phaseMessages(successor.operationId, 0)).map((m) => m.messageId)).toEqual([messageId]);
        expect((await session.history(instance.instanceId, 5)).map((event) => event.event)).toEqual(['ORDERED']);
      });
      await read(async (store) => {
        expect(await store.instances.find(instance.instanceId)).toMatchObject({ version: 2 });
        expect(await store.operations.findRunning(instance.instanceId)).toEqual(successor);
        expect((await store.operations.find(first.operationId))?.state).toBe('SUPERSEDED');
        expect((await store.operations.phaseMessages(sent, 0)).length).toBe(0);
        expect((await store.operations.phaseMessages(first.operationId, 0))[0]?.answeredBy).toEqual([
          { participantId: 'p', replicaId: 'r' },
        ]);
      });
      expect((await queuedOutbox()).filter((record) => record.topic === topic)).toHaveLength(1);
    });

    it('refuses a stale version with CONCURRENT_MODIFICATION; the transaction then writes nothing', async () => {
      const instance = await storedInstance([elementOf(randomUUID())]);
      const operation = operationOf(instance.instanceId);
      const topic = `t${token()}`;
      const refused = await refusalOf(
        sessions().transaction({ instanceIds: [instance.instanceId], messageIds: [] }, async (session) => {
          session.saveOperations([{ operation, isNew: true }]);
          session.record({ outbox: [{ topic, key: null, value: 'v' }] });
          await session.writeInstance({ ...instance, deployState: 'DEPLOYING' }, 7);
        }),
      );
      expect(refused).toBe('CONCURRENT_MODIFICATION');
      await read(async (store) => {
        expect(await store.instances.find(instance.instanceId)).toMatchObject({ version: 1 });
        expect(await store.operations.find(operation.operationId)).toBeNull();
      });
      expect((await queuedOutbox()).filter((record) => record.topic === topic)).toEqual([]);
    });

    it('holds the row locks of what it loaded until its transaction ends: sessions of one target serialise', async () => {
      const instance = await storedInstance([elementOf(randomUUID())], { phase: 0 });
      const keys = { instanceIds: [instance.instanceId], messageIds: [] };
      const writers = 5;
      // Each session reads, then writes at the version it read: without the lock, two would read the same version
      // and the later one would be refused.
      await Promise.all(
        Array.from({ length: writers }, () =>
          sessions().transaction(keys, async (session) => {
            const found = (await session.lockInstance(instance.instanceId))!;
            await session.history(instance.instanceId, 1);
            await session.writeInstance({ ...found.value, phase: (found.value.phase ?? 0) + 1 }, found.version);
          }),
        ),
      );
      const found = await read((store) => store.instances.find(instance.instanceId));
      expect(found?.value.phase).toBe(writers);
      expect(found?.version).toBe(1 + writers);
    });

    it('locks a target it did not load when asked, deletes, and answers a deleted instance as absent', async () => {
      const instance = await storedInstance([elementOf(randomUUID())]);
      await sessions().transaction(NO_KEYS, async (session) => {
        const found = await session.lockInstance(instance.instanceId);
        expect(found?.version).toBe(1);
        await session.deleteInstance(instance.instanceId, 1);
        expect(await session.lockInstance(instance.instanceId)).toBeNull();
      });
      expect(await read((store) => store.instances.find(instance.instanceId))).toBeNull();
    });

    it('locks and writes a definition at its version', async () => {
      const instance = await storedInstance([elementOf(randomUUID())]);
      await sessions().transaction(NO_KEYS, async (session) => {
        const found = (await session.lockDefinition(instance.compositionId))!;
        await session.writeDefinition({ ...found.value, state: 'PRIMING' }, found.version);
        expect(await refusalOf(session.writeDefinition(found.value, found.version))).toBe('CONCURRENT_MODIFICATION');
      });
      expect((await read((store) => store.definitions.find(instance.compositionId)))?.value.state).toBe('PRIMING');
    });

    it("joined to the caller's transaction: reads nothing up front, writes at its commit, inside that transaction", async () => {
      const instance = await storedInstance([elementOf(randomUUID())]);
      const operation = operationOf(instance.instanceId);
      await inTransaction(async (store) => {
        const found = (await store.instances.findForUpdate(instance.instanceId))!;
        const session = sessions().join(store, [found]);
        expect(await session.lockInstance(instance.instanceId)).toEqual(found);
        await session.writeInstance({ ...found.value, deployState: 'DEPLOYING' }, found.version);
        session.saveOperations([{ operation, isNew: true }]);
        expect(await store.operations.findRunning(instance.instanceId)).toBeNull();
        await session.commit();
        expect(await store.operations.findRunning(instance.instanceId)).toEqual(operation);
        expect((await store.instances.find(instance.instanceId))?.version).toBe(2);
      });
    });

    it("gives supervision's queries inside its transaction and outside any, over the session's writes", async () => {
      const instance = await storedInstance([elementOf(randomUUID())]);
      const due = operationOf(instance.instanceId, {
        control: { ...operationOf(instance.instanceId).control, dueAt: 1_000 },
      });
      await sessions().transaction(NO_KEYS, async (session, { queries, store }) => {
        session.saveOperations([{ operation: due, isNew: true }]);
        expect(await store.operations.findRunning(instance.instanceId)).toEqual(due);
        const listed = await queries.due(10_000);
        expect(listed.map((operation) => operation.operationId)).toContain(due.operationId);
      });
      const outside = await sessions().read((queries) => queries.instances({ instanceIds: [instance.instanceId] }));
      expect(outside.map((each) => each.instanceId)).toEqual([instance.instanceId]);
    });
  });
}
