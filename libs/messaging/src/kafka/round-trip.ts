/**
 * Measures the latency of the bus itself, the floor under every runtime phase: one round trip is
 * produce → consume → produce → consume (a "runtime" sends an order, a "participant" answers, the
 * runtime receives the answer). A measurement, not a test: it asserts nothing about time. Works on
 * any MessageBus; named after Kafka because that is the one worth measuring.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';

import type { MessageBus } from '../message-bus';

export interface RoundTripOptions {
  /** Measured round trips. */
  iterations: number;
  /** Round trips run first and discarded (connections, metadata, JIT). Default 20. */
  warmup?: number;
  /** Prefix of the two random topic names. Default `acm-round-trip`. */
  topicPrefix?: string;
  /** Longest wait for one answer before giving up. Default 10 000 ms. */
  timeoutMs?: number;
}

export interface RoundTripResult {
  iterations: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  minMs: number;
  maxMs: number;
  meanMs: number;
}

/** Nearest-rank percentile of ascending `sorted`. */
function percentile(sorted: readonly number[], fraction: number): number {
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

const round = (ms: number): number => Math.round(ms * 100) / 100;

/** Ping-pongs `warmup + iterations` times over two fresh topics and reports one round trip's latency. */
export async function measureKafkaRoundTrip(bus: MessageBus, options: RoundTripOptions): Promise<RoundTripResult> {
  const prefix = options.topicPrefix ?? 'acm-round-trip';
  const run = randomUUID();
  const pingTopic = `${prefix}-ping-${run}`;
  const pongTopic = `${prefix}-pong-${run}`;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const waiting = new Map<string, () => void>();

  const responder = await bus.subscribe({
    topic: pingTopic,
    groupId: `${prefix}-responder-${run}`,
    handler: (record) => bus.publish(pongTopic, [{ key: record.key, value: record.value }]),
  });
  const listener = await bus.subscribe({
    topic: pongTopic,
    groupId: `${prefix}-listener-${run}`,
    handler: (record) => {
      waiting.get(record.value)?.();
      return Promise.resolve();
    },
  });

  const once = async (): Promise<number> => {
    const id = randomUUID();
    let timer: NodeJS.Timeout | undefined;
    const answered = new Promise<void>((resolve, reject) => {
      waiting.set(id, resolve);
      timer = setTimeout(() => reject(new Error(`No answer within ${timeoutMs} ms`)), timeoutMs);
    });
    const start = performance.now();
    try {
      await bus.publish(pingTopic, [{ key: id, value: id }]);
      await answered;
      return performance.now() - start;
    } finally {
      clearTimeout(timer);
      waiting.delete(id);
    }
  };

  try {
    for (let index = 0; index < (options.warmup ?? 20); index += 1) {
      await once();
    }
    const samples: number[] = [];
    for (let index = 0; index < options.iterations; index += 1) {
      samples.push(await once());
    }
    const sorted = [...samples].sort((a, b) => a - b);
    return {
      iterations: samples.length,
      p50Ms: round(percentile(sorted, 0.5)),
      p95Ms: round(percentile(sorted, 0.95)),
      p99Ms: round(percentile(sorted, 0.99)),
      minMs: round(sorted[0] ?? Number.NaN),
      maxMs: round(sorted[sorted.length - 1] ?? Number.NaN),
      meanMs: round(samples.reduce((sum, sample) => sum + sample, 0) / Math.max(1, samples.length)),
    };
  } finally {
    await Promise.all([responder.close(), listener.close()]);
  }
}
