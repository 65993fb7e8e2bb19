/** The results file (bench/results/latest.json) and its markdown table (latest.md). */
import type { B1Result } from './b1-latency';
import type { B2Result, SqlWindow } from './b2-throughput';
import type { B3Result } from './b3-s3p';
import type { B4Result } from './b4-scale';
import type { RolloutBenchResult } from './rollout';
import { rolloutRows } from './rollout';
import type { FloorPattern, FloorResult } from './floor';
import type { StartupResult } from './startup';
import type { IdleResult } from './idle-result';
import type { ObserveResult } from './observe';
import type { MachineInfo, SourceState } from './lib/machine';
import type { Summary } from './lib/stats';
import type { ProfileSummary } from './profile-summary';
import { profileMarkdown } from './profile-summary';
import type { KafkaWindow } from './kafka-counts';
import type { B5Result } from './b5-figures';
import { b5Markdown, b5Report } from './b5-figures';
import { kafkaWindowMarkdown } from './kafka-counts';

export interface Failure {
  error: string;
}

export interface ProfileRun {
  file: string;
  b2: B2Result;
  sql?: SqlWindow;
  /** Broker requests and records per deployed instance, by side (bench/kafka-counter.ts). */
  kafka?: { runtime: KafkaWindow; participant: KafkaWindow };
  summary: ProfileSummary;
  /** The simulator's profile of the same window (one replica). */
  simulator?: { file: string; summary: ProfileSummary } | Failure;
}

export interface Sizes {
  b1Instances: number;
  b2Instances: number;
  b2InFlight: number;
  b3Users: number;
  b3Loops: number;
  b4Instances: number;
  profileInstances: number;
  /** ROLLOUT: instances per rollout and its batch size (also the direct baseline's deploys in flight). */
  rolloutInstances: number;
  rolloutBatchSize: number;
}

export interface Results {
  runId: string;
  mode: 'full' | 'quick';
  startedAt: string;
  /** Wall time of the harness (services, stacks, benchmarks; not the compile before it). */
  harnessS: number;
  machine: MachineInfo;
  source: SourceState;
  sizes: Sizes;
  /** Share of both CPUs busy during the second before each benchmark's stack started (other work). */
  backgroundBusyPct?: Record<string, number>;
  floor?: FloorResult | Failure;
  b1?: B1Result | Failure;
  b2?: B2Result | Failure;
  b3?: B3Result | Failure;
  b4?: B4Result | Failure;
  startup?: StartupResult | Failure;
  profile?: ProfileRun | Failure;
  idle?: IdleResult | Failure;
  observe?: ObserveResult | Failure;
  rollout?: RolloutBenchResult | Failure;
  b5?: B5Result | Failure;
}

export function isFailure(value: unknown): value is Failure {
  return typeof value === 'object' && value !== null && 'error' in value;
}

type Row = [benchmark: string, metric: string, result: string, target: string, status: string];

const ms = (value: number): string => `${value} ms`;
const pcts = (summary: Summary): string => `${summary.p50} / ${summary.p95} / ${summary.p99} ms`;
const pcts2 = (summary: Summary): string => `${summary.p50} / ${summary.p95} ms`;
const thousands = (value: number): string => value.toLocaleString('en-US');

/** "met", or how far off: the factor between the result and the target. */
function status(value: number, target: number, better: 'lower' | 'higher'): string {
  if (!Number.isFinite(value)) {
    return 'no result';
  }
  const met = better === 'lower' ? value <= target : value >= target;
  if (met) {
    return 'met';
  }
  if (target === 0) {
    return `not met (${value})`;
  }
  const factor = better === 'lower' ? value / target : target / value;
  return `not met: ${factor.toFixed(1)}× off`;
}

