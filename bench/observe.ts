/**
 * OBSERVE: what observing deployed elements costs at the default `observe_interval` (60 s). The runtime on external
 * PostgreSQL and Kafka with one simulator participant that observes every deployed element (`SIM_OBSERVE=true`) and
 * heartbeats at ONAP's interval (120 s), so nearly every STATUS in the window is an observation. First a baseline
 * window with nothing deployed; then `instances` × 10 elements are deployed through REST and, once every element was
 * observed (its first observation writes its health), a window of steady observation (nothing changes, so nothing is
 * written). Per window: the PARTICIPANT_STATUS messages the runtime received (its `acm_participant_messages_received_total`)
 * and the runtime process's CPU time (user + system, /proc/<pid>/stat), then both per 1,000 elements per minute. CPU
 * time, not wall time: it holds on a machine busy with other work. Measures only.
 */
import { randomUUID } from 'node:crypto';
import type { InstanceBody, InstanceElementBody } from './lib/acm';
import { commissionAndPrime, instantiate, order, renamedTemplate, repoFile } from './lib/acm';
import { busyShare, machineCpu, processCpuSeconds } from './lib/procfs';
import type { Stack } from './lib/stack';
import { round } from './lib/stats';
import { log, pool, sleep, until } from './lib/util';
import { OperationWatcher } from './lib/watcher';

const TEN_ELEMENTS_YAML = 'bench/fixtures/ten-elements.yaml';
const ELEMENTS_PER_INSTANCE = 10;
/** The default `observe_interval` (docs/health.md): the fixture sets none. */
export const DEFAULT_OBSERVE_INTERVAL_S = 60;
const METRICS_PATH = '/onap/policy/clamp/acm/actuator/prometheus';

export interface ObserveSizes {
  /** Instances of 10 elements each. */
  instances: number;
  /** Each measured window, s: at least one interval, so that every element is observed in it. */
  windowS: number;
}

export const OBSERVE_FULL: ObserveSizes = { instances: 100, windowS: 120 };
export const OBSERVE_QUICK: ObserveSizes = { instances: 20, windowS: 60 };

export interface ObserveWindow {
  windowS: number;
  /** PARTICIPANT_STATUS messages the runtime received in the window (observations, and a heartbeat at most). */
  statusMessages: number;
  runtimeCpuMs: number;
  runtimeCpuPctOfCore: number;
  machineBusyPct: number;
}

export interface ObserveResult {
  elements: number;
  observeIntervalS: number;
  heartbeatMs: number;
  /** Nothing deployed: the stack's own cost, subtracted below. */
  baseline: ObserveWindow;
  observed: ObserveWindow;
  /** (observed − baseline) messages per minute, scaled to 1,000 elements. */
  messagesPerMinPer1000: number;
  /** (observed − baseline) runtime CPU per minute, scaled to 1,000 elements. */
  runtimeCpuMsPerMinPer1000: number;
  /** The same as a share of one core. */
  runtimeCpuPctOfCorePer1000: number;
}

function observedInstance(compositionId: string, name: string): InstanceBody {
  const elements: Record<string, InstanceElementBody> = {};
  for (let index = 1; index <= ELEMENTS_PER_INSTANCE; index += 1) {
    const id = randomUUID();
    const suffix = String(index).padStart(2, '0');
    elements[id] = {
      id,
      definition: { name: `bench.ten.Element${suffix}`, version: '1.0.0' },
      description: `Element ${index} of 10`,
      properties: { baseUrl: `http://sim.example:30800/element${suffix}` },
    };
  }
  return { name, version: '1.0.0', compositionId, description: 'OBSERVE instance', elements };
}

