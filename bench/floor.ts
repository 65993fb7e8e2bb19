/**
 * FLOOR: what the transport alone costs at the pattern of B1 and B2. The runtime's side (in this process) and a
 * participant (bench/floor-participant.ts, its own process) play the 3-phase × 2-element deploy over one operation
 * topic, as ONAP lays it out, with the product's bus (kafkajs and its settings) and codec, and nothing else: no
 * database, no engine, no SDK. Each phase is one order out and, per element, one info and one ACK back; the next
 * order leaves once both ACKs are in. The figures bound what B1 and B2 can reach on this machine: the runtime and
 * the simulator can only add to them.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { decodeMessage, isForOthers } from '@acm/contracts';
import type { RoundTripResult } from '@acm/messaging';
import { measureRoundTrip } from './b1-latency';
import type { FloorInstance } from './lib/floor-messages';
import {
  CoalescingSender,
  FLOOR_ELEMENTS,
  FLOOR_ELEMENTS_PER_PHASE,
  FLOOR_PHASES,
  deployOrder,
  floorInstance,
  phaseAnswers,
} from './lib/floor-messages';
import { harnessBus } from './lib/harness-bus';
import { BUILD_DIR, NodeProcess } from './lib/processes';
import { ProcessGroupCpu, SERVICE_PROCESSES, busyShare, machineCpu, processCpuSeconds } from './lib/procfs';
import { deleteTopics } from './lib/stack';
import type { Summary } from './lib/stats';
import { round, summarize } from './lib/stats';
import { log, pool, sleep, until } from './lib/util';
import { startKafkaCounting } from './kafka-counter';
import type { KafkaCounts, KafkaWindow } from './kafka-counts';
import { NO_KAFKA_COUNTS, kafkaWindow } from './kafka-counts';

const WARMUP = 20;
/** A deploy that has not finished by then lost a record: the run fails instead of hanging. */
const DEPLOY_TIMEOUT_MS = 60_000;
const PARTICIPANT_SCRIPT = join(BUILD_DIR, 'bench/floor-participant.js');

export interface FloorPattern {
  /** Broker requests and records per deployed instance of each side (bench/kafka-counter.ts). */
  kafka: { runtime: KafkaWindow; participant: KafkaWindow };
  instances: number;
  inFlight: number;
  /** Order of phase 0 sent → last ACK of phase 2 read, per deploy. */
  deployMs: Summary;
  windowS: number;
  elementTransitionsPerS: number;
  /** CPU per deployed instance of the runtime's side (this process, harness bookkeeping included). */
  runtimeSideCpuMsPerInstance: number;
  participantCpuMsPerInstance: number;
  kafkaCpuMsPerInstance: number;
  machineBusyPct: number;
}

export interface FloorResult {
  phases: number;
  elementsPerInstance: number;
  /** Bytes of one phase order, one info and one ACK as encoded. */
  recordBytes: { order: number; info: number; ack: number };
  kafkaRoundTrip: RoundTripResult;
  /** B1's pattern: one deploy at a time. */
  sequential: FloorPattern;
  /** sequential p50 ÷ (phases × round trip p50): B1's ratio with nothing but the transport. */
  sequentialRatio: number;
  /** B2's pattern: many deploys in flight. */
  concurrent: FloorPattern;
}

interface Deploying {
  instance: FloorInstance;
  phase: number;
  acks: number;
  done: () => void;
}

/** The runtime's side: sends each phase's order and counts the ACKs that answer it. */
class FloorRuntimeSide {
  private readonly deploying = new Map<string, Deploying>();

  constructor(private readonly sender: CoalescingSender) {}

