import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { REPO_ROOT } from './runtime-harness';
import { testDatabaseUrl, testKafkaBrokers } from './services';

/** Where e2e child processes write their logs (git-ignored), one file per process. */
export const E2E_LOG_DIR = join(REPO_ROOT, '.services', 'e2e-logs');

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

/** A product process (runtime or simulator) started from the build, as a user would run it. */
export class ProductProcess {
  private child: ChildProcess | null = null;
  private exited: Promise<number | null> = Promise.resolve(null);

  constructor(
    readonly name: string,
    private readonly script: string,
    readonly env: Record<string, string>,
  ) {}

  /** The OS process id while running (fault scenarios read its memory from /proc). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): void {
    mkdirSync(E2E_LOG_DIR, { recursive: true });
    const log = createWriteStream(join(E2E_LOG_DIR, `${this.name}.log`), { flags: 'a' });
    const child = spawn(process.execPath, [join(REPO_ROOT, this.script)], {
      env: { PATH: process.env['PATH'] ?? '', ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.pipe(log);
    child.stderr?.pipe(log);
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    this.child = child;
  }

  /** Resolves with the exit code once the process ended by itself (or was stopped). */
  exit(): Promise<number | null> {
    return this.exited;
  }

  /** Sends a signal without waiting (SIGSTOP freezes the process, as a hung host would). */
  signal(signal: NodeJS.Signals): void {
    this.child?.kill(signal);
  }

  /** Sends a signal and waits for the process to end (SIGKILL gives it no chance to clean up). */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    if (this.child && this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill(signal);
      await this.exited;
    }
    this.child = null;
  }
}

export const RUNTIME_SCRIPT = 'dist/apps/runtime-acm/src/main.js';
export const SIMULATOR_SCRIPT = 'dist/apps/participant-simulator/src/main.js';

/** Topic names of one suite, so suites sharing the broker never see each other's messages. */
export interface SuiteTopics {
  readonly op: string;
  readonly sync: string;
}

/**
 * The runtime as a process on the real PostgreSQL (a schema of the suite's own) and Kafka. The supervision
 * scan runs once an hour, so every phase advance in a suite is driven by ACKs; `env` overrides anything.
 */
export function runtimeProcess(
  name: string,
  options: { port: number; schema: string; groupId: string; topics: SuiteTopics; env?: Record<string, string> },
): ProductProcess {
  return new ProductProcess(name, RUNTIME_SCRIPT, {
    PORT: String(options.port),
    HOST: '127.0.0.1',
    DATABASE_URL: testDatabaseUrl(),
    DATABASE_SCHEMA: options.schema,
    KAFKA_BOOTSTRAP_SERVERS: testKafkaBrokers().join(','),
    KAFKA_GROUP_ID: options.groupId,
    RUNTIME_OPERATION_TOPIC: options.topics.op,
    RUNTIME_SYNC_TOPIC: options.topics.sync,
    HEART_BEAT: '3600000',
    SIMULATOR: 'false',
    LOG_LEVEL: 'warn',
    ...options.env,
  });
}

/** An instant simulator participant as a process, heartbeating every second; `env` overrides anything. */
export function simulatorProcess(
  name: string,
  options: { port: number; participantId: string; types: string; topics: SuiteTopics; env?: Record<string, string> },
): ProductProcess {
  return new ProductProcess(name, SIMULATOR_SCRIPT, {
    SIM_PORT: String(options.port),
    PARTICIPANT_ID: options.participantId,
    PARTICIPANT_SUPPORTED_ELEMENT_TYPES: options.types,
    KAFKA_BOOTSTRAP_SERVERS: testKafkaBrokers().join(','),
    OPERATION_TOPIC: options.topics.op,
    SYNC_TOPIC: options.topics.sync,
    // Replicas of one participant in one suite share a group; suites running at once on the broker never do
    // (a fixed participant id alone would put two suites' simulators in one group, taking each other's partitions).
    PARTICIPANT_GROUP_ID: `participant-${options.participantId}-${options.topics.op}`,
    HEARTBEAT_MS: '1000',
    SIM_TIMERS_MS: '0',
    ...options.env,
  });
}

export const HTTP_PARTICIPANT_SCRIPT = 'dist/apps/participant-http/src/main.js';

/** The HTTP participant as a process, heartbeating every second, its group the suite's own; `env` overrides anything. */
export function httpParticipantProcess(
  name: string,
  options: { port: number; participantId: string; topics: SuiteTopics; env?: Record<string, string> },
): ProductProcess {
  return new ProductProcess(name, HTTP_PARTICIPANT_SCRIPT, {
    HTTP_PORT: String(options.port),
    HTTP_HOST: '127.0.0.1',
    PARTICIPANT_ID: options.participantId,
    KAFKA_BOOTSTRAP_SERVERS: testKafkaBrokers().join(','),
    OPERATION_TOPIC: options.topics.op,
    SYNC_TOPIC: options.topics.sync,
    PARTICIPANT_GROUP_ID: `participant-http-${options.participantId}-${options.topics.op}`,
    HEARTBEAT_MS: '1000',
    ...options.env,
  });
}
