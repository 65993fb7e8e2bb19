/**
 * Preloaded into a runtime or participant process (`node --require dist-bench/bench/kafka-counter.js`): counts the
 * requests its Kafka clients send to the broker, by client role and protocol API (Produce, Fetch, OffsetCommit,
 * Heartbeat, Metadata, ...), from kafkajs' own instrumentation events (`producer.events.REQUEST`,
 * `consumer.events.REQUEST`, `admin.events.REQUEST`), and the records the producers hand to `send`/`sendBatch`. The
 * running totals go to BENCH_KAFKA_COUNT_FILE every 200 ms. It only listens and counts: nothing the clients send
 * changes. Not seen: the bus's cluster-id probe (one Metadata request a second on its own connection, a fixed cost
 * per process, not per transition).
 */
import { writeFileSync } from 'node:fs';
import { Kafka } from 'kafkajs';
import type { Admin, Consumer, Producer } from 'kafkajs';

import type { KafkaCounts } from './kafka-counts';

type Role = 'producer' | 'consumer' | 'admin';

let installed: KafkaCounts | undefined;

/**
 * Starts counting in this process (once; later calls return the same running totals). Only clients created after
 * the first call are counted.
 */
export function startKafkaCounting(): KafkaCounts {
  if (installed !== undefined) {
    return installed;
  }
  const counts: KafkaCounts = { records: 0, requests: {} };
  installed = counts;
  const count = (role: Role, apiName: string): void => {
    const key = `${role} ${apiName}`;
    counts.requests[key] = (counts.requests[key] ?? 0) + 1;
  };
  const prototype = Kafka.prototype as unknown as {
    producer: (...args: unknown[]) => Producer;
    consumer: (...args: unknown[]) => Consumer;
    admin: (...args: unknown[]) => Admin;
  };
  const originalProducer = prototype.producer;
  prototype.producer = function (this: unknown, ...args: unknown[]): Producer {
    const producer = originalProducer.apply(this, args);
    producer.on(producer.events.REQUEST, ({ payload }) => count('producer', payload.apiName));
    const send = producer.send.bind(producer);
    const sendBatch = producer.sendBatch.bind(producer);
    producer.send = (record) => {
      counts.records += record.messages.length;
      return send(record);
    };
    producer.sendBatch = (batch) => {
      counts.records += (batch.topicMessages ?? []).reduce((sum, entry) => sum + entry.messages.length, 0);
      return sendBatch(batch);
    };
    return producer;
  };
  const originalConsumer = prototype.consumer;
  prototype.consumer = function (this: unknown, ...args: unknown[]): Consumer {
    const consumer = originalConsumer.apply(this, args);
    consumer.on(consumer.events.REQUEST, ({ payload }) => count('consumer', payload.apiName));
    return consumer;
  };
  const originalAdmin = prototype.admin;
  prototype.admin = function (this: unknown, ...args: unknown[]): Admin {
    const admin = originalAdmin.apply(this, args);
    admin.on(admin.events.REQUEST, ({ payload }) => count('admin', payload.apiName));
    return admin;
  };
  return counts;
}

const target = process.env['BENCH_KAFKA_COUNT_FILE'];
if (target !== undefined && target !== '') {
  const counts = startKafkaCounting();
  const write = (): void => writeFileSync(target, JSON.stringify(counts));
  setInterval(write, 200).unref();
  process.once('exit', write);
}