  deploy(instance: FloorInstance): Promise<number> {
    const start = performance.now();
    return new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.deploying.delete(instance.instanceId);
        reject(new Error(`deploy of ${instance.instanceId} unfinished after ${DEPLOY_TIMEOUT_MS} ms`));
      }, DEPLOY_TIMEOUT_MS);
      this.deploying.set(instance.instanceId, {
        instance,
        phase: 0,
        acks: 0,
        done: () => {
          clearTimeout(timer);
          resolve(performance.now() - start);
        },
      });
      this.sender.send([deployOrder(instance, 0)]).catch(reject);
    });
  }

  onBatch(values: readonly string[]): void {
    for (const value of values) {
      if (isForOthers(value, 'runtime')) {
        continue;
      }
      const decoded = decodeMessage(value);
      if (!decoded.ok || decoded.message.messageType !== 'AUTOMATION_COMPOSITION_STATECHANGE_ACK') {
        continue;
      }
      const deploying = this.deploying.get(decoded.message.automationCompositionId);
      if (deploying === undefined) {
        continue;
      }
      deploying.acks += 1;
      if (deploying.acks < FLOOR_ELEMENTS_PER_PHASE) {
        continue;
      }
      deploying.phase += 1;
      deploying.acks = 0;
      if (deploying.phase === FLOOR_PHASES) {
        this.deploying.delete(deploying.instance.instanceId);
        deploying.done();
      } else {
        this.sender.send([deployOrder(deploying.instance, deploying.phase)]).catch((error: unknown) => {
          log(`FLOOR: order of ${deploying.instance.instanceId} not sent: ${String(error)}`);
        });
      }
    }
  }
}

/** Where the floor's broker requests are counted: this process's running totals and the participant's file. */
interface FloorCounting {
  runtime: KafkaCounts;
  participantFile: string;
}

function participantCounts(file: string): KafkaCounts {
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as KafkaCounts) : NO_KAFKA_COUNTS;
}

async function runPattern(
  side: FloorRuntimeSide,
  counting: FloorCounting,
  participantPid: number,
  compositionId: string,
  participantId: string,
  n: number,
  inFlight: number,
): Promise<FloorPattern> {
  const warmup = Array.from({ length: WARMUP }, () => floorInstance(compositionId, participantId));
  await pool(warmup, inFlight, async (instance) => {
    await side.deploy(instance);
  });
  const instances = Array.from({ length: n }, () => floorInstance(compositionId, participantId));
  const durations: number[] = [];
  const kafkaCpu = new ProcessGroupCpu(SERVICE_PROCESSES.kafka);
  kafkaCpu.start();
  const ownBefore = process.cpuUsage();
  const participantBefore = processCpuSeconds(participantPid);
  const machineBefore = machineCpu();
  // The participant writes its totals every 200 ms: wait for a fresh reading at both ends of the window.
  await sleep(400);
  const countsBefore = {
    runtime: structuredClone(counting.runtime),
    participant: participantCounts(counting.participantFile),
  };
  const start = performance.now();
  await pool(instances, inFlight, async (instance) => {
    durations.push(await side.deploy(instance));
  });
  const windowS = (performance.now() - start) / 1000;
  const own = process.cpuUsage(ownBefore);
  const participantCpuS = processCpuSeconds(participantPid) - participantBefore;
  const kafkaCpuS = kafkaCpu.stop();
  const machineBusy = busyShare(machineBefore, machineCpu());
  const runtimeCountsAfter = structuredClone(counting.runtime);
  await sleep(400);
  const kafka = {
    runtime: kafkaWindow(countsBefore.runtime, runtimeCountsAfter, n),
    participant: kafkaWindow(countsBefore.participant, participantCounts(counting.participantFile), n),
  };
  const perInstance = (seconds: number): number => round((seconds * 1000) / n, 2);
  return {
    kafka,
    instances: n,
    inFlight,
    deployMs: summarize(durations),
    windowS: round(windowS, 2),
    elementTransitionsPerS: round((n * FLOOR_ELEMENTS) / windowS, 0),
    runtimeSideCpuMsPerInstance: perInstance((own.user + own.system) / 1e6),
    participantCpuMsPerInstance: perInstance(participantCpuS),
    kafkaCpuMsPerInstance: perInstance(kafkaCpuS),
    machineBusyPct: round(machineBusy * 100, 0),
  };
}

