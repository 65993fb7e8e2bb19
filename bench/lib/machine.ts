/** What the benchmark ran on: CPUs, memory, CPU model, and the versions of Node, PostgreSQL and Kafka. */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { release } from 'node:os';
import { Client } from 'pg';
import { REPO_ROOT } from './processes';

export interface MachineInfo {
  nproc: number;
  memoryGb: number;
  cpuModel: string;
  kernel: string;
  node: string;
  postgres: string;
  kafka: string;
}

/** The version in the class path of the running broker (a java process running kafka.Kafka). */
function kafkaVersion(): string {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) {
      continue;
    }
    let cmdline: string[];
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    if (!cmdline.includes('kafka.Kafka')) {
      continue;
    }
    const libs = (cmdline[cmdline.indexOf('-cp') + 1] ?? '').replace(/\/\*$/, '');
    const jar = existsSync(libs) ? readdirSync(libs).find((name) => /^kafka_2\.13-[\d.]+\.jar$/.test(name)) : undefined;
    const version = jar === undefined ? undefined : /^kafka_2\.13-([\d.]+)\.jar$/.exec(jar)?.[1];
    if (version !== undefined) {
      return version;
    }
  }
  return `${process.env['ACM_KAFKA_VERSION'] ?? '4.4.0'} (services-up default; broker not found locally)`;
}

export async function machineInfo(databaseUrl: string): Promise<MachineInfo> {
  const nproc = Number(spawnSync('nproc', { encoding: 'utf8' }).stdout.trim());
  const meminfo = readFileSync('/proc/meminfo', 'utf8');
  const memKb = Number(/^MemTotal:\s+(\d+) kB/m.exec(meminfo)?.[1] ?? NaN);
  const cpuModel = /^model name\s*:\s*(.*)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? 'unknown';
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  let postgres: string;
  try {
    postgres = (await client.query<{ server_version: string }>('SHOW server_version')).rows[0]?.server_version ?? '?';
  } finally {
    await client.end();
  }
  return {
    nproc,
    memoryGb: Math.round((memKb / 1024 / 1024) * 10) / 10,
    cpuModel,
    kernel: release(),
    node: process.version,
    postgres,
    kafka: kafkaVersion(),
  };
}

export interface SourceState {
  /** The commit the product was compiled from. */
  head: string;
  /** Product files (apps/, libs/) with uncommitted changes when the benchmark compiled the tree. */
  uncommittedProductFiles: string[];
}

/** The benchmark compiles the working tree: record which commit, and what was not committed yet. */
export function sourceState(): SourceState {
  const git = (...args: string[]): string => spawnSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8' }).stdout ?? '';
  return {
    head: git('rev-parse', '--short', 'HEAD').trim(),
    uncommittedProductFiles: git('status', '--porcelain', '--', 'apps', 'libs')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => line.slice(3)),
  };
}
