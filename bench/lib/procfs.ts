/**
 * Readings from Linux /proc: CPU time and memory of one process, and the whole machine's CPU use.
 * Clock ticks are 100 per second on every Linux this runs on (USER_HZ).
 */
import { readFileSync, readdirSync } from 'node:fs';

const TICKS_PER_SECOND = 100;

/** User + system CPU seconds a process has used so far (fields 14 and 15 of /proc/<pid>/stat). */
export function processCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may contain spaces: count fields after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return (utime + stime) / TICKS_PER_SECOND;
}

export interface ProcessMemory {
  /** Resident set size now, MB. */
  rssMb: number;
  /** Peak resident set size over the process's life (VmHWM), MB. */
  hwmMb: number;
}

export function processMemory(pid: number): ProcessMemory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMb: kb('VmRSS') / 1024, hwmMb: kb('VmHWM') / 1024 };
}

/** Busy and total jiffies of all CPUs (first line of /proc/stat). */
export interface MachineCpu {
  busy: number;
  total: number;
}

export function machineCpu(): MachineCpu {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const values = line.trim().split(/\s+/).slice(1).map(Number);
  const total = values.reduce((sum, value) => sum + value, 0);
  const idle = (values[3] ?? 0) + (values[4] ?? 0);
  return { busy: total - idle, total };
}

/** Share of all CPUs that was busy between two readings, 0..1. */
export function busyShare(before: MachineCpu, after: MachineCpu): number {
  const total = after.total - before.total;
  return total > 0 ? (after.busy - before.busy) / total : Number.NaN;
}

/** Polls a process's RSS at a fixed period and keeps the highest value seen. */
export class RssSampler {
  private timer: NodeJS.Timeout | undefined;
  peakMb = 0;

  constructor(
    private readonly pid: number,
    private readonly periodMs = 100,
  ) {}

  start(): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), this.periodMs);
  }

  stop(): number {
    clearInterval(this.timer);
    this.sample();
    return this.peakMb;
  }

  private sample(): void {
    try {
      this.peakMb = Math.max(this.peakMb, processMemory(this.pid).rssMb);
    } catch {
      // The process ended; keep the peak seen so far.
    }
  }
}

/** What a process is: its command name (field 2 of stat) and its command line. */
interface ProcessIdentity {
  comm: string;
  cmdline: string;
}

function identityOf(pid: number): ProcessIdentity | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
    return { comm, cmdline };
  } catch {
    return undefined;
  }
}

/** PostgreSQL's processes (postmaster, backends, workers) and the Kafka broker's JVM, by what they run. */
export const SERVICE_PROCESSES = {
  postgres: (process: ProcessIdentity): boolean => process.comm === 'postgres',
  kafka: (process: ProcessIdentity): boolean => process.comm === 'java' && process.cmdline.includes('kafka.Kafka'),
} as const;

/**
 * CPU seconds used between `start` and `stop` by every process that matches (all of them on the machine: on a quiet
 * machine those are the benchmark's services). A process that starts in between counts from its start; one that
 * ends in between is missed, which a benchmark's long-lived connections and broker do not do.
 */
export class ProcessGroupCpu {
  private readonly before = new Map<number, number>();

  constructor(private readonly matches: (process: ProcessIdentity) => boolean) {}

  private readings(): Map<number, number> {
    const readings = new Map<number, number>();
    for (const entry of readdirSync('/proc')) {
      const pid = Number(entry);
      if (!Number.isInteger(pid)) {
        continue;
      }
      const identity = identityOf(pid);
      if (identity === undefined || !this.matches(identity)) {
        continue;
      }
      try {
        readings.set(pid, processCpuSeconds(pid));
      } catch {
        // Ended while being read.
      }
    }
    return readings;
  }

  start(): void {
    this.before.clear();
    for (const [pid, seconds] of this.readings()) {
      this.before.set(pid, seconds);
    }
  }

  stop(): number {
    let total = 0;
    for (const [pid, seconds] of this.readings()) {
      total += seconds - (this.before.get(pid) ?? 0);
    }
    return total;
  }
}
