import { randomUUID } from 'node:crypto';

import { KafkaMessageBus } from '@acm/messaging';
import type { BusLogger } from '@acm/messaging';

import { testKafkaBrokers } from '../../../../test/support/services';
import { describeMessageBusContract } from '../testing/message-bus.contract';

/** Collects warnings and errors so a test can show what kafkajs complained about. */
const logged: string[] = [];
const logger: BusLogger = (level, message, context) => {
  if (level === 'error' || level === 'warn') {
    logged.push(`${level} ${message} ${JSON.stringify(context ?? {})}`);
  }
};

const newBus = (): KafkaMessageBus =>
  new KafkaMessageBus({ brokers: testKafkaBrokers(), clientId: `contract-${randomUUID()}`, logger });

describeMessageBusContract('KafkaMessageBus', () => {
  const bus = newBus();
  return Promise.resolve({
    bus,
    createTopic: (topic, partitions) => bus.createTopics([{ topic, numPartitions: partitions }]),
  });
});

jest.setTimeout(60_000);

describe('KafkaMessageBus specifics', () => {
  it('creates topics idempotently and publishes an empty batch as a no-op', async () => {
    const bus = newBus();
    const topic = `kafka-specific-${randomUUID()}`;
    try {
      await bus.connect();
      await bus.createTopics([{ topic, numPartitions: 2 }]);
      await bus.createTopics([{ topic, numPartitions: 2 }]);
      await expect(bus.publish(topic, [])).resolves.toBeUndefined();
    } finally {
      await bus.close();
    }
  });

  // Either way the ping ends instead of hanging (a hang fails on the test's timeout): by its bound while kafkajs
  // retries, or earlier when kafkajs gives up on the refused connection first (it did once on a quiet machine).
  it('rejects a ping within its bound when the broker is unreachable', async () => {
    const bus = new KafkaMessageBus({
      brokers: ['127.0.0.1:1'],
      connectionTimeout: 200,
      // About 1 + 2 + 4 s of retries: longer than the ping's bound, short enough for close() to end.
      retry: { retries: 3, initialRetryTime: 1_000 },
      logger: () => undefined,
    });
    try {
      await expect(bus.ping()).rejects.toThrow(/Kafka did not answer within 3000 ms|ECONNREFUSED/);
    } finally {
      await bus.close();
    }
  });

  it('fails subscribe with a clear error when the broker is unreachable', async () => {
    const bus = new KafkaMessageBus({
      brokers: ['127.0.0.1:1'],
      connectionTimeout: 200,
      retry: { retries: 1, initialRetryTime: 100 },
      subscribeTimeoutMs: 2_000,
      logger: () => undefined,
    });
    try {
      await expect(
        bus.subscribe({ topic: 'unreachable', groupId: 'g', handler: () => Promise.resolve() }),
      ).rejects.toThrow();
    } finally {
      await bus.close();
    }
  });

  afterAll(() => {
    // Handler failures are expected in the contract suite; client-level errors are not.
    const unexpected = logged.filter((line) => !line.includes('Message handler failed'));
    if (unexpected.length > 0) {
      console.warn(`kafkajs reported:\n${unexpected.join('\n')}`);
    }
  });
});
