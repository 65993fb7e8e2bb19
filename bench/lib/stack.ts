/**
 * One system under test: a runtime process and instant simulator participant processes, on a fresh
 * PostgreSQL schema and fresh Kafka topics, driven over REST on loopback. Stopping it stops the
 * processes, drops the schema and deletes the topics (unless asked to keep them).
 */
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { Pool } from 'pg';
import { HttpClient } from './http-client';
import { NodeProcess, RUNTIME_SCRIPT, SIMULATOR_SCRIPT, freePort } from './processes';
import { log, sleep, until } from './util';

export const API = '/onap/policy/clamp/acm/v2';
export const ACTUATOR = '/onap/policy/clamp/acm/actuator';
export const USER = 'runtimeUser';
export const PASSWORD = 'zb!XztG34';
export const SIM_PARTICIPANT = '101c62b3-8918-41b9-a747-d21eb79c6c90';
export const SIM_ELEMENT_TYPE = 'org.onap.policy.clamp.acm.SimAutomationCompositionElement';
export const SIM_ELEMENT_TYPES = `${SIM_ELEMENT_TYPE}:1.0.0`;

export interface Services {
  databaseUrl: string;
  brokers: string[];
}

export function servicesFromEnv(): Services {
  return {
    databaseUrl:
      process.env['BENCH_DATABASE_URL'] ?? `postgres://acm:acm@127.0.0.1:${process.env['ACM_PG_PORT'] ?? '55432'}/acm`,
    brokers: (process.env['BENCH_KAFKA_BOOTSTRAP_SERVERS'] ?? `127.0.0.1:${process.env['ACM_KAFKA_PORT'] ?? '9092'}`)
      .split(',')
      .map((broker) => broker.trim())
      .filter((broker) => broker !== ''),
  };
}

export interface StackOptions {
  /** Extra node flags for the runtime, e.g. --cpu-prof. */
  runtimeNodeArgs?: readonly string[];
  /** Runtime environment overrides. */
  runtimeEnv?: Record<string, string>;
  /** Simulator replicas of the one participant (they share its consumer group). Default 1. */
  simulators?: number;
  /** Extra node flags for each simulator; `{index}` is replaced by the replica's index (a profile per replica). */
  simulatorNodeArgs?: readonly string[];
  /** Simulator environment overrides (e.g. HEARTBEAT_MS). */
  simulatorEnv?: Record<string, string>;
}

export class Stack {
  readonly schema: string;
  readonly topics: { operation: string; sync: string };
  readonly pool: Pool;
  runtime!: NodeProcess;
  readonly simulators: NodeProcess[] = [];
  api!: HttpClient;
  private runtimePort = 0;

  constructor(
    readonly name: string,
    private readonly runId: string,
    private readonly services: Services,
    private readonly logDir: string,
    private readonly options: StackOptions = {},
    private readonly keep = false,
  ) {
    this.schema = `bench_${runId}_${name}`;
    this.topics = { operation: `acm-bench-op-${runId}-${name}`, sync: `acm-bench-sync-${runId}-${name}` };
    this.pool = new Pool({ connectionString: services.databaseUrl, max: 4, options: `-c search_path=${this.schema}` });
  }

  get apiBaseUrl(): string {
    return `http://127.0.0.1:${this.runtimePort}`;
  }

  get runtimePid(): number {
    return this.runtime.pid;
  }

  async start(): Promise<void> {
    this.runtimePort = await freePort();
    this.api = new HttpClient(this.apiBaseUrl, USER, PASSWORD);
    await this.startRuntime();
    const count = this.options.simulators ?? 1;
    for (let index = 0; index < count; index += 1) {
      const port = await freePort();
      const simulator = new NodeProcess(
        `${this.name}-sim${index}`,
        SIMULATOR_SCRIPT,
        {
          SIM_PORT: String(port),
          SIM_HOST: '127.0.0.1',
          PARTICIPANT_ID: SIM_PARTICIPANT,
          PARTICIPANT_SUPPORTED_ELEMENT_TYPES: SIM_ELEMENT_TYPES,
          KAFKA_BOOTSTRAP_SERVERS: this.services.brokers.join(','),
          OPERATION_TOPIC: this.topics.operation,
          SYNC_TOPIC: this.topics.sync,
          // Not the default participant-<id>: other runs on this broker (e2e tests) use the same
          // participant id, and one consumer group across different topics starves both.
          PARTICIPANT_GROUP_ID: `acm-bench-${this.runId}-${this.name}-participant`,
          HEARTBEAT_MS: '5000',
          SIM_TIMERS_MS: '0',
          ...this.options.simulatorEnv,
        },
        this.logDir,
        (this.options.simulatorNodeArgs ?? []).map((arg) => arg.replaceAll('{index}', String(index))),
      );
      simulator.start();
      this.simulators.push(simulator);
    }
    await until(`participant ${SIM_PARTICIPANT} to register (${this.name})`, 90_000, async () => {
      this.assertAlive();
      const response = await this.api.get(`${API}/participants/${SIM_PARTICIPANT}`).catch(() => undefined);
      return response?.status === 200;
    });
  }