function b1Rows(b1: B1Result): Row[] {
  return [
    [
      'B1 latency',
      `deploy, 3 phases × 2 elements, p50 / p95 / p99 (runtime-recorded, n=${b1.deployMs.n})`,
      pcts(b1.deployMs),
      '',
      '',
    ],
    [
      'B1 latency',
      `Kafka round trip p50 / p95 / p99 (n=${b1.kafkaRoundTrip.iterations})`,
      `${b1.kafkaRoundTrip.p50Ms} / ${b1.kafkaRoundTrip.p95Ms} / ${b1.kafkaRoundTrip.p99Ms} ms`,
      '',
      '',
    ],
    [
      'B1 latency',
      'per phase: PHASE_STARTED → 1st ACK applied, p50 / p95 / p99',
      pcts(b1.phaseDispatchToFirstAckMs),
      '',
      '',
    ],
    ...(b1.phaseHops === undefined
      ? []
      : ([
          [
            'B1 latency',
            '… of which PHASE_STARTED → order on the wire (transaction, commit, relay), p50 / p95',
            pcts2(b1.phaseHops.startedToOrderSentMs),
            '',
            '',
          ],
          [
            'B1 latency',
            "… of which order → 1st ACK on the wire (one hop, the participant's work), p50 / p95",
            pcts2(b1.phaseHops.orderSentToAckSentMs),
            '',
            '',
          ],
          [
            'B1 latency',
            "… of which 1st ACK on the wire → its apply starts (one hop, the runtime's consumer), p50 / p95",
            pcts2(b1.phaseHops.ackSentToApplyMs),
            '',
            '',
          ],
        ] satisfies Row[])),
    [
      'B1 latency',
      "per phase: 1st → 2nd ACK applied (one ACK's processing), p50 / p95 / p99",
      pcts(b1.phaseFirstToLastAckMs),
      '',
      '',
    ],
    [
      'B1 latency',
      'ratio p50 deploy ÷ (3 × p50 round trip)',
      String(b1.ratio),
      '≤ 1.5',
      status(b1.ratio, 1.5, 'lower'),
    ],
    ['B1 latency', 'failed deploys', String(b1.failed), '0', status(b1.failed, 0, 'lower')],
  ];
}

function b2Rows(b2: B2Result): Row[] {
  return [
    [
      'B2 throughput',
      `instances/s (${thousands(b2.instances)} deployed, ${b2.inFlight} in flight)`,
      String(b2.instancesPerS),
      '',
      '',
    ],
    [
      'B2 throughput',
      'element transitions/s',
      thousands(b2.elementTransitionsPerS),
      '≥ 2,000 (2 cores)',
      status(b2.elementTransitionsPerS, 2000, 'higher'),
    ],
    [
      'B2 throughput',
      'runtime CPU per instance',
      `${b2.runtimeCpuMsPerInstance} ms (${b2.runtimeCpuS} s total)`,
      '',
      '',
    ],
    ['B2 throughput', 'simulator CPU per instance', ms(b2.simulatorCpuMsPerInstance), '', ''],
    ['B2 throughput', 'PostgreSQL CPU per instance (all its processes)', ms(b2.postgresCpuMsPerInstance), '', ''],
    ['B2 throughput', 'Kafka broker CPU per instance', ms(b2.kafkaCpuMsPerInstance), '', ''],
    ['B2 throughput', 'machine busy (both CPUs) during the window', `${b2.machineBusyPct} %`, '', ''],
    ['B2 throughput', 'runtime peak RSS (sampled / VmHWM)', `${b2.runtimePeakRssMb} / ${b2.runtimeVmHwmMb} MB`, '', ''],
    ['B2 throughput', 'deploy duration under load p50 / p95 / p99', pcts(b2.deployMsUnderLoad), '', ''],
    ['B2 throughput', 'failed deploys', String(b2.failed), '0', status(b2.failed, 0, 'lower')],
  ];
}

