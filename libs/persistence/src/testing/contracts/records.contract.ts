import { randomUUID } from 'node:crypto';
import type { Actor, HistoryEventBody, OperationEvent } from '@acm/domain';
import { elementOf, token } from '../builders';
import { gate } from './contract-support';
import type { ContractContext } from './contract-support';

/**
 * The contract of `RollbackRepository`, `OutboxRepository` and `EventRepository`,
 * run against every adapter (see `describeStoreContract`).
 */
export function describeRecordsContract(context: ContractContext): void {
  const { it, inTransaction, read, storedDefinition, storedInstance, queuedOutbox } = context;

  describe('RollbackRepository', () => {
    it('saves one snapshot per instance, replacing the previous one', async () => {
      const instance = await storedInstance([elementOf(null)]);
      const snapshot = {
        instanceId: instance.instanceId,
        compositionId: instance.compositionId,
        elements: instance.elements,
        createdAt: 1_764_000_000_123,
      };
      await inTransaction((store) => store.rollbacks.save(snapshot));
      expect(await read((store) => store.rollbacks.find(instance.instanceId))).toEqual(snapshot);
      const target = await storedDefinition();
      const [element] = Object.values(instance.elements);
      const replaced = {
        ...snapshot,
        compositionId: target.compositionId,
        elements: { [element!.id]: { ...element!, deployState: 'DEPLOYED' as const } },
        createdAt: 1_764_000_000_456,
      };
      await inTransaction((store) => store.rollbacks.save(replaced));
      await read(async (store) => {
        expect(await store.rollbacks.find(instance.instanceId)).toEqual(replaced);
        expect(await store.rollbacks.find(randomUUID())).toBeNull();
      });
    });
  });

  describe('OutboxRepository', () => {
    it('queues records in the order they were added, transaction after transaction', async () => {
      const topic = `t${token()}`;
      await inTransaction(async (store) => {
        await store.outbox.add([
          { topic, key: 'k1', value: '1' },
          { topic, key: null, value: '2' },
        ]);
        await store.outbox.add([]);
        await store.outbox.add([{ topic, key: 'k1', value: '3' }]);
      });
      await inTransaction((store) => store.outbox.add([{ topic, key: 'k2', value: '4' }]));
      await read((store) => store.outbox.add([{ topic, key: 'k3', value: '5' }]));
      expect((await queuedOutbox()).filter((record) => record.topic === topic)).toEqual([
        { topic, key: 'k1', value: '1' },
        { topic, key: null, value: '2' },
        { topic, key: 'k1', value: '3' },
        { topic, key: 'k2', value: '4' },
        { topic, key: 'k3', value: '5' },
      ]);
    });

    it('keeps each record’s headers (the trace context it leaves with), none when it had none', async () => {
      const topic = `t${token()}`;
      const traced = { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', tracestate: 'acm=1' };
      await inTransaction((store) =>
        store.outbox.add([
          { topic, key: 'k1', value: '1', headers: traced },
          { topic, key: 'k1', value: '2' },
        ]),
      );
      expect((await queuedOutbox()).filter((record) => record.topic === topic)).toEqual([
        { topic, key: 'k1', value: '1', headers: traced },
        { topic, key: 'k1', value: '2' },
      ]);
    });

    it('queues nothing before the commit', async () => {
      const topic = `t${token()}`;
      const added = gate();
      const looked = gate();
      const writer = inTransaction(async (store) => {
        await store.outbox.add([{ topic, key: null, value: 'later' }]);
        added.open();
        await looked.opened;
      });
      await added.opened;
      const before = (await queuedOutbox()).filter((record) => record.topic === topic);
      looked.open();
      await writer;
      expect(before).toEqual([]);
      expect((await queuedOutbox()).filter((record) => record.topic === topic)).toHaveLength(1);
    });
  });

  describe('EventRepository', () => {
    it('lists a subject’s events in append order with increasing sequences, up to the limit', async () => {
      const subjectId = randomUUID();
      const other = randomUUID();
      const operationId = randomUUID();
      const bodies: HistoryEventBody[] = [
        { event: 'ORDERED', detail: { order: 'DEPLOY' } },
        { event: 'PHASE_STARTED', detail: { phase: 0, messageId: randomUUID(), elementIds: ['e-1', 'e-2'] } },
        {
          event: 'ELEMENT_RESULT',
          detail: {
            elementId: 'e-1',
            participantId: 'p-1',
            phase: 0,
            deployState: 'DEPLOYED',
            lockState: 'LOCKED',
            result: true,
            message: null,
          },
        },
        { event: 'COMPLETED', detail: { deployState: 'DEPLOYED', lockState: 'LOCKED' } },
      ];
      const actors: Actor[] = [
        { kind: 'request', user: 'runtimeUser', requestId: 'r-1' },
        { kind: 'runtime', rule: 'slots' },
        { kind: 'participant', participantId: 'p-1', replicaId: null },
        { kind: 'participant', participantId: 'p-1', replicaId: 'r-9' },
      ];
      const events: OperationEvent[] = bodies.map((body, index) => ({
        ...body,
        subjectId,
        operationId: index === 0 ? null : operationId,
        actor: actors[index]!,
        at: 1_764_000_000_000 + index,
      }));
      await inTransaction(async (store) => {
        await store.events.append(events.slice(0, 2));
        await store.events.append([{ ...events[0]!, subjectId: other }]);
        await store.events.append([]);
        // A transaction reads its own appends.
        expect(await store.events.list(subjectId, 10)).toHaveLength(2);
      });
      await read((store) => store.events.append(events.slice(2)));
      await read(async (store) => {
        const listed = await store.events.list(subjectId, 10);
        expect(listed.map(({ sequence: _sequence, ...event }) => event)).toEqual(events);
        const sequences = listed.map((event) => event.sequence);
        expect([...sequences].sort((a, b) => a - b)).toEqual(sequences);
        expect(new Set(sequences).size).toBe(sequences.length);
        expect(sequences.every(Number.isInteger)).toBe(true);
        expect((await store.events.list(subjectId, 2)).map((event) => event.event)).toEqual([
          'ORDERED',
          'PHASE_STARTED',
        ]);
        expect(await store.events.list(other, 10)).toHaveLength(1);
        expect(await store.events.list(randomUUID(), 10)).toEqual([]);
      });
    });
  });
}
