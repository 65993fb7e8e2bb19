/**
 * What the bus does when the broker comes back as a new, empty cluster (a new cluster id on the same
 * address). kafkajs stands in: a healthy test broker cannot change its cluster id on demand; the
 * fault scenario in test/faults/kafka-broker.fault-spec.ts does it with a broker of its own.
 */
import { KafkaJSConnectionError } from 'kafkajs';

import { KafkaMessageBus } from './kafka-message-bus';

interface FakeProducer {
  sends: unknown[];
  disconnected: boolean;
  failNextSend: Error | undefined;
}

interface FakeConsumer {
  seeks: Array<{ topic: string; partition: number; offset: string }>;
  disconnected: boolean;
}

/**
 * The current cluster id, how many times it was read (`described`: of those, through `describeCluster`, which
 * carries every topic's metadata), the topics named by the other reads, and the topics the broker has.
 */
const cluster = { id: 'cluster-a', reads: 0, described: 0, named: [] as string[][], topics: ['topic'] };
const producers: FakeProducer[] = [];
const consumers: FakeConsumer[] = [];
/** The partitions of the topic on the current cluster: low (oldest) and high (end) offsets. */
const partitionOffsets = [
  { partition: 0, low: '0', high: '7', offset: '7' },
  { partition: 1, low: '0', high: '3', offset: '3' },
];

jest.mock('kafkajs', () => {
  const actual = jest.requireActual<typeof import('kafkajs')>('kafkajs');
  const events = { CRASH: 'consumer.crash', GROUP_JOIN: 'consumer.group_join' };
  // kafkajs' own cluster factory, which the bus reaches through this private symbol (see cluster-id.ts).
  const createCluster = Symbol('private:Kafka:createCluster');
  class FakeKafka {
    [createCluster] = () => ({
      connect: () => Promise.resolve(),
      disconnect: () => Promise.resolve(),
      metadata: ({ topics }: { topics: string[] }) => {
        if (!topics.every((topic) => cluster.topics.includes(topic))) {
          // As kafkajs rejects it: a protocol error whose type names the broker's error code.
          const error = Object.assign(new Error('This server does not host this topic-partition'), {
            type: 'UNKNOWN_TOPIC_OR_PARTITION',
          });
          return Promise.reject(error);
        }
        cluster.reads += 1;
        cluster.named.push(topics);
        return Promise.resolve({ clusterId: cluster.id, topicMetadata: topics.map((topic) => ({ topic })) });
      },
    });

    producer() {
      const state: FakeProducer = { sends: [], disconnected: false, failNextSend: undefined };
      producers.push(state);
      return Object.assign(state, {
        connect: () => Promise.resolve(),
        disconnect: () => {
          state.disconnected = true;
          return Promise.resolve();
        },
        send: (request: unknown) => {
          const failure = state.failNextSend;
          state.failNextSend = undefined;
          if (failure !== undefined) {
            return Promise.reject(failure);
          }
          state.sends.push(request);
          return Promise.resolve();
        },
      });
    }

    admin() {
      return {
        connect: () => Promise.resolve(),
        disconnect: () => Promise.resolve(),
        describeCluster: () => {
          cluster.reads += 1;
          cluster.described += 1;
          return Promise.resolve({ clusterId: cluster.id, brokers: [], controller: 1 });
        },
        fetchOffsets: () =>
          Promise.resolve([
            { topic: 'topic', partitions: partitionOffsets.map(({ partition }) => ({ partition, offset: '-1' })) },
          ]),
        fetchTopicOffsets: () => Promise.resolve(partitionOffsets),
      };
    }

    consumer() {
      const state: FakeConsumer = { seeks: [], disconnected: false };
      consumers.push(state);
      const listeners = new Map<string, Array<(event: unknown) => void>>();
      return Object.assign(state, {
        events,
        on: (event: string, listener: (event: unknown) => void) => {
          listeners.set(event, [...(listeners.get(event) ?? []), listener]);
          return () =>
            listeners.set(
              event,
              (listeners.get(event) ?? []).filter((other) => other !== listener),
            );
        },
        connect: () => Promise.resolve(),
        subscribe: () => Promise.resolve(),
        run: () => {
          const join = { payload: { memberAssignment: { topic: partitionOffsets.map(({ partition }) => partition) } } };
          (listeners.get(events.GROUP_JOIN) ?? []).forEach((listener) => listener(join));
          return Promise.resolve();
        },
        seek: (position: { topic: string; partition: number; offset: string }) => state.seeks.push(position),
        disconnect: () => {
          state.disconnected = true;
          return Promise.resolve();
        },
      });
    }
  }
  return { ...actual, Kafka: FakeKafka };
});

