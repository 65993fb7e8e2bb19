import { randomUUID } from 'node:crypto';

import { Kafka, logLevel } from 'kafkajs';

import { testKafkaBrokers } from '../../../../test/support/services';
import { clusterIdReader } from './cluster-id';

jest.setTimeout(60_000);

describe('clusterIdReader on the test broker', () => {
  const kafka = new Kafka({ brokers: testKafkaBrokers(), logLevel: logLevel.NOTHING, retry: { retries: 0 } });
  const admin = kafka.admin();
  const prefix = `cluster-id-${randomUUID()}`;
  const named = `${prefix}-named`;
  const others = Array.from({ length: 12 }, (_, index) => `${prefix}-other-${index}`);
  const reader = clusterIdReader(kafka, () => Promise.resolve(admin));

  beforeAll(async () => {
    await admin.connect();
    await admin.createTopics({ topics: [named, ...others].map((topic) => ({ topic, numPartitions: 2 })) });
  });

  afterAll(async () => {
    await reader.disconnect();
    await admin.deleteTopics({ topics: [named, ...others] }).catch(() => undefined);
    await admin.disconnect();
  });

  it('reads the id the broker describes, from an answer about the named topic alone', async () => {
    const { clusterId } = await admin.describeCluster();

    const reading = await reader.read(named);

    expect(reading).toEqual({ clusterId, topicsDescribed: 1 });
  });

  it('describes the whole cluster for a topic the broker lacks, and creates no topic doing so', async () => {
    const missing = `${prefix}-missing`;

    const reading = await reader.read(missing);

    expect(reading).toEqual({ clusterId: (await admin.describeCluster()).clusterId, topicsDescribed: 'all' });
    expect(await admin.listTopics()).not.toContain(missing);
  });
});
