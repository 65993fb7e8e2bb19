/**
 * `npm run bench -- --embedded`: B1 and B2 against the embedded default as users meet it first: the runtime
 * started with no DATABASE_URL and no KAFKA_BOOTSTRAP_SERVERS (PGlite under DATA_DIR, the in-process bus, the
 * built-in simulator participant), driven and watched only through REST. Measures only.
 *
 * What differs from the Kafka + PostgreSQL benchmarks: the built-in simulator runs inside the runtime, so the
 * runtime's CPU includes the participant's and PGlite's; states are watched through `GET /v2/events`
 * (bench/lib/rest-watcher.ts) and durations read from each instance's history. B1 has no round-trip
 * denominator: a message on the in-process bus is a function call, so "one round trip per phase" has no
 * measurable floor here; the figure is the deploy's p50/p95 itself and its split per phase.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { THREE_PHASE_INSTANCE, THREE_PHASE_YAML, collectPhaseGaps } from './b1-latency';
import type { ProfileSummary } from './profile-summary';
import { profileMarkdown, summarizeProfile } from './profile-summary';
import type { Failure } from './report';
import { isFailure } from './report';
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
import { HttpClient } from './lib/http-client';
import { NodeProcess, RUNTIME_SCRIPT, freePort } from './lib/processes';
import { RssSampler, busyShare, machineCpu, processCpuSeconds, processMemory } from './lib/procfs';
import { EventStreamWatcher } from './lib/rest-watcher';
import { ACTUATOR, API, PASSWORD, SIM_PARTICIPANT, USER } from './lib/stack';
import type { Summary } from './lib/stats';
import { round, summarize } from './lib/stats';
import { log, pool, until } from './lib/util';

const ELEMENTS = 6;
const B1_WARMUP = 5;
const B2_WARMUP = 20;
const CREATE_CONCURRENCY = 8;
/** The embedded B2 runs this many deploys at once: the issue's "200 concurrent deploys with 0 errors". */
export const EMBEDDED_IN_FLIGHT = 200;

export interface EmbeddedOptions {
  /** SIMULATOR_TIMERS_MS of the built-in simulator: 0 measures the runtime, the default 100 a user's first try. */
  simulatorTimersMs: number;
  runtimeNodeArgs?: readonly string[];
}

/** The runtime process on its embedded defaults, on a DATA_DIR of its own that is removed after. */
export class EmbeddedStack {
  readonly dataDir = mkdtempSync(join(tmpdir(), 'acm-bench-embedded-'));
  runtime!: NodeProcess;
  api!: HttpClient;
  baseUrl = '';
  readonly authorization = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;

  constructor(
    readonly name: string,
    private readonly logDir: string,
    readonly options: EmbeddedOptions,
  ) {}

  get runtimePid(): number {
    return this.runtime.pid;
  }

  async start(): Promise<void> {
    const port = await freePort();
    this.baseUrl = `http://127.0.0.1:${port}`;
    this.api = new HttpClient(this.baseUrl, USER, PASSWORD, 256);
    this.runtime = new NodeProcess(
      `${this.name}-runtime`,
      RUNTIME_SCRIPT,
      {
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: this.dataDir,
        LOG_LEVEL: 'warn',
        SIMULATOR_TIMERS_MS: String(this.options.simulatorTimersMs),
      },
      this.logDir,
      this.options.runtimeNodeArgs ?? [],
    );
    this.runtime.start();
    await until(`the embedded runtime's built-in participant (${this.name})`, 120_000, async () => {
      if (!this.runtime.alive) {
        throw new Error(`${this.runtime.name} exited; see ${join(this.logDir, `${this.runtime.name}.log`)}`);
      }
      const response = await this.api.get(`${API}/participants/${SIM_PARTICIPANT}`).catch(() => undefined);
      return response?.status === 200;
    });
    const health = await this.api.get(`${ACTUATOR}/health`);
    if (health.status !== 200) {
      throw new Error(`health answered ${health.status}`);
    }
  }

