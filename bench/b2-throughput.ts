/**
 * B2 throughput: N instances of the 3-phase × 2-element composition, created first, then deployed
 * with a fixed number of deploy orders in flight. Rates come from the runtime's own operation records
 * (first startedAt → last finishedAt); CPU from /proc/<pid>/stat of the runtime, RSS from
 * /proc/<pid>/status (sampled every 100 ms, and VmHWM).
 */
import { existsSync, readFileSync } from 'node:fs';
import { THREE_PHASE_INSTANCE, THREE_PHASE_YAML } from './b1-latency';
import {
  commissionAndPrime,
  freshInstance,
  instantiate,
  order,
  readInstanceTemplate,
  renamedTemplate,
  repoFile,
} from './lib/acm';
import {
  ProcessGroupCpu,
  RssSampler,
  SERVICE_PROCESSES,
  busyShare,
  machineCpu,
  processCpuSeconds,
  processMemory,
} from './lib/procfs';
import type { Stack } from './lib/stack';
import type { Summary } from './lib/stats';
import { round, summarize } from './lib/stats';
import { log, pool, sleep } from './lib/util';
import type { SqlCounts } from './sql-counter';
import type { KafkaCounts, KafkaWindow } from './kafka-counts';
import { NO_KAFKA_COUNTS, addKafkaCounts, kafkaWindow } from './kafka-counts';
import { OperationWatcher } from './lib/watcher';

const ELEMENTS = 6;
const WARMUP = 20;
const CREATE_CONCURRENCY = 8;

export interface B2Result {
  instances: number;
  inFlight: number;
  elementsPerInstance: number;
  /** Creating the instances (POST, before the deploy window), instances/s. */
  instantiatePerS: number;
  /** First deploy startedAt → last finishedAt, as recorded by the runtime. */
  windowS: number;
  instancesPerS: number;
  elementTransitionsPerS: number;
  /** First order sent → last DEPLOYED seen by the harness. */
  clientWindowS: number;
  deployMsUnderLoad: Summary;
  runtimeCpuS: number;
  runtimeCpuMsPerInstance: number;
  simulatorCpuMsPerInstance: number;
  /** Every PostgreSQL process on the machine, and the Kafka broker, during the window (ms per instance). */
  postgresCpuMsPerInstance: number;
  kafkaCpuMsPerInstance: number;
  /** Share of both CPUs busy during the window (everything: runtime, simulator, PostgreSQL, Kafka, harness). */
  machineBusyPct: number;
  runtimePeakRssMb: number;
  runtimeVmHwmMb: number;
  failed: number;
}

export interface SqlWindow {
  total: number;
  transactions: number;
  perElementTransition: number;
  transactionsPerElementTransition: number;
  byKind: Array<{ kind: string; count: number; perElementTransition: number }>;
}

export interface B2Run {
  result: B2Result;
  /** SQL statements the runtime sent during the window (only when it runs with bench/sql-counter). */
  sql?: SqlWindow;
  /** Broker requests and records per deployed instance (only when the processes run with bench/kafka-counter). */
  kafka?: { runtime: KafkaWindow; participant: KafkaWindow };
  /** The deploy window on CLOCK_MONOTONIC in µs (the clock of V8's .cpuprofile timestamps). */
  windowUs: { from: number; to: number };
}

const monotonicUs = (): number => Number(process.hrtime.bigint() / 1000n);

function readCounts(file: string | undefined): SqlCounts | undefined {
  if (file === undefined || !existsSync(file)) {
    return undefined;
  }
  return JSON.parse(readFileSync(file, 'utf8')) as SqlCounts;
}

function readKafkaCounts(files: readonly string[]): KafkaCounts {
  return addKafkaCounts(
    files.map((file) => (existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as KafkaCounts) : NO_KAFKA_COUNTS)),
  );
}

/** Where the runtime's and the simulators' bench/kafka-counter write their totals. */
export interface KafkaCountFiles {
  runtime: string;
  participants: readonly string[];
}

function sqlWindow(before: SqlCounts, after: SqlCounts, elementTransitions: number): SqlWindow {
  const byKind = Object.entries(after.byKind)
    .map(([kind, count]) => ({ kind, count: count - (before.byKind[kind] ?? 0) }))
    .filter((entry) => entry.count > 0)
    .sort((a, b) => b.count - a.count)
    .map((entry) => ({ ...entry, perElementTransition: round(entry.count / elementTransitions, 2) }));
  const total = after.total - before.total;
  const transactions = byKind.find((entry) => entry.kind === 'BEGIN')?.count ?? 0;
  return {
    total,
    transactions,
    perElementTransition: round(total / elementTransitions, 1),
    transactionsPerElementTransition: round(transactions / elementTransitions, 2),
    byKind,
  };
}

