#!/usr/bin/env node
/*
 * Tiny Kafka admin helper used by scripts/services-up.sh (plain JS: it runs before any build).
 *
 *   node scripts/kafka-admin.js ping   <brokers> [timeoutMs]
 *       exit 0 when a broker answers a metadata request (listTopics), 1 otherwise.
 *   node scripts/kafka-admin.js ensure <brokers> <partitions> <topic>...
 *       creates the missing topics (replication factor 1) and waits until the group
 *       coordinator (__consumer_offsets) is ready, so the first test does not pay for it.
 */
'use strict';

const { Kafka, logLevel } = require('kafkajs');

const [command, brokersArg, ...rest] = process.argv.slice(2);

function usage() {
  process.stderr.write('usage: kafka-admin.js ping <brokers> [timeoutMs] | ensure <brokers> <partitions> <topic>...\n');
  process.exit(2);
}

if (!command || !brokersArg) {
  usage();
}

const brokers = brokersArg.split(',').map((b) => b.trim());

function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function ping(timeoutMs) {
  const kafka = new Kafka({
    clientId: 'acm-services-ping',
    brokers,
    logLevel: logLevel.NOTHING,
    connectionTimeout: Math.min(timeoutMs, 3000),
    requestTimeout: timeoutMs,
    retry: { retries: 0 },
  });
  const admin = kafka.admin({ retry: { retries: 0 } });
  try {
    await withTimeout(
      (async () => {
        await admin.connect();
        await admin.listTopics();
      })(),
      timeoutMs,
      'ping',
    );
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

async function ensure(partitions, topics) {
  const kafka = new Kafka({
    clientId: 'acm-services-admin',
    brokers,
    logLevel: logLevel.NOTHING,
    retry: { retries: 10, initialRetryTime: 200, maxRetryTime: 2000 },
  });
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = topics.filter((t) => !existing.has(t));
    if (missing.length > 0) {
      // kafkajs' waitForLeaders fails on the UNKNOWN_TOPIC_OR_PARTITION a KRaft broker answers for a new
      // topic at first, and on a topic a client (a runtime that found the broker empty) created meanwhile:
      // create without it, then poll until every partition answers.
      await admin.createTopics({
        waitForLeaders: false,
        topics: missing.map((topic) => ({ topic, numPartitions: partitions, replicationFactor: 1 })),
      });
      for (const topic of missing) {
        for (let attempt = 1; ; attempt++) {
          try {
            await admin.fetchTopicOffsets(topic);
            break;
          } catch (err) {
            if (!(err && err.retriable) || attempt >= 200) {
              throw err;
            }
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
        }
      }
    }
    // Warm the group coordinator: the first FindCoordinator creates __consumer_offsets, which
    // answers COORDINATOR_NOT_AVAILABLE / NOT_COORDINATOR for a moment on a fresh broker.
    for (let attempt = 1; ; attempt++) {
      try {
        await admin.fetchOffsets({ groupId: 'acm-services-warmup', topics: topics.slice(0, 1) });
        break;
      } catch (err) {
        if (attempt >= 60) {
          throw err;
        }
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
    if (missing.length > 0) {
      process.stdout.write(`created topics: ${missing.join(', ')}\n`);
    }
  } finally {
    await admin.disconnect();
  }
}

async function main() {
  switch (command) {
    case 'ping':
      await ping(Number(rest[0] ?? 5000));
      break;
    case 'ensure': {
      const partitions = Number(rest[0]);
      const topics = rest.slice(1);
      if (!Number.isInteger(partitions) || partitions < 1 || topics.length === 0) {
        usage();
      }
      await withTimeout(ensure(partitions, topics), 60000, 'ensure');
      break;
    }
    default:
      usage();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    if (command !== 'ping') {
      process.stderr.write(`kafka-admin ${command} failed: ${err && err.stack ? err.stack : err}\n`);
    }
    process.exit(1);
  },
);