function b3Rows(b3: B3Result): Row[] {
  return [
    [
      'B3 S3P flow',
      `average REST response (${b3.users} users × ${b3.loopsPerUser} loops)`,
      ms(b3.responseMs.mean),
      '≤ 20 ms',
      status(b3.responseMs.mean, 20, 'lower'),
    ],
    ['B3 S3P flow', 'p99 REST response', ms(b3.responseMs.p99), '', ''],
    [
      'B3 S3P flow',
      'average / p99 without the state polls',
      `${b3.nonPollResponseMs.mean} / ${b3.nonPollResponseMs.p99} ms`,
      '',
      '',
    ],
    ['B3 S3P flow', 'requests (polls every 50 ms included)', thousands(b3.requests), '', ''],
    [
      'B3 S3P flow',
      'errors (requests) / failed loops',
      `${b3.errors} / ${b3.failedLoops}`,
      '0',
      status(b3.errors + b3.failedLoops, 0, 'lower'),
    ],
    ['B3 S3P flow', 'wall time, requests/s', `${b3.wallS} s, ${b3.requestsPerS}/s`, '', ''],
  ];
}

function b4Rows(b4: B4Result): Row[] {
  const s = b4.supervision;
  return [
    [
      'B4 scale',
      `GET one instance p50 / p95 / p99 (${thousands(b4.instances)} × ${b4.elementsPerInstance} elements)`,
      pcts(b4.getInstanceMs),
      '',
      '',
    ],
    ['B4 scale', 'GET /v2/instances?page=0&size=100 p50 / p95 / p99', pcts(b4.getPage100Ms), '', ''],
    [
      'B4 scale',
      `deploy through REST, 10 elements (runtime-recorded, n=${b4.deployMs.n}) p50 / max`,
      `${b4.deployMs.p50} / ${b4.deployMs.max} ms`,
      '',
      '',
    ],
    [
      'B4 scale',
      'supervision tick SQL (3 transactions, from node) p50 / p95',
      `${s.tickSqlMs.p50} / ${s.tickSqlMs.p95} ms`,
      '≤ 5 ms',
      status(s.tickSqlMs.p95, 5, 'lower'),
    ],
    [
      'B4 scale',
      'EXPLAIN ANALYZE execution: overdue / replica / outbox',
      `${s.explainExecutionMs.overdue} / ${s.explainExecutionMs.replica} / ${s.explainExecutionMs.outbox} ms`,
      '',
      '',
    ],
    [
      'B4 scale',
      'runtime RSS (VmHWM)',
      `${b4.runtimeRssMb} MB (${b4.runtimeVmHwmMb} MB)`,
      '≤ 300 MB',
      status(b4.runtimeRssMb, 300, 'lower'),
    ],
    [
      'B4 scale',
      'GET participants?page=0&size=10 p50 (RSS after)',
      `${b4.participantsPageMs.p50} ms (${b4.runtimeRssAfterParticipantsMb} MB)`,
      '',
      '',
    ],
  ];
}

function startupRows(startup: StartupResult): Row[] {
  return [
    [
      'Start-up',
      '`npm start` (embedded) on a built tree → first 200: existing DATA_DIR',
      `${startup.existingDataDirS} s`,
      '< 3 s',
      status(startup.existingDataDirS, 3, 'lower'),
    ],
    ['Start-up', 'the same, new DATA_DIR (database from the build snapshot)', `${startup.newDataDirS} s`, '', ''],
    ['Start-up', 'build check before (scripts/build-if-stale.js, untimed above)', `${startup.buildCheckS} s`, '', ''],
  ];
}

/** ONAP's runtime beside ours on the same machine, idle with its participants heartbeating: 0.33 % of a core. */
const ONAP_IDLE_PCT_OF_CORE = 0.33;

function observeRows(observe: ObserveResult): Row[] {
  const per = `per 1,000 elements per minute, observe_interval ${observe.observeIntervalS} s (${observe.elements} elements, ${observe.observed.windowS} s window less a ${observe.baseline.windowS} s baseline)`;
  return [
    ['OBSERVE', `PARTICIPANT_STATUS messages ${per}`, `${observe.messagesPerMinPer1000}`, '', ''],
    [
      'OBSERVE',
      `runtime CPU ${per}`,
      `${observe.runtimeCpuMsPerMinPer1000} ms (${observe.runtimeCpuPctOfCorePer1000} % of a core)`,
      '',
      '',
    ],
  ];
}

