/**
 * The broker's work per deployed instance, from the running totals bench/kafka-counter.ts writes: what a process's
 * Kafka clients sent during a window, divided by the instances deployed in it. Pure (no I/O), so it has a unit spec.
 */
import { round } from './lib/stats';

/** Running totals of one process: requests by `<role> <ApiName>` (e.g. `consumer Fetch`), records produced. */
export interface KafkaCounts {
  records: number;
  requests: Record<string, number>;
}

export interface KafkaWindow {
  instances: number;
  /** Per deployed instance. */
  recordsPerInstance: number;
  produceRequestsPerInstance: number;
  fetchRequestsPerInstance: number;
  offsetCommitsPerInstance: number;
  heartbeatsPerInstance: number;
  /** Every request of every role (metadata, offsets lookups, group protocol included). */
  requestsPerInstance: number;
  /** Each `<role> <ApiName>` with its count in the window and per instance, most frequent first. */
  byRequest: Array<{ request: string; count: number; perInstance: number }>;
}

export const NO_KAFKA_COUNTS: KafkaCounts = { records: 0, requests: {} };

/** Adds up the totals of several processes (e.g. the simulators of a run, or the replicas). */
export function addKafkaCounts(all: readonly KafkaCounts[]): KafkaCounts {
  const sum: KafkaCounts = { records: 0, requests: {} };
  for (const counts of all) {
    sum.records += counts.records;
    for (const [request, count] of Object.entries(counts.requests)) {
      sum.requests[request] = (sum.requests[request] ?? 0) + count;
    }
  }
  return sum;
}

function apiTotal(requests: Readonly<Record<string, number>>, apiName: string): number {
  return Object.entries(requests)
    .filter(([request]) => request.endsWith(` ${apiName}`))
    .reduce((sum, [, count]) => sum + count, 0);
}

/** What happened between two readings of the same process(es), per instance deployed in between. */
export function kafkaWindow(before: KafkaCounts, after: KafkaCounts, instances: number): KafkaWindow {
  if (!(instances > 0)) {
    throw new Error(`kafkaWindow: instances must be positive, got ${instances}`);
  }
  const requests: Record<string, number> = {};
  for (const [request, count] of Object.entries(after.requests)) {
    const delta = count - (before.requests[request] ?? 0);
    if (delta > 0) {
      requests[request] = delta;
    }
  }
  const per = (count: number): number => round(count / instances, 2);
  const total = Object.values(requests).reduce((sum, count) => sum + count, 0);
  return {
    instances,
    recordsPerInstance: per(after.records - before.records),
    produceRequestsPerInstance: per(apiTotal(requests, 'Produce')),
    fetchRequestsPerInstance: per(apiTotal(requests, 'Fetch')),
    offsetCommitsPerInstance: per(apiTotal(requests, 'OffsetCommit')),
    heartbeatsPerInstance: per(apiTotal(requests, 'Heartbeat')),
    requestsPerInstance: per(total),
    byRequest: Object.entries(requests)
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .map(([request, count]) => ({ request, count, perInstance: per(count) })),
  };
}

/** The table of the report: the runtime's and the participants' broker work per deployed instance, side by side. */
export function kafkaWindowMarkdown(sides: { runtime: KafkaWindow; participant: KafkaWindow }): string {
  const row = (label: string, pick: (window: KafkaWindow) => number): string =>
    `| ${label} | ${pick(sides.runtime)} | ${pick(sides.participant)} |`;
  const requests = [
    ...new Set([...sides.runtime.byRequest, ...sides.participant.byRequest].map((entry) => entry.request)),
  ];
  const perInstance = (window: KafkaWindow, request: string): number =>
    window.byRequest.find((entry) => entry.request === request)?.perInstance ?? 0;
  return [
    `Broker work per deployed instance in the same window (bench/kafka-counter.ts, kafkajs instrumentation events; ${sides.runtime.instances} instances):`,
    '',
    '| per deployed instance | runtime | participant(s) |',
    '| --- | ---: | ---: |',
    row('records produced', (window) => window.recordsPerInstance),
    row('Produce requests', (window) => window.produceRequestsPerInstance),
    row('Fetch requests', (window) => window.fetchRequestsPerInstance),
    row('OffsetCommit requests', (window) => window.offsetCommitsPerInstance),
    row('Heartbeat requests', (window) => window.heartbeatsPerInstance),
    row('all requests', (window) => window.requestsPerInstance),
    ...requests.map(
      (request) =>
        `| ${request} | ${perInstance(sides.runtime, request)} | ${perInstance(sides.participant, request)} |`,
    ),
  ].join('\n');
}

export interface KafkaRates {
  requestsPerS: number;
  fetchPerS: number;
  heartbeatPerS: number;
  byRequest: Array<{ request: string; perS: number }>;
}

/** Requests per second between two readings (a steady state, where nothing is deployed to divide by). */
export function kafkaRates(before: KafkaCounts, after: KafkaCounts, seconds: number): KafkaRates {
  if (!(seconds > 0)) {
    throw new Error(`kafkaRates: seconds must be positive, got ${seconds}`);
  }
  const window = kafkaWindow(before, after, 1);
  const perS = (count: number): number => round(count / seconds, 2);
  return {
    requestsPerS: perS(window.requestsPerInstance),
    fetchPerS: perS(window.fetchRequestsPerInstance),
    heartbeatPerS: perS(window.heartbeatsPerInstance),
    byRequest: window.byRequest.map((entry) => ({ request: entry.request, perS: perS(entry.count) })),
  };
}
