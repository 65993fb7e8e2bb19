import { randomUUID } from 'node:crypto';
import type { AutomationComposition, CompositionDefinition, Operation } from '@acm/domain';
import { elementOf, operationOf, participantOf, token } from '../builders';
import { refusalOf } from './contract-support';
import type { ContractContext } from './contract-support';

/**
 * The contract of `Store.saveAll` and `Store.readContext`: the set write and read of orders and batches,
 * run against every adapter (see `describeStoreContract`).
 */
export function describeStoreWritesContract(context: ContractContext): void {
  const { it, inTransaction, read, storedDefinition, storedInstance, queuedOutbox } = context;

  describe('Store', () => {
    it('saveAll writes instances, operations, messages, answers, outbox and history as the single calls would', async () => {
      const [kept, dropped] = [elementOf(randomUUID()), elementOf(randomUUID())];
      const instance = await storedInstance([kept, dropped]);
      const old = operationOf(instance.instanceId);
      await inTransaction((store) => store.operations.insert(old));
      const successor = operationOf(instance.instanceId, { order: 'UNDEPLOY' });
      const superseded: Operation = { ...old, state: 'SUPERSEDED', finishedAt: 1_764_000_001_000 };
      const changed: AutomationComposition = {
        ...instance,
        deployState: 'UNDEPLOYING',
        phase: 0,
        elements: { [kept.id]: { ...kept, deployState: 'UNDEPLOYING' } },
      };
      const [messageId, topic] = [randomUUID(), `t${token()}`];
      await inTransaction(async (store) => {
        await store.instances.findForUpdate(instance.instanceId);
        await store.saveAll({
          instances: [{ instance: changed, expectedVersion: 1 }],
          operations: [
            { operation: successor, isNew: true },
            { operation: superseded, isNew: false },
          ],
          messages: [{ messageId, operationId: successor.operationId, phase: 0, elementIds: [kept.id] }],
          answers: [{ messageId, participantId: 'p', replicaId: 'r' }],
          outbox: [
            { topic, key: 'k1', value: 'first' },
            { topic, key: null, value: 'second', headers: { traceparent: 'x' } },
          ],
          events: [
            {
              subjectId: instance.instanceId,
              operationId: successor.operationId,
              event: 'TIMEOUT',
              detail: {},
              actor: { kind: 'runtime', rule: 'timeout' },
              at: 1,
            },
            {
              subjectId: instance.instanceId,
              operationId: null,
              event: 'PAUSED',
              detail: { phase: 2 },
              actor: { kind: 'request', user: 'runtimeUser', requestId: 'r-2' },
              at: 2,
            },
          ],
        });
        // Nothing to write is no write at all.
        await store.saveAll({ instances: [], operations: [], messages: [], answers: [], outbox: [], events: [] });
      });
      await read(async (store) => {
        expect(await store.instances.find(instance.instanceId)).toEqual({ value: changed, version: 2 });
        expect(await store.operations.find(old.operationId)).toEqual(superseded);
        expect(await store.operations.findRunning(instance.instanceId)).toEqual(successor);
        expect(await store.operations.findByMessage(messageId)).toEqual({ operation: successor, phase: 0 });
        expect(await store.operations.phaseMessages(successor.operationId, 0)).toEqual([
          { messageId, elementIds: [kept.id], answeredBy: [{ participantId: 'p', replicaId: 'r' }] },
        ]);
        const events = await store.events.list(instance.instanceId, 10);
        expect(
          events.map(({ event, detail, actor, at, operationId }) => ({ event, detail, actor, at, operationId })),
        ).toEqual([
          {
            event: 'TIMEOUT',
            detail: {},
            actor: { kind: 'runtime', rule: 'timeout' },
            at: 1,
            operationId: successor.operationId,
          },
          {
            event: 'PAUSED',
            detail: { phase: 2 },
            actor: { kind: 'request', user: 'runtimeUser', requestId: 'r-2' },
            at: 2,
            operationId: null,
          },
        ]);
      });
      expect((await queuedOutbox()).filter((record) => record.topic === topic)).toEqual([
        { topic, key: 'k1', value: 'first' },
        { topic, key: null, value: 'second', headers: { traceparent: 'x' } },
      ]);
    });

    it('saveAll with a stale instance version is refused and writes no other row', async () => {
      const instance = await storedInstance();
      await inTransaction((store) => store.instances.update({ ...instance, description: 'moved on' }, 1));
      const operation = operationOf(instance.instanceId);
      const topic = `t${token()}`;
      await inTransaction(async (store) => {
        const refusal = await refusalOf(
          store.saveAll({
            instances: [{ instance: { ...instance, deployState: 'DEPLOYING' }, expectedVersion: 1 }],
            operations: [{ operation, isNew: true }],
            messages: [],
            answers: [],
            outbox: [{ topic, key: null, value: 'lost' }],
            events: [
              {
                subjectId: instance.instanceId,
                operationId: null,
                event: 'TIMEOUT',
                detail: {},
                actor: { kind: 'runtime', rule: 'timeout' },
                at: 1,
              },
            ],
          }),
        );
        expect(refusal).toBe('CONCURRENT_MODIFICATION');
        expect(await store.operations.find(operation.operationId)).toBeNull();
      });
      expect((await read((store) => store.instances.find(instance.instanceId)))?.version).toBe(2);
      expect(await read((store) => store.events.list(instance.instanceId, 10))).toEqual([]);
      expect((await queuedOutbox()).filter((record) => record.topic === topic)).toEqual([]);
    });

    it('readContext answers a definition as it is stored now, however often it was read before', async () => {
      const definition = await storedDefinition({ state: 'PRIMED' });
      const contextOf = (): Promise<unknown> =>
        inTransaction(async (store) =>
          (
            await store.readContext({
              runningOf: [],
              definitions: [definition.compositionId],
              messages: [],
              participants: false,
            })
          ).definitions.get(definition.compositionId),
        );
      expect(await contextOf()).toEqual({ value: definition, version: 1 });
      expect(await contextOf()).toEqual({ value: definition, version: 1 });
      const deprimed: CompositionDefinition = {
        ...definition,
        state: 'COMMISSIONED',
        serviceTemplate: { ...definition.serviceTemplate, changed: true },
      };
      await inTransaction((store) => store.definitions.update(deprimed, 1));
      expect(await contextOf()).toEqual({ value: deprimed, version: 2 });
      // Written and read in one transaction: the read sees the write.
      const primed: CompositionDefinition = { ...deprimed, state: 'PRIMED' };
      await inTransaction(async (store) => {
        await store.definitions.update(primed, 2);
        const context = await store.readContext({
          runningOf: [],
          definitions: [definition.compositionId],
          messages: [],
          participants: false,
        });
        expect(context.definitions.get(definition.compositionId)).toEqual({ value: primed, version: 3 });
      });
      expect(await contextOf()).toEqual({ value: primed, version: 3 });
      // Deleted and created again under the same id: a new row, read in full.
      const again: CompositionDefinition = { ...definition, serviceTemplate: { name: 'again' } };
      await inTransaction(async (store) => {
        await store.definitions.delete(definition.compositionId, 3);
        await store.definitions.insert(again);
      });
      expect(await contextOf()).toEqual({ value: again, version: 1 });
    });

    it('readContext answers what findManyRunning, definitions.find, findManyByMessage and participants.list do', async () => {
      const instance = await storedInstance();
      const target = await storedDefinition({ state: 'PRIMED' });
      const participant = participantOf();
      const running = operationOf(instance.instanceId);
      const [messageId, unknown] = [randomUUID(), randomUUID()];
      await inTransaction(async (store) => {
        await store.participants.save(participant);
        await store.operations.insert(running);
        await store.operations.recordMessage(messageId, running.operationId, 2);
      });
      await inTransaction(async (store) => {
        const context = await store.readContext({
          runningOf: [instance.instanceId, randomUUID(), instance.instanceId],
          definitions: [instance.compositionId, target.compositionId, randomUUID()],
          messages: [messageId, unknown],
          participants: true,
        });
        expect(context.running).toEqual(await store.operations.findManyRunning([instance.instanceId]));
        expect(context.running.get(instance.instanceId)).toEqual(running);
        expect(context.definitions).toEqual(
          new Map([
            [instance.compositionId, await store.definitions.find(instance.compositionId)],
            [target.compositionId, await store.definitions.find(target.compositionId)],
          ]),
        );
        expect(context.answered).toEqual(new Map([[messageId, { operation: running, phase: 2 }]]));
        expect(context.participants).toEqual(await store.participants.list());
        expect(context.participants).toContainEqual(participant);
        expect(await store.readContext({ runningOf: [], definitions: [], messages: [], participants: false })).toEqual({
          running: new Map(),
          definitions: new Map(),
          answered: new Map(),
          participants: null,
        });
      });
    });
  });
}