function idleRows(idle: IdleResult): Row[] {
  return [
    [
      'IDLE',
      `runtime CPU, no work, ${idle.participants} participants heartbeating every ${idle.heartbeatMs / 1000} s (CPU time over ${idle.runtime.windowS} s)`,
      `${idle.runtime.cpuPctOfCore} % of a core`,
      `≤ ${ONAP_IDLE_PCT_OF_CORE} % (ONAP)`,
      status(idle.runtime.cpuPctOfCore, ONAP_IDLE_PCT_OF_CORE, 'lower'),
    ],
    [
      'IDLE',
      'simulator participant CPU, same window, mean per process',
      `${idle.simulatorCpuPctOfCore} % of a core`,
      '',
      '',
    ],
    isFailure(idle.embedded)
      ? ['IDLE', 'embedded default runtime CPU, no work', `failed: ${idle.embedded.error}`, '', '']
      : [
          'IDLE',
          `embedded default runtime CPU, no work (built-in participant; over ${idle.embedded.windowS} s)`,
          `${idle.embedded.cpuPctOfCore} % of a core`,
          '',
          '',
        ],
    [
      'IDLE',
      'machine busy during the window (both CPUs, other work included)',
      `${idle.runtime.machineBusyPct} %`,
      '',
      '',
    ],
  ];
}

function floorPatternRows(label: string, pattern: FloorPattern): Row[] {
  return [
    ['FLOOR transport', `${label}: deploy p50 / p95 / p99 (n=${pattern.deployMs.n})`, pcts(pattern.deployMs), '', ''],
    ['FLOOR transport', `${label}: element transitions/s`, thousands(pattern.elementTransitionsPerS), '', ''],
    [
      'FLOOR transport',
      `${label}: CPU per instance, runtime's side / participant / broker`,
      `${pattern.runtimeSideCpuMsPerInstance} / ${pattern.participantCpuMsPerInstance} / ${pattern.kafkaCpuMsPerInstance} ms`,
      '',
      '',
    ],
    ['FLOOR transport', `${label}: machine busy (both CPUs)`, `${pattern.machineBusyPct} %`, '', ''],
  ];
}

/** No targets here: the floor bounds B1 and B2 from below (time) and above (rate); it is context for their gaps. */
function floorRows(floor: FloorResult): Row[] {
  return [
    [
      'FLOOR transport',
      'record bytes: phase order / info / ACK',
      `${floor.recordBytes.order} / ${floor.recordBytes.info} / ${floor.recordBytes.ack}`,
      '',
      '',
    ],
    [
      'FLOOR transport',
      `Kafka round trip p50 / p95 / p99 (n=${floor.kafkaRoundTrip.iterations})`,
      `${floor.kafkaRoundTrip.p50Ms} / ${floor.kafkaRoundTrip.p95Ms} / ${floor.kafkaRoundTrip.p99Ms} ms`,
      '',
      '',
    ],
    ...floorPatternRows('one at a time', floor.sequential),
    ['FLOOR transport', 'one at a time: p50 deploy ÷ (3 × p50 round trip)', String(floor.sequentialRatio), '', ''],
    ...floorPatternRows(`${floor.concurrent.inFlight} in flight`, floor.concurrent),
  ];
}