  async stop(): Promise<void> {
    await this.runtime?.stop().catch(() => undefined);
    this.api?.close();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

export interface EmbeddedB1Result {
  instances: number;
  simulatorTimersMs: number;
  deployMs: Summary;
  clientObservedMs: Summary;
  phaseDispatchToFirstAckMs: Summary;
  phaseFirstToLastAckMs: Summary;
  failed: number;
}

export interface EmbeddedB2Result {
  instances: number;
  inFlight: number;
  simulatorTimersMs: number;
  windowS: number;
  instancesPerS: number;
  elementTransitionsPerS: number;
  clientWindowS: number;
  deployMsUnderLoad: Summary;
  /** The runtime's CPU: PGlite, the in-process bus and the built-in simulator included. */
  runtimeCpuMsPerInstance: number;
  machineBusyPct: number;
  runtimePeakRssMb: number;
  runtimeVmHwmMb: number;
  failed: number;
  /** Deploy orders or history reads answered with a status other than the expected one. */
  httpErrors: number;
}

export interface EmbeddedResults {
  b1?: EmbeddedB1Result | Failure;
  b2?: EmbeddedB2Result | Failure;
}

async function withWatcher<T>(stack: EmbeddedStack, body: (watcher: EventStreamWatcher) => Promise<T>): Promise<T> {
  const watcher = new EventStreamWatcher(stack.baseUrl, stack.authorization);
  await watcher.start();
  try {
    return await body(watcher);
  } finally {
    await watcher.stop();
  }
}

export async function runEmbeddedB1(stack: EmbeddedStack, runId: string, n: number): Promise<EmbeddedB1Result> {
  const compositionId = await commissionAndPrime(
    stack.api,
    renamedTemplate(repoFile(THREE_PHASE_YAML), `bench.eb1.${runId}`),
  );
  const template = readInstanceTemplate(THREE_PHASE_INSTANCE);
  const durations: number[] = [];
  const observed: number[] = [];
  const dispatch: number[] = [];
  const spacing: number[] = [];
  let failed = 0;
  await withWatcher(stack, async (watcher) => {
    for (let index = 0; index < B1_WARMUP + n; index += 1) {
      const instanceId = await instantiate(stack.api, freshInstance(template, compositionId, `bench-eb1-${index}`));
      const sent = performance.now();
      await order(stack.api, compositionId, instanceId, { deployOrder: 'DEPLOY' }, 'deploy');
      const state = await watcher.finished(instanceId, 60_000);
      const seen = performance.now() - sent;
      if (index < B1_WARMUP) {
        continue;
      }
      const history = await instanceHistory(stack.api, compositionId, instanceId);
      const operation = recordedDuration(history.operations, 'DEPLOY');
      if (state !== 'COMPLETED' || operation?.durationMs === undefined) {
        failed += 1;
        continue;
      }
      durations.push(operation.durationMs);
      observed.push(seen);
      collectPhaseGaps(history.events, operation.operationId, dispatch, spacing);
    }
  });
  return {
    instances: n,
    simulatorTimersMs: stack.options.simulatorTimersMs,
    deployMs: summarize(durations),
    clientObservedMs: summarize(observed),
    phaseDispatchToFirstAckMs: summarize(dispatch),
    phaseFirstToLastAckMs: summarize(spacing),
    failed,
  };
}

export interface EmbeddedB2Run {
  result: EmbeddedB2Result;
  /** The deploy window on CLOCK_MONOTONIC in µs (the clock of V8's .cpuprofile timestamps). */
  windowUs: { from: number; to: number };
}

const monotonicUs = (): number => Number(process.hrtime.bigint() / 1000n);

export async function runEmbeddedB2(
  stack: EmbeddedStack,
  runId: string,
  n: number,
  inFlight: number,
  label = 'EB2',
): Promise<EmbeddedB2Run> {
  const compositionId = await commissionAndPrime(
    stack.api,
    renamedTemplate(repoFile(THREE_PHASE_YAML), `bench.${label.toLowerCase()}.${runId}`),
  );
  const template = readInstanceTemplate(THREE_PHASE_INSTANCE);
  log(`${label}: creating ${B2_WARMUP} + ${n} instances`);
  const create = async (count: number, prefix: string): Promise<string[]> => {
    const ids: string[] = [];
    await pool(
      Array.from({ length: count }, (_, index) => index),
      CREATE_CONCURRENCY,
      async (index) => {
        ids.push(await instantiate(stack.api, freshInstance(template, compositionId, `${prefix}-${index}`)));
      },
    );
    return ids;
  };
  const warmupIds = await create(B2_WARMUP, `bench-${label}-w`);
  const ids = await create(n, `bench-${label}`);

  let failed = 0;
  let httpErrors = 0;
  return withWatcher(stack, async (watcher) => {
    const deploy = async (instanceId: string): Promise<void> => {
      try {
        await order(stack.api, compositionId, instanceId, { deployOrder: 'DEPLOY' }, 'deploy');
      } catch (error) {
        httpErrors += 1;
        failed += 1;
        if (failed <= 5) {
          log(`${label}: deploy order of ${instanceId} failed: ${String(error)}`);
        }
        return;
      }
      const state = await watcher.finished(instanceId, 300_000).catch((error: unknown) => String(error));
      if (state !== 'COMPLETED') {
        failed += 1;
        if (failed <= 5) {
          log(`${label}: deploy of ${instanceId} ended ${state}`);
        }
      }
    };
    log(`${label}: warm-up (${B2_WARMUP} deploys)`);
    await pool(warmupIds, B2_WARMUP, deploy);
    failed = 0;
    httpErrors = 0;

    log(`${label}: deploying ${n} instances, ${inFlight} in flight`);
    const rss = new RssSampler(stack.runtimePid);
    const cpuBefore = processCpuSeconds(stack.runtimePid);
    const machineBefore = machineCpu();
    rss.start();
    const fromUs = monotonicUs();
    const start = performance.now();
    await pool(ids, inFlight, deploy);
    const clientWindowS = (performance.now() - start) / 1000;
    const toUs = monotonicUs();
    const runtimeCpuS = processCpuSeconds(stack.runtimePid) - cpuBefore;
    const machineBusy = busyShare(machineBefore, machineCpu());
    const peakRss = rss.stop();
    const memory = processMemory(stack.runtimePid);

    // The runtime's own records, read after the window so the reads do not load it during the measurement.
    const spans: Array<{ started: number; finished: number }> = [];
    await pool(ids, CREATE_CONCURRENCY, async (instanceId) => {
      const history = await instanceHistory(stack.api, compositionId, instanceId).catch(() => undefined);
      const operation = history === undefined ? null : recordedDuration(history.operations, 'DEPLOY');
      if (operation?.finishedAt === undefined) {
        httpErrors += history === undefined ? 1 : 0;
        return;
      }
      spans.push({ started: Date.parse(operation.startedAt), finished: Date.parse(operation.finishedAt) });
    });
    const windowS =
      (Math.max(...spans.map((span) => span.finished)) - Math.min(...spans.map((span) => span.started))) / 1000;
    const completed = n - failed;
    return {
      result: {
        instances: n,
        inFlight: Math.min(inFlight, n),
        simulatorTimersMs: stack.options.simulatorTimersMs,
        windowS: round(windowS, 2),
        instancesPerS: round(completed / windowS, 1),
        elementTransitionsPerS: round((completed * ELEMENTS) / windowS, 0),
        clientWindowS: round(clientWindowS, 2),
        deployMsUnderLoad: summarize(spans.map((span) => span.finished - span.started)),
        runtimeCpuMsPerInstance: round((runtimeCpuS * 1000) / n, 2),
        machineBusyPct: round(machineBusy * 100, 0),
        runtimePeakRssMb: round(Math.max(peakRss, memory.rssMb), 0),
        runtimeVmHwmMb: round(memory.hwmMb, 0),
        failed,
        httpErrors,
      },
      windowUs: { from: fromUs, to: toUs },
    };
  });
}

type Row = [string, string, string, string, string];

const pcts = (summary: Summary): string => `${summary.p50} / ${summary.p95} / ${summary.p99} ms`;

/** Markdown rows of the embedded run, in the results table's columns. */
export function embeddedRows(results: EmbeddedResults): { rows: Row[]; failures: string[] } {
  const rows: Row[] = [];
  const failures: string[] = [];
  const b1 = results.b1;
  if (b1 !== undefined && isFailure(b1)) {
    failures.push(`- embedded B1 failed: ${b1.error}`);
  } else if (b1 !== undefined) {
    const name = 'B1 embedded';
    rows.push(
      [
        name,
        `deploy, 3 phases × 2 elements, p50 / p95 / p99 (runtime-recorded, n=${b1.deployMs.n}, simulator ${b1.simulatorTimersMs} ms)`,
        pcts(b1.deployMs),
        '',
        '',
      ],
      [name, 'order sent → COMPLETED seen on /v2/events, p50 / p95 / p99', pcts(b1.clientObservedMs), '', ''],
      [name, 'per phase: PHASE_STARTED → 1st ACK applied, p50 / p95 / p99', pcts(b1.phaseDispatchToFirstAckMs), '', ''],
      [name, 'per phase: 1st → 2nd ACK applied, p50 / p95 / p99', pcts(b1.phaseFirstToLastAckMs), '', ''],
      [name, 'failed deploys', String(b1.failed), '0', b1.failed === 0 ? 'met' : 'not met'],
    );
  }
  const b2 = results.b2;
  if (b2 !== undefined && isFailure(b2)) {
    failures.push(`- embedded B2 failed: ${b2.error}`);
  } else if (b2 !== undefined) {
    const name = 'B2 embedded';
    const rate = b2.elementTransitionsPerS;
    rows.push(
      [
        name,
        `instances/s (${b2.instances} deployed, ${b2.inFlight} in flight, simulator ${b2.simulatorTimersMs} ms)`,
        String(b2.instancesPerS),
        '',
        '',
      ],
      [
        name,
        'element transitions/s',
        String(rate),
        '≥ 500',
        rate >= 500 ? 'met' : `not met: ${(500 / rate).toFixed(1)}× off`,
      ],
      [name, 'runtime CPU per instance (PGlite and simulator included)', `${b2.runtimeCpuMsPerInstance} ms`, '', ''],
      [name, 'machine busy (both CPUs) during the window', `${b2.machineBusyPct} %`, '', ''],
      [name, 'runtime peak RSS (sampled / VmHWM)', `${b2.runtimePeakRssMb} / ${b2.runtimeVmHwmMb} MB`, '', ''],
      [name, 'deploy duration under load p50 / p95 / p99', pcts(b2.deployMsUnderLoad), '', ''],
      [
        name,
        `failed deploys / HTTP errors (${b2.inFlight} concurrent)`,
        `${b2.failed} / ${b2.httpErrors}`,
        '0',
        b2.failed === 0 && b2.httpErrors === 0 ? 'met' : 'not met',
      ],
    );
  }
  return { rows, failures };
}

export function embeddedMarkdown(results: EmbeddedResults): string {
  const { rows, failures } = embeddedRows(results);
  const lines = [
    '## Embedded default (PGlite, in-process bus, built-in simulator; REST only)',
    '',
    '| benchmark | metric | result | target | status |',
    '| --- | --- | --- | --- | --- |',
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ];
  return [...lines, ...(failures.length > 0 ? ['', ...failures] : [])].join('\n');
}

export interface EmbeddedProfile {
  file: string;
  b2: EmbeddedB2Result;
  summary: ProfileSummary;
}

export interface EmbeddedSuite extends EmbeddedResults {
  profile?: EmbeddedProfile | Failure;
}

export interface EmbeddedSizes {
  b1Instances: number;
  b2Instances: number;
  profileInstances: number;
}

async function withEmbeddedStack<T>(
  name: string,
  logDir: string,
  options: EmbeddedOptions,
  body: (stack: EmbeddedStack) => Promise<T>,
): Promise<T | Failure> {
  const stack = new EmbeddedStack(name, logDir, options);
  try {
    log(`${name}: starting the embedded runtime (DATA_DIR ${stack.dataDir})`);
    await stack.start();
    return await body(stack);
  } catch (error) {
    log(`${name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return { error: error instanceof Error ? error.message : String(error) };
  } finally {
    await stack.stop();
  }
}

/** B1, B2 and the profiled B2 of the embedded default, each on a runtime and DATA_DIR of its own. */
export async function runEmbeddedSuite(
  only: ReadonlySet<string>,
  sizes: EmbeddedSizes,
  runId: string,
  logDir: string,
  profileDir: string,
  simulatorTimersMs = 0,
): Promise<EmbeddedSuite> {
  const suite: EmbeddedSuite = {};
  const options: EmbeddedOptions = { simulatorTimersMs };
  if (only.has('B1')) {
    suite.b1 = await withEmbeddedStack('eb1', logDir, options, (stack) =>
      runEmbeddedB1(stack, runId, sizes.b1Instances),
    );
  }
  if (only.has('B2')) {
    suite.b2 = await withEmbeddedStack('eb2', logDir, options, async (stack) => {
      return (await runEmbeddedB2(stack, runId, sizes.b2Instances, EMBEDDED_IN_FLIGHT)).result;
    });
  }
  if (only.has('PROFILE')) {
    const name = `runtime-embedded-${runId}.cpuprofile`;
    const file = join(profileDir, name);
    let window = { from: 0, to: 0 };
    const b2 = await withEmbeddedStack(
      'eprof',
      logDir,
      { ...options, runtimeNodeArgs: ['--cpu-prof', '--cpu-prof-dir', profileDir, '--cpu-prof-name', name] },
      async (stack) => {
        const run = await runEmbeddedB2(stack, runId, sizes.profileInstances, EMBEDDED_IN_FLIGHT, 'EPROF');
        window = run.windowUs;
        return run.result;
      },
    );
    // The profile is written when the runtime exits, i.e. once the stack stopped it.
    suite.profile = isFailure(b2)
      ? b2
      : existsSync(file)
        ? {
            file: `bench/results/profiles/${name}`,
            b2,
            summary: summarizeProfile(file, { fromUs: window.from, toUs: window.to, top: 25 }),
          }
        : { error: `no profile written at ${file}` };
  }
  return suite;
}

export function embeddedSuiteMarkdown(suite: EmbeddedSuite): string {
  const parts = [embeddedMarkdown(suite)];
  if (suite.profile !== undefined) {
    parts.push('', '## Embedded runtime CPU profile during B2');
    if (isFailure(suite.profile)) {
      parts.push('', `Profile run failed: ${suite.profile.error}`);
    } else {
      const p = suite.profile;
      parts.push(
        '',
        `${p.b2.instances} instances, ${p.b2.inFlight} in flight, under \`node --cpu-prof\` (${p.b2.elementTransitionsPerS} element transitions/s while profiled); samples of the deploy window only.`,
        '',
        profileMarkdown(p.summary),
      );
    }
  }
  return parts.join('\n');
}
