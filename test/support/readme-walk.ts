import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { ProductProcess, RUNTIME_SCRIPT, freePort } from './processes';
import { PASSWORD, REPO_ROOT, USER, readRepoFile } from './runtime-harness';
import { eventually } from './scripted-participant';

/** The `sh` code blocks of one README section (from its `## ` heading to the next), in order. */
export function readmeShellBlocks(heading: string): string[] {
  const readme = readRepoFile('README.md');
  const start = readme.indexOf(`\n## ${heading}\n`);
  if (start < 0) {
    throw new Error(`README has no section "## ${heading}"`);
  }
  const next = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, next < 0 ? undefined : next);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
}

/** What one curl call of a walk answered, as curl's --write-out reports it. */
export interface CurlCall {
  readonly status: number;
  readonly method: string;
  readonly url: string;
}

export interface WalkResult {
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly calls: CurlCall[];
}

/**
 * Runs a shell walk as a user pasting it would, in bash with `-e -u -o pipefail`, from the repository's
 * root. Every curl call also reports its status on stderr (through a shell function of the same name),
 * so the test sees every answer without changing what the walk prints.
 */
export async function runWalk(script: string, env: Record<string, string> = {}): Promise<WalkResult> {
  const reporting = `curl() { command curl --write-out '%{stderr}CURL %{http_code} %{method} %{url_effective}\\n' "$@"; }\n`;
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', reporting + script], {
      cwd: REPO_ROOT,
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (exitCode) => {
      const calls = [...stderr.matchAll(/^CURL (\d{3}) (\S+) (\S+)$/gm)].map((match) => ({
        status: Number(match[1]),
        method: match[2] ?? '',
        url: match[3] ?? '',
      }));
      resolve({ exitCode, stdout, stderr, calls });
    });
  });
}

/** The runtime exactly as `npm start` runs it (embedded PostgreSQL, in-process bus, built-in simulator). */
export interface EmbeddedRuntime {
  readonly port: number;
  readonly process: ProductProcess;
  stop(): Promise<void>;
}

export async function startEmbeddedRuntime(name: string, env: Record<string, string> = {}): Promise<EmbeddedRuntime> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'acm-embedded-'));
  const runtime = new ProductProcess(name, RUNTIME_SCRIPT, {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    ...env,
  });
  runtime.start();
  const api = request.agent(`http://127.0.0.1:${port}`).auth(USER, PASSWORD);
  await eventually(
    `${name} to answer on port ${port}`,
    async () => {
      const health = await api.get('/onap/policy/clamp/acm/actuator/health').catch(() => null);
      return health?.status === 200 ? true : undefined;
    },
    3000,
  );
  return {
    port,
    process: runtime,
    async stop(): Promise<void> {
      await runtime.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