/** Polls `condition` until it holds; fails after a bounded deadline. */
async function until(description: string, condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) {
      throw new Error(`Timed out waiting for ${description}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function newBus(clusterCheckIntervalMs: number, logged: string[] = []): KafkaMessageBus {
  return new KafkaMessageBus({
    brokers: ['127.0.0.1:1'],
    allowAutoTopicCreation: false,
    clusterCheckIntervalMs,
    logger: (level, message) => logged.push(`${level} ${message}`),
  });
}

describe('KafkaMessageBus on a broker that came back as a new cluster', () => {
  beforeEach(() => {
    cluster.id = 'cluster-a';
    cluster.reads = 0;
    cluster.described = 0;
    cluster.named = [];
    cluster.topics = ['topic'];
    producers.splice(0);
    consumers.splice(0);
  });

  it('replaces the producer once the periodic check sees a new cluster id, and sends with the new one', async () => {
    const logged: string[] = [];
    const bus = newBus(10, logged);
    await bus.publish('topic', [{ key: 'k', value: 'before' }]);
    await until('the first cluster id to be read', () => cluster.reads > 0);
    cluster.id = 'cluster-b';

    await until('the stale producer to be disconnected', () => producers[0]?.disconnected === true);
    await bus.publish('topic', [{ key: 'k', value: 'after' }]);

    expect(producers).toHaveLength(2);
    expect(producers[0]!.sends).toHaveLength(1);
    expect(producers[1]!.sends).toHaveLength(1);
    expect(logged).toContain('warn The broker came back as a new cluster; re-initialising the producer and consumers');
    await bus.close();
  });

  it('reads the cluster id naming a topic the bus uses, never describing the whole cluster', async () => {
    const bus = newBus(10);
    await bus.publish('topic', [{ key: 'k', value: 'first' }]);
    await until('three checks', () => cluster.reads > 2);
    await bus.ping();

    expect(cluster.described).toBe(0);
    expect(new Set(cluster.named.map((topics) => topics.join(',')))).toEqual(new Set(['topic']));
    await bus.close();
  });

  it('describes the cluster when the broker lacks the topic, and so still sees a new cluster', async () => {
    const bus = newBus(10);
    await bus.publish('topic', [{ key: 'k', value: 'first' }]);
    await until('the first cluster id to be read', () => cluster.reads > 0);
    // A broker that lost its data has none of the old topics until something creates them again.
    cluster.topics = [];
    cluster.id = 'cluster-b';

    await until('the stale producer to be disconnected', () => producers[0]?.disconnected === true);

    expect(cluster.described).toBeGreaterThan(0);
    await bus.close();
  });

  it('checks the cluster id before the send that follows a failed one', async () => {
    // A period far beyond the test: only the check at start and the one after the failure run.
    const bus = newBus(3_600_000);
    await bus.publish('topic', [{ key: 'k', value: 'first' }]);
    producers[0]!.failNextSend = new KafkaJSConnectionError('Connection error: ECONNREFUSED');
    await expect(bus.publish('topic', [{ key: 'k', value: 'during the outage' }])).rejects.toThrow('ECONNREFUSED');
    await until('the first cluster id to be read', () => cluster.reads > 0);
    cluster.id = 'cluster-b';

    await bus.publish('topic', [{ key: 'k', value: 'on the new cluster' }]);

    expect(producers).toHaveLength(2);
    expect(producers[0]!.disconnected).toBe(true);
    expect(producers[1]!.sends).toEqual([expect.objectContaining({ topic: 'topic' })]);
    await bus.close();
  });

  it('tells onRecordsLost listeners about a new cluster id, and only about that', async () => {
    const bus = newBus(10);
    let lost = 0;
    const removed = { called: 0 };
    const remove = bus.onRecordsLost(() => {
      removed.called += 1;
    });
    bus.onRecordsLost(() => {
      lost += 1;
    });
    await bus.publish('topic', [{ key: 'k', value: 'first' }]);
    await until('the cluster id to be read twice', () => cluster.reads > 1);
    expect(lost).toBe(0);
    remove();
    cluster.id = 'cluster-b';

    await until('the listener to be told', () => lost === 1);
    const reads = cluster.reads;
    await until('two more checks of the same id', () => cluster.reads > reads + 1);

    expect(lost).toBe(1);
    expect(removed.called).toBe(0);
    await bus.close();
  });

  it('keeps the producer while the cluster id stays the same', async () => {
    const bus = newBus(3_600_000);
    await bus.publish('topic', [{ key: 'k', value: 'first' }]);
    producers[0]!.failNextSend = new KafkaJSConnectionError('Connection error: ECONNREFUSED');
    await expect(bus.publish('topic', [{ key: 'k', value: 'second' }])).rejects.toThrow('ECONNREFUSED');

    await bus.publish('topic', [{ key: 'k', value: 'third' }]);

    expect(producers).toHaveLength(1);
    expect(producers[0]!.sends).toHaveLength(2);
    await bus.close();
  });

  it('restarts each consumer on the new cluster at the oldest offset of every partition', async () => {
    const bus = newBus(10);
    const subscription = await bus.subscribe({ topic: 'topic', groupId: 'group', handler: () => Promise.resolve() });
    // A new group that starts at the end: the join pins the end offsets.
    expect(consumers[0]!.seeks.map(({ partition, offset }) => [partition, offset])).toEqual([
      [0, '7'],
      [1, '3'],
    ]);
    await until('the first cluster id to be read', () => cluster.reads > 0);
    cluster.id = 'cluster-b';

    await until('a second consumer to join', () => consumers.length === 2 && consumers[1]!.seeks.length === 2);

    expect(consumers[0]!.disconnected).toBe(true);
    expect(consumers[1]!.seeks.map(({ partition, offset }) => [partition, offset])).toEqual([
      [0, '0'],
      [1, '0'],
    ]);
    await subscription.close();
    expect(consumers[1]!.disconnected).toBe(true);
    await bus.close();
  });
});