export async function runFloor(
  brokers: string[],
  runId: string,
  logDir: string,
  sequentialInstances: number,
  concurrentInstances: number,
  inFlight: number,
): Promise<FloorResult> {
  log(`FLOOR: Kafka round trip (${Math.max(100, sequentialInstances)} iterations + 20 warm-up)`);
  const kafkaRoundTrip = await measureRoundTrip(brokers, `${runId}-floor`, Math.max(100, sequentialInstances));
  const topic = `acm-bench-floor-${runId}`;
  const participantId = randomUUID();
  const compositionId = randomUUID();
  const readyFile = join(logDir, 'floor-participant.ready');
  const counting = {
    runtime: startKafkaCounting(),
    participantFile: join(logDir, 'floor-kafka-counts-participant.json'),
  };
  rmSync(readyFile, { force: true });
  const participant = new NodeProcess(
    'floor-participant',
    PARTICIPANT_SCRIPT,
    {
      FLOOR_BROKERS: brokers.join(','),
      FLOOR_TOPIC: topic,
      FLOOR_GROUP: `acm-bench-floor-participant-${runId}`,
      FLOOR_PARTICIPANT_ID: participantId,
      FLOOR_READY_FILE: readyFile,
      BENCH_KAFKA_COUNT_FILE: counting.participantFile,
    },
    logDir,
    ['--require', join(BUILD_DIR, 'bench/kafka-counter.js')],
  );
  const bus = harnessBus(brokers, 'acm-floor-runtime', 'kafka');
  try {
    participant.start();
    await until('the floor participant to subscribe', 60_000, () =>
      Promise.resolve(existsSync(readyFile) || !participant.alive),
    );
    if (!participant.alive) {
      throw new Error(`the floor participant exited; see ${join(logDir, 'floor-participant.log')}`);
    }
    const side = new FloorRuntimeSide(new CoalescingSender(bus, topic));
    const subscription = await bus.subscribeBatch({
      topic,
      groupId: `acm-bench-floor-runtime-${runId}`,
      handler: (records) => {
        side.onBatch(records.map((record) => record.value));
        return Promise.resolve();
      },
    });
    try {
      const sample = floorInstance(compositionId, participantId);
      const order = deployOrder(sample, 0);
      const decoded = decodeMessage(order.value);
      const answers =
        decoded.ok && decoded.message.messageType === 'AUTOMATION_COMPOSITION_DEPLOY'
          ? phaseAnswers(decoded.message, randomUUID())
          : [];
      const recordBytes = {
        order: Buffer.byteLength(order.value),
        info: Buffer.byteLength(answers[0]?.value ?? ''),
        ack: Buffer.byteLength(answers[1]?.value ?? ''),
      };
      log(`FLOOR: ${sequentialInstances} deploys one at a time`);
      const sequential = await runPattern(
        side,
        counting,
        participant.pid,
        compositionId,
        participantId,
        sequentialInstances,
        1,
      );
      log(`FLOOR: ${concurrentInstances} deploys, ${inFlight} in flight`);
      const concurrent = await runPattern(
        side,
        counting,
        participant.pid,
        compositionId,
        participantId,
        concurrentInstances,
        inFlight,
      );
      return {
        phases: FLOOR_PHASES,
        elementsPerInstance: FLOOR_ELEMENTS,
        recordBytes,
        kafkaRoundTrip,
        sequential,
        sequentialRatio: round(sequential.deployMs.p50 / (FLOOR_PHASES * kafkaRoundTrip.p50Ms), 2),
        concurrent,
      };
    } finally {
      await subscription.close();
    }
  } finally {
    await participant.stop();
    await bus.close();
    await deleteTopics(brokers, [topic]);
  }
}
