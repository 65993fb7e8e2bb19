import { InMemoryMessageBus } from '@acm/messaging';
import type { BusLogger, IncomingRecord } from '@acm/messaging';

import { describeMessageBusContract } from '../testing/message-bus.contract';

const silent: BusLogger = () => undefined;

describeMessageBusContract(
  'InMemoryMessageBus',
  () => {
    const bus = new InMemoryMessageBus({ logger: silent });
    return Promise.resolve({ bus, createTopic: (topic, partitions) => bus.createTopic(topic, partitions) });
  },
  { receiveTimeoutMs: 2_000 },
);

describe('InMemoryMessageBus specifics', () => {
  it('never runs a handler inside publish (delivery is asynchronous)', async () => {
    const bus = new InMemoryMessageBus({ logger: silent });
    const order: string[] = [];
    let received!: () => void;
    const done = new Promise<void>((resolve) => (received = resolve));
    await bus.subscribe({
      topic: 'reentrancy',
      groupId: 'g',
      handler: () => {
        order.push('handler');
        received();
        return Promise.resolve();
      },
    });

    const publishing = bus.publish('reentrancy', [{ key: 'k', value: 'v' }]);
    order.push('after publish call');
    await publishing;
    order.push('publish resolved');
    await done;
    expect(order).toEqual(['after publish call', 'publish resolved', 'handler']);
    await bus.close();
  });

  it('whenDelivered resolves only after every published record was handled, including records published meanwhile', async () => {
    const bus = new InMemoryMessageBus({ logger: silent, defaultPartitions: 2 });
    const handled: string[] = [];
    await bus.subscribe({
      topic: 'delivered',
      groupId: 'g',
      handler: async (record) => {
        await new Promise((resolve) => setImmediate(resolve));
        if (record.value === 'first') {
          await bus.publish('delivered', [{ key: 'b', value: 'published while delivering' }]);
        }
        handled.push(record.value);
      },
    });
    await bus.publish('delivered', [
      { key: 'a', value: 'first' },
      { key: 'a', value: 'second' },
    ]);

    await bus.whenDelivered();

    expect(handled.sort()).toEqual(['first', 'published while delivering', 'second']);
    await bus.close();
  });

  it('logs a failing handler with the record position and group', async () => {
    const logged: Array<[string, string, Record<string, unknown> | undefined]> = [];
    const bus = new InMemoryMessageBus({ logger: (level, message, context) => logged.push([level, message, context]) });
    let next!: () => void;
    const delivered = new Promise<void>((resolve) => (next = resolve));
    await bus.subscribe({
      topic: 'failing',
      groupId: 'g',
      handler: (record: IncomingRecord) => {
        if (record.value === 'ok') {
          next();
          return Promise.resolve();
        }
        return Promise.reject(new Error('boom'));
      },
    });
    await bus.publish('failing', [
      { key: 'k', value: 'bad' },
      { key: 'k', value: 'ok' },
    ]);
    await delivered;
    expect(logged).toEqual([
      [
        'error',
        'Message handler failed; record skipped',
        expect.objectContaining({ topic: 'failing', offset: '0', groupId: 'g', error: 'Error: boom' }),
      ],
    ]);
    await bus.close();
  });

  it('waits for in-flight handlers when a subscription closes, then hands its partitions to the others', async () => {
    const bus = new InMemoryMessageBus({ logger: silent, defaultPartitions: 1 });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const firstSeen: string[] = [];
    const secondSeen: string[] = [];
    let startedSlow!: () => void;
    const slowStarted = new Promise<void>((resolve) => (startedSlow = resolve));
    const first = await bus.subscribe({
      topic: 'handover',
      groupId: 'g',
      handler: async (record) => {
        firstSeen.push(record.value);
        startedSlow();
        await gate;
      },
    });
    let secondGot!: () => void;
    const secondDone = new Promise<void>((resolve) => (secondGot = resolve));
    await bus.subscribe({
      topic: 'handover',
      groupId: 'g',
      handler: (record) => {
        secondSeen.push(record.value);
        secondGot();
        return Promise.resolve();
      },
    });

    await bus.publish('handover', [
      { key: 'k', value: 'one' },
      { key: 'k', value: 'two' },
    ]);
    await slowStarted;
    let closed = false;
    const closing = first.close().then(() => (closed = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(closed).toBe(false);
    release();
    await closing;
    await secondDone;
    expect(firstSeen).toEqual(['one']);
    expect(secondSeen).toEqual(['two']);
    await bus.close();
  });
});
