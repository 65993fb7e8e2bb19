/**
 * IDLE: what a runtime with nothing to do costs. The runtime on external PostgreSQL and Kafka with several simulator
 * participants (one process each) heartbeating at ONAP's interval (reportingTimeIntervalMs 120000) and no work; once
 * they all registered and the start-up settled, the runtime process's CPU time (user + system, /proc/<pid>/stat) over
 * a window, as a share of one core. CPU time, not wall time: it holds on a machine that is busy with other work,
 * which only makes the window's wall time noisier. Then the same for the embedded default (PGlite, the in-process bus
 * and its built-in participant). Measures only.
 */
import { randomUUID } from 'node:crypto';
import { EmbeddedStack } from './embedded';
import { NodeProcess, SIMULATOR_SCRIPT } from './lib/processes';
import { busyShare, machineCpu, processCpuSeconds } from './lib/procfs';
import type { Stack } from './lib/stack';
import { API } from './lib/stack';
import { round } from './lib/stats';
import { log, sleep, until } from './lib/util';
import type { IdleFailure, IdleResult, IdleWindow } from './idle-result';

/** ONAP's participants heartbeat every reportingTimeIntervalMs: 120000 in every participant ONAP ships. */
export const ONAP_HEARTBEAT_MS = 120_000;

export interface IdleSizes {
  /** Simulator participants, one process each (the stack's own one included). */
  participants: number;
  /** The measured window, s. */
  windowS: number;
  /** Time left after registration for the start-up's work (group joins, first scans) to finish, s. */
  settleS: number;
}

export const IDLE_FULL: IdleSizes = { participants: 4, windowS: 60, settleS: 10 };
export const IDLE_QUICK: IdleSizes = { participants: 2, windowS: 20, settleS: 5 };

/** CPU of the given processes over a window of `seconds`: the first pid's own figure, the others' mean. */
async function measureWindow(
  pids: readonly number[],
  seconds: number,
): Promise<{ window: IdleWindow; others: number }> {
  const machineBefore = machineCpu();
  const before = pids.map((pid) => processCpuSeconds(pid));
  const started = performance.now();
  await sleep(seconds * 1000);
  const elapsedS = (performance.now() - started) / 1000;
  const after = pids.map((pid) => processCpuSeconds(pid));
  const used = after.map((value, index) => value - (before[index] ?? 0));
  const first = used[0] ?? 0;
  const others = used.slice(1);
  const othersMean = others.length > 0 ? others.reduce((sum, value) => sum + value, 0) / others.length : 0;
  return {
    window: {
      windowS: round(elapsedS, 1),
      cpuPctOfCore: round((first / elapsedS) * 100, 2),
      cpuMs: round(first * 1000, 0),
      machineBusyPct: round(busyShare(machineBefore, machineCpu()) * 100, 0),
    },
    others: round((othersMean / elapsedS) * 100, 2),
  };
}

/** The external-services figure on a started stack (its one simulator already registered). */
export async function runIdle(stack: Stack, sizes: IdleSizes, logDir: string): Promise<Omit<IdleResult, 'embedded'>> {
  const first = stack.simulators[0];
  if (first === undefined) {
    throw new Error('the idle stack has no simulator');
  }
  const extra: NodeProcess[] = [];
  try {
    for (let index = 1; index < sizes.participants; index += 1) {
      const participantId = randomUUID();
      const simulator = new NodeProcess(
        `${stack.name}-sim${index}`,
        SIMULATOR_SCRIPT,
        {
          ...first.env,
          SIM_PORT: '0',
          PARTICIPANT_ID: participantId,
          // An element type belongs to one participant: each gets one of its own.
          PARTICIPANT_SUPPORTED_ELEMENT_TYPES: `org.onap.policy.clamp.acm.IdleBenchElement${index}:1.0.0`,
          PARTICIPANT_GROUP_ID: `${first.env['PARTICIPANT_GROUP_ID'] ?? 'acm-bench-idle'}-${index}`,
        },
        logDir,
      );
      simulator.start();
      extra.push(simulator);
      await until(`participant ${participantId} to register (idle)`, 90_000, async () => {
        if (!simulator.alive) {
          throw new Error(`${simulator.name} exited; see ${logDir}`);
        }
        const response = await stack.api.get(`${API}/participants/${participantId}`).catch(() => undefined);
        return response?.status === 200;
      });
    }
    log(`idle: ${sizes.participants} participants registered; settling ${sizes.settleS} s`);
    await sleep(sizes.settleS * 1000);
    log(`idle: measuring the runtime's CPU over ${sizes.windowS} s`);
    const { window, others } = await measureWindow(
      [stack.runtimePid, ...[first, ...extra].map((simulator) => simulator.pid)],
      sizes.windowS,
    );
    log(`idle: runtime ${window.cpuPctOfCore} % of a core, simulators ${others} % each`);
    return {
      participants: sizes.participants,
      heartbeatMs: ONAP_HEARTBEAT_MS,
      runtime: window,
      simulatorCpuPctOfCore: others,
    };
  } finally {
    await Promise.allSettled(extra.map((simulator) => simulator.stop()));
  }
}

/** The embedded default's figure: its own runtime process, built-in participant, no work. */
export async function runIdleEmbedded(sizes: IdleSizes, logDir: string): Promise<IdleWindow | IdleFailure> {
  const stack = new EmbeddedStack('idle-embedded', logDir, { simulatorTimersMs: 0 });
  try {
    await stack.start();
    await sleep(sizes.settleS * 1000);
    log(`idle (embedded): measuring the runtime's CPU over ${sizes.windowS} s`);
    const { window } = await measureWindow([stack.runtimePid], sizes.windowS);
    log(`idle (embedded): runtime ${window.cpuPctOfCore} % of a core`);
    return window;
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  } finally {
    await stack.stop();
  }
}