function table(rows: Row[]): string {
  const header: Row = ['benchmark', 'metric', 'result', 'target', 'status'];
  const widths = header.map((_, column) => Math.max(...[header, ...rows].map((row) => (row[column] ?? '').length)));
  const line = (row: Row): string => `| ${row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  return [line(header), `| ${widths.map((width) => '-'.repeat(width)).join(' | ')} |`, ...rows.map(line)].join('\n');
}

export function resultsMarkdown(results: Results): string {
  const rows: Row[] = [];
  const failures: string[] = [];
  const add = <T>(name: string, value: T | Failure | undefined, render: (value: T) => Row[]): void => {
    if (value === undefined) {
      return;
    }
    if (isFailure(value)) {
      failures.push(`- ${name} failed: ${value.error}`);
      return;
    }
    rows.push(...render(value));
  };
  add('B1', results.b1, b1Rows);
  add('B2', results.b2, b2Rows);
  add('B3', results.b3, b3Rows);
  add('B4', results.b4, b4Rows);
  add('FLOOR', results.floor, floorRows);
  add('STARTUP', results.startup, startupRows);
  add('IDLE', results.idle, idleRows);
  add('OBSERVE', results.observe, observeRows);
  add('ROLLOUT', results.rollout, rolloutRows);
  const m = results.machine;
  const parts = [
    `# Benchmark results (${results.mode} run ${results.runId}, ${results.startedAt})`,
    '',
    `Machine: ${m.nproc} CPUs (${m.cpuModel}), ${m.memoryGb} GB, Linux ${m.kernel}; Node ${m.node}, PostgreSQL ${m.postgres}, Kafka ${m.kafka}. Harness wall time ${results.harnessS} s.`,
    '',
    `Product compiled from ${results.source.head}${
      results.source.uncommittedProductFiles.length > 0
        ? ` plus uncommitted changes to ${results.source.uncommittedProductFiles.join(', ')}`
        : ' (clean tree)'
    }.`,
    '',
    table(rows),
  ];
  const background = Object.entries(results.backgroundBusyPct ?? {});
  if (background.length > 0) {
    parts.push(
      '',
      `CPU busy in the second before each benchmark started (other work on the machine): ${background.map(([name, pct]) => `${name} ${pct} %`).join(', ')}.`,
    );
  }
  if (failures.length > 0) {
    parts.push('', ...failures);
  }
  if (results.b3 !== undefined && !isFailure(results.b3)) {
    parts.push('', '## B3 by request', '', '| request | n | mean | p50 | p99 |', '| --- | ---: | ---: | ---: | ---: |');
    for (const [label, summary] of Object.entries(results.b3.byRequest)) {
      parts.push(`| ${label} | ${summary.n} | ${summary.mean} | ${summary.p50} | ${summary.p99} |`);
    }
  }
  if (results.profile !== undefined) {
    parts.push('', '## Runtime CPU profile during B2');
    if (isFailure(results.profile)) {
      parts.push('', `Profile run failed: ${results.profile.error}`);
    } else {
      const p = results.profile;
      parts.push(
        '',
        `${p.b2.instances} instances, ${p.b2.inFlight} in flight, under \`node --cpu-prof\` (${p.b2.elementTransitionsPerS} element transitions/s while profiled); samples of the deploy window only.`,
        '',
        profileMarkdown(p.summary),
      );
      if (p.simulator !== undefined) {
        parts.push('', '### Simulator CPU profile, same window', '');
        parts.push(
          isFailure(p.simulator)
            ? `Simulator profile failed: ${p.simulator.error}`
            : profileMarkdown(p.simulator.summary),
        );
      }
      if (p.sql !== undefined) {
        parts.push(
          '',
          `SQL sent by the runtime in the same window (bench/sql-counter.ts): ${thousands(p.sql.total)} statements in ${thousands(p.sql.transactions)} transactions, ${p.sql.perElementTransition} statements and ${p.sql.transactionsPerElementTransition} transactions per element transition.`,
          '',
          '| statement | count | per element transition |',
          '| --- | ---: | ---: |',
          ...p.sql.byKind
            .slice(0, 20)
            .map((row) => `| ${row.kind} | ${thousands(row.count)} | ${row.perElementTransition} |`),
        );
      }
      if (p.kafka !== undefined) {
        parts.push('', kafkaWindowMarkdown(p.kafka));
      }
    }
  }
  if (results.floor !== undefined && !isFailure(results.floor)) {
    parts.push('', '## FLOOR broker work', '', kafkaWindowMarkdown(results.floor.concurrent.kafka));
  }
  if (results.b5 !== undefined) {
    parts.push(
      '',
      isFailure(results.b5) ? `## B5 fleet\n\nB5 failed: ${results.b5.error}` : b5Markdown(b5Report(results.b5)),
    );
  }
  return `${parts.join('\n')}\n`;
}
