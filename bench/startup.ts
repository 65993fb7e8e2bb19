/**
 * Start-up: `npm start` of the embedded default (no DATABASE_URL, no Kafka: PGlite and the in-process bus) on an
 * already built tree, timed from the spawn to the first 200 of the health endpoint. Once on a new DATA_DIR (the
 * database written from the build's snapshot, or made by initdb when there is none), then again on the same one. The
 * tree is brought up to date first by
 * scripts/build-if-stale.js, untimed, as `npm start` would. Measures only.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { REPO_ROOT, freePort } from './lib/processes';
import { ACTUATOR, PASSWORD, USER } from './lib/stack';
import { round } from './lib/stats';
import { log, sleep, until } from './lib/util';

export interface StartupResult {
  /** scripts/build-if-stale.js before the timed starts (a full build when dist was missing or stale). */
  buildCheckS: number;
  /** `npm start` → first 200, new DATA_DIR. */
  newDataDirS: number;
  /** `npm start` → first 200, the DATA_DIR of the previous start. */
  existingDataDirS: number;
}

const STOP_GRACE_MS = 15_000;

export async function runStartup(logDir: string): Promise<StartupResult> {
  const buildStarted = performance.now();
  const build = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts/build-if-stale.js')], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: 900_000,
  });
  if (build.status !== 0) {
    throw new Error(`scripts/build-if-stale.js failed (exit ${String(build.status)}): ${build.stderr}`);
  }
  const buildCheckS = round((performance.now() - buildStarted) / 1000, 2);
  const dataDir = mkdtempSync(join(tmpdir(), 'acm-bench-startup-'));
  try {
    const newDataDirS = await timeStart(dataDir, logDir, 'startup-new');
    const existingDataDirS = await timeStart(dataDir, logDir, 'startup-existing');
    return { buildCheckS, newDataDirS, existingDataDirS };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Seconds from spawning `npm start` to its first answered health request; stops it (its whole group) after. */
async function timeStart(dataDir: string, logDir: string, name: string): Promise<number> {
  mkdirSync(logDir, { recursive: true });
  const output = createWriteStream(join(logDir, `${name}.log`), { flags: 'a' });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}${ACTUATOR}/health`;
  const authorization = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;
  const started = performance.now();
  // Its own process group, so npm, its shell and the node process below it stop together.
  const child = spawn('npm', ['start'], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? '/tmp',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  child.stdout.pipe(output);
  child.stderr.pipe(output);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await until(
      `npm start to answer (${name})`,
      180_000,
      async () => {
        if (child.exitCode !== null) {
          throw new Error(`npm start exited (${String(child.exitCode)}); see ${join(logDir, `${name}.log`)}`);
        }
        const response = await fetch(url, { headers: { authorization } }).catch(() => undefined);
        return response?.status === 200;
      },
      20,
    );
    const seconds = round((performance.now() - started) / 1000, 2);
    log(`${name}: first 200 after ${seconds} s`);
    return seconds;
  } finally {
    const group = child.pid;
    if (group !== undefined && child.exitCode === null) {
      process.kill(-group, 'SIGTERM');
      const hung = await Promise.race([exited.then(() => false), sleep(STOP_GRACE_MS).then(() => true)]);
      if (hung) {
        process.kill(-group, 'SIGKILL');
        await exited;
      }
    }
  }
}