/** A sample of the runtime's Prometheus text: the value of one series, 0 while it does not exist yet. */
async function metric(stack: Stack, series: string): Promise<number> {
  const response = await stack.api.get<string>(METRICS_PATH);
  const line = String(response.body)
    .split('\n')
    .find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

const STATUS_RECEIVED = 'acm_participant_messages_received_total{type="PARTICIPANT_STATUS"}';
const OBSERVED_HEALTHY = 'acm_observed_elements{health="Healthy"}';

async function measureWindow(stack: Stack, seconds: number): Promise<ObserveWindow> {
  const messagesBefore = await metric(stack, STATUS_RECEIVED);
  const machineBefore = machineCpu();
  const cpuBefore = processCpuSeconds(stack.runtimePid);
  const started = performance.now();
  await sleep(seconds * 1000);
  const elapsedS = (performance.now() - started) / 1000;
  const cpuS = processCpuSeconds(stack.runtimePid) - cpuBefore;
  const machineBusyPct = round(busyShare(machineBefore, machineCpu()) * 100, 0);
  const statusMessages = (await metric(stack, STATUS_RECEIVED)) - messagesBefore;
  return {
    windowS: round(elapsedS, 1),
    statusMessages,
    runtimeCpuMs: round(cpuS * 1000, 0),
    runtimeCpuPctOfCore: round((cpuS / elapsedS) * 100, 2),
    machineBusyPct,
  };
}

export async function runObserve(
  stack: Stack,
  runId: string,
  sizes: ObserveSizes,
  heartbeatMs: number,
): Promise<ObserveResult> {
  const compositionId = await commissionAndPrime(
    stack.api,
    renamedTemplate(repoFile(TEN_ELEMENTS_YAML), `bench.observe.${runId}`),
  );
  log(`OBSERVE: baseline, nothing deployed, over ${sizes.windowS} s`);
  const baseline = await measureWindow(stack, sizes.windowS);

  const elements = sizes.instances * ELEMENTS_PER_INSTANCE;
  log(`OBSERVE: deploying ${sizes.instances} instances × ${ELEMENTS_PER_INSTANCE} elements`);
  const watcher = new OperationWatcher(stack.pool, 'DEPLOY', 10);
  watcher.start();
  try {
    await pool(
      Array.from({ length: sizes.instances }, (_unused, index) => index),
      8,
      async (index) => {
        const instanceId = await instantiate(
          stack.api,
          observedInstance(compositionId, `bench-observe-${runId}-${index}`),
        );
        await order(stack.api, compositionId, instanceId, { deployOrder: 'DEPLOY' }, 'deploy');
        const outcome = await watcher.finished(instanceId, 300_000);
        if (outcome !== 'COMPLETED') {
          throw new Error(`instance ${index} did not deploy: ${outcome}`);
        }
      },
    );
  } finally {
    await watcher.stop();
  }
  log(`OBSERVE: waiting for every element's first observation (at most ${DEFAULT_OBSERVE_INTERVAL_S} s after deploy)`);
  // Every 2 s: each scrape counts the observed elements in the database.
  await until(
    'every element observed Healthy',
    (DEFAULT_OBSERVE_INTERVAL_S + 60) * 1000,
    async () => (await metric(stack, OBSERVED_HEALTHY)) >= elements,
    2000,
  );
  log(`OBSERVE: measuring ${elements} observed elements over ${sizes.windowS} s`);
  const observed = await measureWindow(stack, sizes.windowS);

  const perMinPer1000 = (observedValue: number, baselineValue: number, observedS: number, baselineS: number): number =>
    ((observedValue / observedS - baselineValue / baselineS) * 60 * 1000) / elements;
  const cpuMsPerMin = perMinPer1000(observed.runtimeCpuMs, baseline.runtimeCpuMs, observed.windowS, baseline.windowS);
  const result: ObserveResult = {
    elements,
    observeIntervalS: DEFAULT_OBSERVE_INTERVAL_S,
    heartbeatMs,
    baseline,
    observed,
    messagesPerMinPer1000: round(
      perMinPer1000(observed.statusMessages, baseline.statusMessages, observed.windowS, baseline.windowS),
      0,
    ),
    runtimeCpuMsPerMinPer1000: round(cpuMsPerMin, 0),
    runtimeCpuPctOfCorePer1000: round((cpuMsPerMin / 60_000) * 100, 2),
  };
  log(
    `OBSERVE: ${result.messagesPerMinPer1000} messages and ${result.runtimeCpuMsPerMinPer1000} ms runtime CPU ` +
      `per 1,000 elements per minute (${result.runtimeCpuPctOfCorePer1000} % of a core)`,
  );
  return result;
}
