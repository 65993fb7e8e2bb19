/**
 * ROLLOUT: instances per second through a rollout. N instances of the 3-phase × 2-element composition are deployed
 * twice over, on the same stack: N ordered directly through REST with `batchSize` deploys in flight (the baseline),
 * then N others by one rollout (DEPLOY, batches of `batchSize`, the instant simulator answering at once). Rates come
 * from the runtime's own operation records (first startedAt → last finishedAt); the rollout's overhead is the ratio
 * of the two windows. Runtime CPU from /proc/<pid>/stat. Measures only: nothing here asserts on time.
 */
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
import { ProcessGroupCpu, SERVICE_PROCESSES, busyShare, machineCpu, processCpuSeconds } from './lib/procfs';
import { API } from './lib/stack';
import type { Stack } from './lib/stack';
import { round } from './lib/stats';
import { log, pool, sleep } from './lib/util';
import { OperationWatcher } from './lib/watcher';

const ELEMENTS = 6;
const CREATE_CONCURRENCY = 8;
const WARMUP = 20;
/** The harness reads the rollout's state column (not the REST view, which would load the runtime) this often. */
const POLL_MS = 100;
const ROLLOUT_DEADLINE_MS = 30 * 60_000;
const FINISHED = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);

export interface RolloutPhase {
  /** First deploy startedAt → last finishedAt, as recorded by the runtime. */
  windowS: number;
  instancesPerS: number;
  /** First request sent → the last deploy seen ended (direct) or the rollout seen COMPLETED (rollout). */
  clientWindowS: number;
  runtimeCpuMsPerInstance: number;
  /** Every PostgreSQL process on the machine during the phase (other work on the shared database included). */
  postgresCpuMsPerInstance: number;
  /** Share of both CPUs busy during the phase (everything on the machine). */
  machineBusyPct: number;
  failed: number;
}

export interface RolloutBenchResult {
  instances: number;
  batchSize: number;
  elementsPerInstance: number;
  direct: RolloutPhase;
  rollout: RolloutPhase & { state: string; batches: number };
  /** Rollout window / direct window, both runtime-recorded (1.0: a rollout costs nothing over ordering directly). */
  overheadRatio: number;
  runtimeCpuRatio: number;
  postgresCpuRatio: number;
}

/** The runtime-recorded window of these instances' DEPLOY operations: first start → last finish, and how many failed. */
async function recordedWindow(stack: Stack, ids: readonly string[]): Promise<{ windowS: number; failed: number }> {
  const rows = (
    await stack.pool.query<{ started: Date; finished: Date | null; state: string }>(
      `SELECT started_at AS started, finished_at AS finished, state FROM acm_operation
       WHERE target_id = ANY($1::uuid[]) AND order_name = 'DEPLOY'`,
      [ids],
    )
  ).rows;
  const finished = rows.filter((row) => row.finished !== null);
  const first = Math.min(...rows.map((row) => row.started.getTime()));
  const last = Math.max(...finished.map((row) => (row.finished as Date).getTime()));
  const failed = ids.length - rows.filter((row) => row.state === 'COMPLETED').length;
  return { windowS: (last - first) / 1000, failed };
}

/** Measures `body` (which deploys `ids`): its runtime CPU, machine share and both windows. */
async function measured(stack: Stack, ids: readonly string[], body: () => Promise<void>): Promise<RolloutPhase> {
  const cpuBefore = processCpuSeconds(stack.runtimePid);
  const postgresCpu = new ProcessGroupCpu(SERVICE_PROCESSES.postgres);
  postgresCpu.start();
  const machineBefore = machineCpu();
  const start = performance.now();
  await body();
  const clientWindowS = (performance.now() - start) / 1000;
  const runtimeCpuS = processCpuSeconds(stack.runtimePid) - cpuBefore;
  const postgresCpuS = postgresCpu.stop();
  const machineBusy = busyShare(machineBefore, machineCpu());
  const { windowS, failed } = await recordedWindow(stack, ids);
  return {
    windowS: round(windowS, 2),
    instancesPerS: round((ids.length - failed) / windowS, 1),
    clientWindowS: round(clientWindowS, 2),
    runtimeCpuMsPerInstance: round((runtimeCpuS * 1000) / ids.length, 2),
    postgresCpuMsPerInstance: round((postgresCpuS * 1000) / ids.length, 2),
    machineBusyPct: round(machineBusy * 100, 0),
    failed,
  };
}

