/**
 * B1 latency: one instance of the 3-phase × 2-element composition deployed at a time. The figure is
 * the runtime's own record of each DEPLOY operation (history endpoint: finishedAt − startedAt), not a
 * client-side poll. In the same run, the raw Kafka round trip with the runtime's client settings
 * (produce → consume → produce → consume) gives the floor: a 3-phase deploy needs at least 3.
 */
import { measureKafkaRoundTrip } from '@acm/messaging';
import type { RoundTripResult } from '@acm/messaging';
import type { HistoryEvent } from './lib/acm';
import {
  commissionAndPrime,
  freshInstance,
  instanceHistory,
  instantiate,
  order,
  readInstanceTemplate,
  recordedDuration,
  renamedTemplate,
  repoFile,
} from './lib/acm';
import { harnessBus } from './lib/harness-bus';
import { PhaseTap } from './lib/phase-tap';
import type { Stack } from './lib/stack';
import { deleteTopics, listTopics } from './lib/stack';
import type { Summary } from './lib/stats';
import { round, summarize } from './lib/stats';
import { log, until } from './lib/util';
import { OperationWatcher } from './lib/watcher';

export const THREE_PHASE_YAML = 'tosca/examples/sim-three-phase.yaml';
export const THREE_PHASE_INSTANCE = 'tosca/examples/instances/sim-three-phase.json';
const WARMUP_DEPLOYS = 5;

export interface B1Result {
  instances: number;
  warmupDeploys: number;
  phases: number;
  elementsPerInstance: number;
  /** Runtime-recorded DEPLOY durations (ms; the runtime stores millisecond timestamps). */
  deployMs: Summary;
  /** Deploy order sent → DEPLOYED seen by the harness (includes the watcher's 5 ms polling), for context. */
  clientObservedMs: Summary;
  failed: number;
  /** Per phase: PHASE_STARTED → first ELEMENT_RESULT (ms, runtime events). */
  phaseDispatchToFirstAckMs: Summary;
  /** Per phase: first → last ELEMENT_RESULT, i.e. applying one of the phase's two ACKs (ms). */
  phaseFirstToLastAckMs: Summary;
  /** The first of those split by the records' own stamps (bench/lib/phase-tap.ts), ms. */
  phaseHops?: PhaseHops;
  kafkaRoundTrip: RoundTripResult;
  /** p50 deploy ÷ (phases × p50 round trip); target ≤ 1.5. */
  ratio: number;
}

/**
 * Splits each phase of a deploy, from the runtime's own events (ms timestamps taken when each
 * transaction starts): PHASE_STARTED → first ELEMENT_RESULT is the order's way out (commit, outbox
 * relay, Kafka), the participant's work and the first ACK's way back; first → last ELEMENT_RESULT of
 * the phase is mostly the time the runtime spends applying one ACK (ACKs of one participant share a
 * partition key and are consumed one after the other).
 */
export interface PhaseHops {
  /** PHASE_STARTED → the phase message stamped by its producer: the deciding transaction, commit, outbox relay. */
  startedToOrderSentMs: Summary;
  /** The phase message's stamp → the first ACK's: one hop and the participant's work. */
  orderSentToAckSentMs: Summary;
  /** The first ACK's stamp → its ELEMENT_RESULT (the applying transaction's start): one hop, the runtime's consumer. */
  ackSentToApplyMs: Summary;
}

/** The three parts of each phase's PHASE_STARTED → first ELEMENT_RESULT, where the tap read both records. */
function collectPhaseHops(
  events: readonly HistoryEvent[],
  operationId: string,
  instanceId: string,
  tap: PhaseTap,
  hops: { out: number[]; participant: number[]; back: number[] },
): void {
  const mine = events.filter((event) => event.operationId === operationId);
  const at = (event: HistoryEvent): number => Date.parse(event.at);
  for (const started of mine.filter((event) => event.event === 'PHASE_STARTED')) {
    const phase = started.detail['phase'];
    const first = mine.find((event) => event.event === 'ELEMENT_RESULT' && event.detail['phase'] === phase);
    const tapped = typeof phase === 'number' ? tap.phase(instanceId, phase) : undefined;
    if (first !== undefined && tapped !== undefined) {
      hops.out.push(tapped.sentAt - at(started));
      hops.participant.push(tapped.firstAckSentAt - tapped.sentAt);
      hops.back.push(at(first) - tapped.firstAckSentAt);
    }
  }
}

