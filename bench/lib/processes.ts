/**
 * Child processes of the benchmark (runtime, simulators). Every one is tracked, so an error or Ctrl-C
 * stops exactly the processes this run started, by pid, and nothing else.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

/** The repository root: dist-bench/bench/lib → ../../.. */
export const REPO_ROOT = join(__dirname, '..', '..', '..');
/** The product as compiled next to the benchmark (`npm run bench` compiles both into dist-bench/). */
export const BUILD_DIR = join(REPO_ROOT, 'dist-bench');
export const RUNTIME_SCRIPT = join(BUILD_DIR, 'apps/runtime-acm/src/main.js');
export const SIMULATOR_SCRIPT = join(BUILD_DIR, 'apps/participant-simulator/src/main.js');

const STOP_GRACE_MS = 20_000;

const running = new Set<NodeProcess>();

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** One `node <script>` child with its own environment; stdout and stderr go to a log file. */
export class NodeProcess {
  private child: ChildProcess | null = null;
  private exited: Promise<void> = Promise.resolve();

  constructor(
    readonly name: string,
    private readonly script: string,
    readonly env: Record<string, string>,
    private readonly logDir: string,
    private readonly nodeArgs: readonly string[] = [],
  ) {}

  get pid(): number {
    const pid = this.child?.pid;
    if (pid === undefined) {
      throw new Error(`${this.name} is not running`);
    }
    return pid;
  }

  get alive(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  start(): void {
    mkdirSync(this.logDir, { recursive: true });
    const log = createWriteStream(join(this.logDir, `${this.name}.log`), { flags: 'a' });
    const child = spawn(process.execPath, [...this.nodeArgs, this.script], {
      cwd: REPO_ROOT,
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp', ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.pipe(log);
    child.stderr?.pipe(log);
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    this.child = child;
    running.add(this);
  }

  /** SIGKILL at once, as a crash would end it (no shutdown, no profile); `stop` afterwards only forgets it. */
  kill(): void {
    if (this.child && this.alive) {
      this.child.kill('SIGKILL');
    }
  }

  /** SIGTERM (a clean shutdown, which also writes a --cpu-prof profile), SIGKILL if it hangs. */
  async stop(): Promise<void> {
    const child = this.child;
    if (child && this.alive) {
      child.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const hung = await Promise.race([
        this.exited.then(() => false),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(true), STOP_GRACE_MS);
        }),
      ]);
      clearTimeout(timer);
      if (hung) {
        child.kill('SIGKILL');
        await this.exited;
      }
    }
    running.delete(this);
    this.child = null;
  }
}

/** Stops every process this run started and has not stopped yet. */
export async function stopAll(): Promise<void> {
  await Promise.allSettled([...running].map((child) => child.stop()));
}
