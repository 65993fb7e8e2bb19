import { randomUUID } from 'node:crypto';

import { Kafka, Partitioners, logLevel } from 'kafkajs';
import type { Admin, Consumer, Producer } from 'kafkajs';

import { testKafkaBrokers } from './support/services';

// Explicit timeouts: the suite does not depend on the global jest testTimeout.
const TIMEOUT_MS = 60_000;

describe('Kafka test service', () => {
  const kafka = new Kafka({ clientId: 'acm-kafka-smoke', brokers: testKafkaBrokers(), logLevel: logLevel.WARN });
  const topic = `acm-smoke-${randomUUID()}`;
  let admin: Admin;
  let producer: Producer;
  let consumer: Consumer | undefined;

  beforeAll(async () => {
    admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }], waitForLeaders: true });
    producer = kafka.producer({ allowAutoTopicCreation: false, createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
  }, TIMEOUT_MS);

  afterAll(async () => {
    await consumer?.disconnect();
    await producer?.disconnect();
    if (admin) {
      await admin.deleteTopics({ topics: [topic] });
      await admin.disconnect();
    }
  }, TIMEOUT_MS);

  it(
    'produces a message and consumes it back with a fresh consumer group',
    async () => {
      const key = `key-${randomUUID()}`;
      const value = JSON.stringify({ messageType: 'PARTICIPANT_STATUS', sentAt: new Date().toISOString() });
      await producer.send({ topic, messages: [{ key, value }] });

      const groupId = `acm-smoke-${randomUUID()}`;
      // Short fetch wait so disconnect() does not sit on a 5 s long-poll.
      const groupConsumer = kafka.consumer({ groupId, maxWaitTimeInMs: 100 });
      consumer = groupConsumer;
      await groupConsumer.connect();
      await groupConsumer.subscribe({ topic, fromBeginning: true });

      let timer: NodeJS.Timeout | undefined;
      const received = await new Promise<{ key: string | undefined; value: string | undefined }>((resolve, reject) => {
        timer = setTimeout(() => reject(new Error('no message within 30s')), 30000);
        groupConsumer
          .run({
            eachMessage: ({ message }) => {
              resolve({ key: message.key?.toString(), value: message.value?.toString() });
              return Promise.resolve();
            },
          })
          .catch(reject);
      }).finally(() => clearTimeout(timer));

      expect(received).toEqual({ key, value });

      // The group really exists on the broker (classic consumer group protocol via kafkajs).
      const described = await admin.describeGroups([groupId]);
      expect(described.groups[0]?.groupId).toBe(groupId);
      expect(described.groups[0]?.protocolType).toBe('consumer');
    },
    TIMEOUT_MS,
  );
});