  /** Starts (or restarts) the runtime on this stack's schema and topics and waits for its health. */
  async startRuntime(): Promise<void> {
    this.runtime = new NodeProcess(
      `${this.name}-runtime`,
      RUNTIME_SCRIPT,
      {
        PORT: String(this.runtimePort),
        HOST: '127.0.0.1',
        DATABASE_URL: this.services.databaseUrl,
        DATABASE_SCHEMA: this.schema,
        KAFKA_BOOTSTRAP_SERVERS: this.services.brokers.join(','),
        KAFKA_GROUP_ID: `acm-bench-${this.runId}-${this.name}`,
        RUNTIME_OPERATION_TOPIC: this.topics.operation,
        RUNTIME_SYNC_TOPIC: this.topics.sync,
        SIMULATOR: 'false',
        LOG_LEVEL: 'warn',
        ...this.options.runtimeEnv,
      },
      this.logDir,
      this.options.runtimeNodeArgs ?? [],
    );
    this.runtime.start();
    await until(`the runtime to answer (${this.name})`, 90_000, async () => {
      this.assertAlive();
      const response = await this.api.get(`${ACTUATOR}/health`).catch(() => undefined);
      return response?.status === 200;
    });
  }

  async stopRuntime(): Promise<void> {
    await this.runtime.stop();
  }

  private assertAlive(): void {
    for (const child of [this.runtime, ...this.simulators]) {
      if (!child.alive) {
        throw new Error(`${child.name} exited; see ${join(this.logDir, `${child.name}.log`)}`);
      }
    }
  }

  /** Stops the processes, then drops the schema and deletes the topics. Never throws. */
  async stop(): Promise<void> {
    await Promise.allSettled(this.simulators.map((simulator) => simulator.stop()));
    await this.runtime?.stop().catch(() => undefined);
    this.api?.close();
    if (!this.keep) {
      await this.pool.query(`DROP SCHEMA IF EXISTS "${this.schema}" CASCADE`).catch((error: unknown) => {
        log(`could not drop schema ${this.schema}: ${String(error)}`);
      });
      await deleteTopics(this.services.brokers, [this.topics.operation, this.topics.sync]);
    }
    await this.pool.end().catch(() => undefined);
  }
}

/** Deletes topics (best effort: a failure is logged, not thrown). */
export async function deleteTopics(brokers: string[], topics: string[]): Promise<void> {
  const admin = new Kafka({ clientId: 'acm-bench', brokers, logLevel: logLevel.NOTHING }).admin();
  try {
    await admin.connect();
    const existing = new Set(await admin.listTopics());
    const mine = topics.filter((topic) => existing.has(topic));
    if (mine.length > 0) {
      await admin.deleteTopics({ topics: mine, timeout: 10_000 });
    }
  } catch (error) {
    log(`could not delete topics ${topics.join(', ')}: ${String(error)}`);
  } finally {
    await admin.disconnect().catch(() => undefined);
    await sleep(0);
  }
}

/** Topic names of this run that match a prefix (the round-trip helper names its own topics). */
export async function listTopics(brokers: string[], prefix: string): Promise<string[]> {
  const admin = new Kafka({ clientId: 'acm-bench', brokers, logLevel: logLevel.NOTHING }).admin();
  try {
    await admin.connect();
    return (await admin.listTopics()).filter((topic) => topic.startsWith(prefix));
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}