export async function runRolloutBench(
  stack: Stack,
  runId: string,
  n: number,
  batchSize: number,
): Promise<RolloutBenchResult> {
  const compositionId = await commissionAndPrime(
    stack.api,
    renamedTemplate(repoFile(THREE_PHASE_YAML), `bench.rollout.${runId}`),
  );
  const template = readInstanceTemplate(THREE_PHASE_INSTANCE);
  log(`ROLLOUT: creating ${WARMUP} + 2 × ${n} instances`);
  const create = async (count: number, prefix: string): Promise<string[]> => {
    const ids: string[] = [];
    await pool(
      Array.from({ length: count }, (_, index) => index),
      CREATE_CONCURRENCY,
      async (index) => {
        ids.push(await instantiate(stack.api, freshInstance(template, compositionId, `bench-${prefix}-${index}`)));
      },
    );
    return ids;
  };
  const warmupIds = await create(WARMUP, 'rollout-w');
  const directIds = await create(n, 'direct');
  const rolloutIds = await create(n, 'rollout');

  const watcher = new OperationWatcher(stack.pool, 'DEPLOY');
  watcher.start();
  const deploy = async (instanceId: string): Promise<void> => {
    try {
      await order(stack.api, compositionId, instanceId, { deployOrder: 'DEPLOY' }, 'deploy');
      await watcher.finished(instanceId, 120_000);
    } catch (error) {
      log(`ROLLOUT: direct deploy of ${instanceId} failed: ${String(error)}`);
    }
  };
  let direct: RolloutPhase;
  try {
    log(`ROLLOUT: warm-up (${WARMUP} deploys)`);
    await pool(warmupIds, WARMUP, deploy);
    log(`ROLLOUT: ordering ${n} deploys directly, ${batchSize} in flight`);
    direct = await measured(stack, directIds, () => pool(directIds, batchSize, deploy));
  } finally {
    await watcher.stop();
  }

  log(`ROLLOUT: one rollout of ${n} deploys in batches of ${batchSize}`);
  let state = '';
  let rolloutId = '';
  const rollout = await measured(stack, rolloutIds, async () => {
    const created = await stack.api.post<{ rolloutId: string }>(
      `${API}/rollouts`,
      JSON.stringify({ order: 'DEPLOY', compositionId, instanceIds: rolloutIds, strategy: { batchSize } }),
      'application/json',
      'rollout',
    );
    if (created.status !== 201) {
      throw new Error(`rollout not created: ${created.status} ${JSON.stringify(created.body)}`);
    }
    rolloutId = created.body.rolloutId;
    const deadline = performance.now() + ROLLOUT_DEADLINE_MS;
    while (!FINISHED.has(state)) {
      if (performance.now() > deadline) {
        throw new Error(`rollout ${rolloutId} not finished after ${ROLLOUT_DEADLINE_MS / 60_000} min (${state})`);
      }
      await sleep(POLL_MS);
      const rows = await stack.pool.query<{ state: string }>(`SELECT state FROM acm_rollout WHERE rollout_id = $1`, [
        rolloutId,
      ]);
      state = rows.rows[0]?.state ?? '';
    }
  });
  return {
    instances: n,
    batchSize,
    elementsPerInstance: ELEMENTS,
    direct,
    rollout: { ...rollout, state, batches: Math.ceil(n / batchSize) },
    overheadRatio: round(rollout.windowS / direct.windowS, 2),
    runtimeCpuRatio: round(rollout.runtimeCpuMsPerInstance / direct.runtimeCpuMsPerInstance, 2),
    postgresCpuRatio: round(rollout.postgresCpuMsPerInstance / direct.postgresCpuMsPerInstance, 2),
  };
}

/** The report's rows (benchmark, metric, result, target, status). */
export function rolloutRows(result: RolloutBenchResult): Array<[string, string, string, string, string]> {
  const { direct, rollout } = result;
  const phase = (name: string, value: RolloutPhase): [string, string, string, string, string] => [
    'ROLLOUT',
    `${name}: instances/s (runtime-recorded window; client window) / CPU per instance, runtime + PostgreSQL / machine busy`,
    `${value.instancesPerS}/s (${value.windowS} s; ${value.clientWindowS} s) / ${value.runtimeCpuMsPerInstance} + ${value.postgresCpuMsPerInstance} ms / ${value.machineBusyPct} %`,
    '',
    value.failed === 0 ? '' : `${value.failed} failed`,
  ];
  return [
    phase(`${result.instances} deploys ordered directly, ${result.batchSize} in flight`, direct),
    phase(`one rollout of ${result.instances} (batches of ${result.batchSize}, ${rollout.state})`, rollout),
    [
      'ROLLOUT',
      'rollout overhead: window ratio / runtime CPU ratio / PostgreSQL CPU ratio (rollout ÷ direct)',
      `${result.overheadRatio} / ${result.runtimeCpuRatio} / ${result.postgresCpuRatio}`,
      '',
      '',
    ],
  ];
}