export function collectPhaseGaps(
  events: readonly HistoryEvent[],
  operationId: string,
  dispatch: number[],
  spacing: number[],
) {
  const mine = events.filter((event) => event.operationId === operationId);
  const phases = new Set(mine.map((event) => event.detail['phase']).filter((phase) => typeof phase === 'number'));
  for (const phase of phases) {
    const at = (event: HistoryEvent): number => Date.parse(event.at);
    const started = mine.find((event) => event.event === 'PHASE_STARTED' && event.detail['phase'] === phase);
    const results = mine.filter((event) => event.event === 'ELEMENT_RESULT' && event.detail['phase'] === phase);
    const first = results[0];
    const last = results[results.length - 1];
    if (started !== undefined && first !== undefined && last !== undefined) {
      dispatch.push(at(first) - at(started));
      spacing.push(at(last) - at(first));
    }
  }
}

export async function measureRoundTrip(brokers: string[], runId: string, iterations: number): Promise<RoundTripResult> {
  const prefix = `acm-bench-rt-${runId}`;
  const bus = harnessBus(brokers, 'acm-bench', 'kafka');
  try {
    return await measureKafkaRoundTrip(bus, { iterations, warmup: 20, topicPrefix: prefix });
  } finally {
    await bus.close();
    await deleteTopics(brokers, await listTopics(brokers, prefix).catch(() => []));
  }
}

export async function runB1(stack: Stack, brokers: string[], runId: string, n: number): Promise<B1Result> {
  log(`B1: Kafka round trip (${Math.max(100, n)} iterations + 20 warm-up)`);
  const kafkaRoundTrip = await measureRoundTrip(brokers, runId, Math.max(100, n));
  log(`B1: round trip p50 ${kafkaRoundTrip.p50Ms} ms; commissioning the 3-phase composition`);
  const compositionId = await commissionAndPrime(
    stack.api,
    renamedTemplate(repoFile(THREE_PHASE_YAML), `bench.b1.${runId}`),
  );
  const template = readInstanceTemplate(THREE_PHASE_INSTANCE);
  const watcher = new OperationWatcher(stack.pool, 'DEPLOY');
  watcher.start();
  const tap = new PhaseTap(brokers, stack.topics.operation, `acm-bench-tap-${runId}`);
  await tap.start();
  const hops = { out: [] as number[], participant: [] as number[], back: [] as number[] };
  const durations: number[] = [];
  const observed: number[] = [];
  const dispatch: number[] = [];
  const spacing: number[] = [];
  let failed = 0;
  try {
    for (let index = 0; index < WARMUP_DEPLOYS + n; index += 1) {
      const body = freshInstance(template, compositionId, `bench-b1-${index}`);
      const instanceId = await instantiate(stack.api, body);
      const sent = performance.now();
      await order(stack.api, compositionId, instanceId, { deployOrder: 'DEPLOY' }, 'deploy');
      const state = await watcher.finished(instanceId, 60_000);
      const seen = performance.now() - sent;
      if (index < WARMUP_DEPLOYS) {
        continue;
      }
      const history = await instanceHistory(stack.api, compositionId, instanceId);
      const operation = recordedDuration(history.operations, 'DEPLOY');
      if (state !== 'COMPLETED' || operation?.durationMs === undefined) {
        failed += 1;
        continue;
      }
      durations.push(operation.durationMs);
      collectPhaseGaps(history.events, operation.operationId, dispatch, spacing);
      // The tap reads beside the runtime: it may not have read the last ACK yet.
      await until(
        'the tap to read every phase',
        5_000,
        () => Promise.resolve([0, 1, 2].every((phase) => tap.phase(instanceId, phase) !== undefined)),
        5,
      ).catch(() => undefined);
      collectPhaseHops(history.events, operation.operationId, instanceId, tap, hops);
      observed.push(seen);
      if ((index - WARMUP_DEPLOYS + 1) % 50 === 0) {
        log(`B1: ${index - WARMUP_DEPLOYS + 1}/${n} deployed`);
      }
    }
  } finally {
    await watcher.stop();
    await tap.stop();
  }
  const deployMs = summarize(durations);
  return {
    instances: n,
    warmupDeploys: WARMUP_DEPLOYS,
    phases: 3,
    elementsPerInstance: 6,
    deployMs,
    clientObservedMs: summarize(observed),
    failed,
    phaseDispatchToFirstAckMs: summarize(dispatch),
    phaseFirstToLastAckMs: summarize(spacing),
    phaseHops: {
      startedToOrderSentMs: summarize(hops.out),
      orderSentToAckSentMs: summarize(hops.participant),
      ackSentToApplyMs: summarize(hops.back),
    },
    kafkaRoundTrip,
    ratio: round(deployMs.p50 / (3 * kafkaRoundTrip.p50Ms)),
  };
}