export async function runB2(
  stack: Stack,
  runId: string,
  n: number,
  inFlight: number,
  label = 'B2',
  sqlCountFile?: string,
  kafkaCountFiles?: KafkaCountFiles,
): Promise<B2Run> {
  const compositionId = await commissionAndPrime(
    stack.api,
    renamedTemplate(repoFile(THREE_PHASE_YAML), `bench.${label.toLowerCase()}.${runId}`),
  );
  const template = readInstanceTemplate(THREE_PHASE_INSTANCE);

  log(`${label}: creating ${WARMUP} + ${n} instances`);
  const warmupIds: string[] = [];
  await pool(
    Array.from({ length: WARMUP }, (_, index) => index),
    CREATE_CONCURRENCY,
    async (index) => {
      warmupIds.push(await instantiate(stack.api, freshInstance(template, compositionId, `bench-${label}-w${index}`)));
    },
  );
  const ids: string[] = [];
  const createStart = performance.now();
  await pool(
    Array.from({ length: n }, (_, index) => index),
    CREATE_CONCURRENCY,
    async (index) => {
      ids.push(await instantiate(stack.api, freshInstance(template, compositionId, `bench-${label}-${index}`)));
    },
  );
  const instantiatePerS = n / ((performance.now() - createStart) / 1000);

  const watcher = new OperationWatcher(stack.pool, 'DEPLOY');
  watcher.start();
  let failed = 0;
  const deploy = async (instanceId: string): Promise<void> => {
    try {
      await order(stack.api, compositionId, instanceId, { deployOrder: 'DEPLOY' }, 'deploy');
      if ((await watcher.finished(instanceId, 120_000)) !== 'COMPLETED') {
        failed += 1;
      }
    } catch (error) {
      failed += 1;
      if (failed <= 5) {
        log(`${label}: deploy of ${instanceId} failed: ${String(error)}`);
      }
    }
  };
  try {
    log(`${label}: warm-up (${WARMUP} deploys)`);
    await pool(warmupIds, Math.min(inFlight, WARMUP), deploy);
    failed = 0;

    log(`${label}: deploying ${n} instances, ${inFlight} in flight`);
    const simulatorPids = stack.simulators.map((simulator) => simulator.pid);
    const simCpu = (): number => simulatorPids.reduce((sum, pid) => sum + processCpuSeconds(pid), 0);
    await sleep(sqlCountFile === undefined && kafkaCountFiles === undefined ? 0 : 400);
    const sqlBefore = readCounts(sqlCountFile);
    const kafkaBefore =
      kafkaCountFiles === undefined
        ? undefined
        : {
            runtime: readKafkaCounts([kafkaCountFiles.runtime]),
            participant: readKafkaCounts(kafkaCountFiles.participants),
          };
    const rss = new RssSampler(stack.runtimePid);
    const cpuBefore = processCpuSeconds(stack.runtimePid);
    const simBefore = simCpu();
    const postgresCpu = new ProcessGroupCpu(SERVICE_PROCESSES.postgres);
    const kafkaCpu = new ProcessGroupCpu(SERVICE_PROCESSES.kafka);
    postgresCpu.start();
    kafkaCpu.start();
    const machineBefore = machineCpu();
    rss.start();
    const fromUs = monotonicUs();
    const start = performance.now();
    await pool(ids, inFlight, deploy);
    const clientWindowS = (performance.now() - start) / 1000;
    const toUs = monotonicUs();
    const runtimeCpuS = processCpuSeconds(stack.runtimePid) - cpuBefore;
    const simulatorCpuS = simCpu() - simBefore;
    const postgresCpuS = postgresCpu.stop();
    const kafkaCpuS = kafkaCpu.stop();
    const machineBusy = busyShare(machineBefore, machineCpu());
    const peakRss = rss.stop();
    const memory = processMemory(stack.runtimePid);
    await sleep(sqlCountFile === undefined && kafkaCountFiles === undefined ? 0 : 400);
    const sqlAfter = readCounts(sqlCountFile);
    const kafka =
      kafkaCountFiles === undefined || kafkaBefore === undefined
        ? undefined
        : {
            runtime: kafkaWindow(kafkaBefore.runtime, readKafkaCounts([kafkaCountFiles.runtime]), n),
            participant: kafkaWindow(kafkaBefore.participant, readKafkaCounts(kafkaCountFiles.participants), n),
          };

    const rows = (
      await stack.pool.query<{ started: Date; finished: Date | null }>(
        `SELECT started_at AS started, finished_at AS finished FROM acm_operation
         WHERE target_id = ANY($1::uuid[]) AND order_name = 'DEPLOY'`,
        [ids],
      )
    ).rows;
    const finishedRows = rows.filter((row) => row.finished !== null);
    const firstStart = Math.min(...rows.map((row) => row.started.getTime()));
    const lastFinish = Math.max(...finishedRows.map((row) => (row.finished as Date).getTime()));
    const windowS = (lastFinish - firstStart) / 1000;
    const completed = n - failed;
    return {
      result: {
        instances: n,
        inFlight,
        elementsPerInstance: ELEMENTS,
        instantiatePerS: round(instantiatePerS, 1),
        windowS: round(windowS, 2),
        instancesPerS: round(completed / windowS, 1),
        elementTransitionsPerS: round((completed * ELEMENTS) / windowS, 0),
        clientWindowS: round(clientWindowS, 2),
        deployMsUnderLoad: summarize(
          finishedRows.map((row) => (row.finished as Date).getTime() - row.started.getTime()),
        ),
        runtimeCpuS: round(runtimeCpuS, 2),
        runtimeCpuMsPerInstance: round((runtimeCpuS * 1000) / n, 2),
        simulatorCpuMsPerInstance: round((simulatorCpuS * 1000) / n, 2),
        postgresCpuMsPerInstance: round((postgresCpuS * 1000) / n, 2),
        kafkaCpuMsPerInstance: round((kafkaCpuS * 1000) / n, 2),
        machineBusyPct: round(machineBusy * 100, 0),
        runtimePeakRssMb: round(Math.max(peakRss, memory.rssMb), 0),
        runtimeVmHwmMb: round(memory.hwmMb, 0),
        failed,
      },
      windowUs: { from: fromUs, to: toUs },
      ...(kafka === undefined ? {} : { kafka }),
      ...(sqlBefore !== undefined && sqlAfter !== undefined
        ? { sql: sqlWindow(sqlBefore, sqlAfter, completed * ELEMENTS) }
        : {}),
    };
  } finally {
    await watcher.stop();
  }
}
