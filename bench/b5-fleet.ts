/**
 * B5 fleet: N instances of the 3-phase, 6-element composition across M participants (many SDK participants per
 * process, bench/b5-participants.ts), served by several runtime replicas on one PostgreSQL schema and one pair of
 * Kafka topics. Commission and prime one composition per six participants, create the instances, deploy them all,
 * hold a steady state (STATUS heartbeats at a short interval, then at ONAP's 120 s), then undeploy them all while one
 * replica is SIGKILLed halfway through. Every wave is accounted (lost / stuck / duplicated, checked against the
 * database and the participants' handler calls). CPU and RSS of each replica and of PostgreSQL come from /proc.
 * Measures only.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'pg';
import type { Subscription } from '@acm/messaging';

import { THREE_PHASE_INSTANCE, THREE_PHASE_YAML } from './b1-latency';
import type {
  B5Result,
  B5Wave,
  FleetLayout,
  FleetSize,
  OperationRow,
  ParticipantReport,
  SentOrder,
  SteadyState,
} from './b5-figures';
import {
  FLEET_ELEMENTS,
  accountWave,
  cpuPctOfCore,
  fleetCompositionYaml,
  fleetLayout,
  waveFigures,
} from './b5-figures';
import { ONAP_HEARTBEAT_MS } from './idle';
import type { KafkaCounts } from './kafka-counts';
import { NO_KAFKA_COUNTS, addKafkaCounts, kafkaRates, kafkaWindow } from './kafka-counts';
import { commissionAndPrime, freshInstance, instantiate, order, readInstanceTemplate, repoFile } from './lib/acm';
import { harnessBus } from './lib/harness-bus';
import { HttpClient } from './lib/http-client';
import { BUILD_DIR, NodeProcess, RUNTIME_SCRIPT, freePort } from './lib/processes';
import { ProcessGroupCpu, SERVICE_PROCESSES, processCpuSeconds, processMemory } from './lib/procfs';
import type { Services } from './lib/stack';
import { ACTUATOR, PASSWORD, USER, deleteTopics } from './lib/stack';
import { round } from './lib/stats';
import { log, pool, sleep, until } from './lib/util';
import { OperationWatcher } from './lib/watcher';

const PARTICIPANT_SCRIPT = join(BUILD_DIR, 'bench/b5-participants.js');
/** Counts each process's broker requests (bench/kafka-counter.ts): a listener per request, nothing else. */
const COUNTER_SCRIPT = join(BUILD_DIR, 'bench/kafka-counter.js');
const CREATE_CONCURRENCY = 8;
/**
 * How long one order is waited for: a little beyond the runtime's own operation deadline (200 s by default), after
 * which it is flagged TIMEOUT but stays RUNNING; it then counts as stuck.
 */
const WAVE_TIMEOUT_MS = 240_000;

/** Sum of the RSS of every PostgreSQL process (shared buffers count once per process that touched them). */
function postgresRssMbSum(): number {
  let sum = 0;
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) {
      continue;
    }
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') {
        sum += processMemory(pid).rssMb;
      }
    } catch {
      // Ended while being read.
    }
  }
  return round(sum, 0);
}

/** Records the producer's stamp of the first order message per instance on the operation topic. */
class DispatchTap {
  readonly first = new Map<string, number>();
  private messageType = 'AUTOMATION_COMPOSITION_DEPLOY';
  private readonly bus;
  private subscription: Subscription | undefined;

  constructor(
    brokers: string[],
    private readonly topic: string,
    private readonly groupId: string,
  ) {
    this.bus = harnessBus(brokers, 'acm-bench-b5-tap', 'B5 tap');
  }

  async start(): Promise<void> {
    this.subscription = await this.bus.subscribe({
      topic: this.topic,
      groupId: this.groupId,
      handler: (record) => {
        try {
          const message = JSON.parse(record.value) as Record<string, unknown>;
          const instanceId = message['automationCompositionId'];
          if (message['messageType'] === this.messageType && typeof instanceId === 'string') {
            if (!this.first.has(instanceId)) {
              this.first.set(instanceId, Number(record.timestamp));
            }
          }
        } catch {
          // Not JSON: not an order.
        }
        return Promise.resolve();
      },
    });
  }

  /** Starts a new wave: forget the old one, and look for this message type. */
  watch(messageType: string): void {
    this.first.clear();
    this.messageType = messageType;
  }

  async stop(): Promise<void> {
    await this.subscription?.close();
    await this.bus.close();
  }
}

interface Replica {
  process: NodeProcess;
  api: HttpClient;
  port: number;
}

export class FleetBench {
  private readonly schema: string;
  private readonly topics: { operation: string; sync: string };
  private readonly pool: Pool;
  private readonly replicas: Replica[] = [];
  private participants: NodeProcess[] = [];
  private readonly layout: FleetLayout;
  private participantRound = 0;

  constructor(
    private readonly services: Services,
    private readonly runId: string,
    private readonly logDir: string,
    private readonly size: FleetSize,
  ) {
    this.schema = `bench_${runId}_b5`;
    this.topics = { operation: `acm-bench-op-${runId}-b5`, sync: `acm-bench-sync-${runId}-b5` };
    this.pool = new Pool({ connectionString: services.databaseUrl, max: 4, options: `-c search_path=${this.schema}` });
    this.layout = fleetLayout(size, () => randomUUID());
  }

  private get participantIds(): string[] {
    return this.layout.participants.flat().map((spec) => spec.participantId);
  }

  private async startReplica(index: number): Promise<Replica> {
    const port = await freePort();
    const process = new NodeProcess(
      `b5-runtime${index}`,
      RUNTIME_SCRIPT,
      {
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: this.services.databaseUrl,
        DATABASE_SCHEMA: this.schema,
        KAFKA_BOOTSTRAP_SERVERS: this.services.brokers.join(','),
        KAFKA_GROUP_ID: `acm-bench-${this.runId}-b5`,
        RUNTIME_OPERATION_TOPIC: this.topics.operation,
        RUNTIME_SYNC_TOPIC: this.topics.sync,
        SIMULATOR: 'false',
        LOG_LEVEL: 'warn',
        BENCH_KAFKA_COUNT_FILE: join(this.logDir, `b5-runtime${index}.kafka.json`),
      },
      this.logDir,
      ['--require', COUNTER_SCRIPT],
    );
    process.start();
    const api = new HttpClient(`http://127.0.0.1:${port}`, USER, PASSWORD);
    await until(`B5 replica ${index} to answer`, 120_000, async () => {
      if (!process.alive) {
        throw new Error(`b5-runtime${index} exited; see ${join(this.logDir, `b5-runtime${index}.log`)}`);
      }
      const response = await api.get(`${ACTUATOR}/health`).catch(() => undefined);
      return response?.status === 200;
    });
    return { process, api, port };
  }

  private async startParticipants(heartbeatMs: number): Promise<void> {
    this.participantRound += 1;
    this.participants = this.layout.processes.map((specs, index) => {
      const name = `b5-fleet${this.participantRound}-${index}`;
      const child = new NodeProcess(
        name,
        PARTICIPANT_SCRIPT,
        {
          FLEET_PARTICIPANTS: JSON.stringify(specs),
          FLEET_REPORT_FILE: join(this.logDir, `${name}.report.json`),
          FLEET_GROUP_PREFIX: `acm-bench-${this.runId}-b5-participant`,
          KAFKA_BOOTSTRAP_SERVERS: this.services.brokers.join(','),
          OPERATION_TOPIC: this.topics.operation,
          SYNC_TOPIC: this.topics.sync,
          HEARTBEAT_MS: String(heartbeatMs),
          BENCH_KAFKA_COUNT_FILE: join(this.logDir, `${name}.kafka.json`),
        },
        this.logDir,
        ['--require', COUNTER_SCRIPT],
      );
      child.start();
      return child;
    });
    const ids = this.participantIds;
    await until(`B5: ${ids.length} participants to register`, 300_000, async () => {
      for (const child of this.participants) {
        if (!child.alive) {
          throw new Error(`${child.name} exited; see ${join(this.logDir, `${child.name}.log`)}`);
        }
      }
      const rows = await this.pool
        .query<{ online: string }>(
          `SELECT count(DISTINCT participant_id) AS online FROM participant_replica
           WHERE participant_state = 'ON_LINE' AND participant_id = ANY($1::uuid[])`,
          [ids],
        )
        .catch(() => ({ rows: [{ online: '0' }] }));
      return Number(rows.rows[0]?.online ?? 0) === ids.length;
    });
  }

  /** Round-robin over the replicas still running. */
  private liveReplica(index: number): Replica {
    const live = this.replicas.filter((replica) => replica.process.alive);
    return live[index % live.length] as Replica;
  }

  private participantReports(): ParticipantReport[] {
    return this.participants.map((child) => {
      try {
        return JSON.parse(readFileSync(join(this.logDir, `${child.name}.report.json`), 'utf8')) as ParticipantReport;
      } catch {
        return { participants: 0, handlerCalls: 0, repeatedCalls: 0 };
      }
    });
  }

  private readCounts(names: readonly string[]): KafkaCounts {
    return addKafkaCounts(
      names.map((name) => {
        try {
          return JSON.parse(readFileSync(join(this.logDir, `${name}.kafka.json`), 'utf8')) as KafkaCounts;
        } catch {
          return NO_KAFKA_COUNTS;
        }
      }),
    );
  }

  /** The running broker request totals of the replicas and of the participant processes. */
  private kafkaCounts(): { runtime: KafkaCounts; participant: KafkaCounts } {
    return {
      runtime: this.readCounts(this.replicas.map((replica) => replica.process.name)),
      participant: this.readCounts(this.participants.map((child) => child.name)),
    };
  }

  private participantsCpuS(): number {
    return this.participants.reduce((sum, child) => sum + (child.alive ? processCpuSeconds(child.pid) : 0), 0);
  }

  private replicaCpu(): number[] {
    return this.replicas.map((replica) => (replica.process.alive ? processCpuSeconds(replica.process.pid) : NaN));
  }

  private async operations(ids: readonly string[], orderName: string): Promise<OperationRow[]> {
    const rows = await this.pool.query<{ target_id: string; state: string; started: Date; finished: Date | null }>(
      `SELECT target_id, state, started_at AS started, finished_at AS finished FROM acm_operation
       WHERE target_id = ANY($1::uuid[]) AND order_name = $2 ORDER BY started_at`,
      [ids, orderName],
    );
    return rows.rows.map((row) => ({
      targetId: row.target_id,
      state: row.state,
      startedAt: row.started.getTime(),
      finishedAt: row.finished === null ? null : row.finished.getTime(),
    }));
  }

  private async finalStates(ids: readonly string[]): Promise<Map<string, string>> {
    const rows = await this.pool.query<{ instance_id: string; deploy_state: string }>(
      `SELECT instance_id, deploy_state FROM automation_composition WHERE instance_id = ANY($1::uuid[])`,
      [ids],
    );
    return new Map(rows.rows.map((row) => [row.instance_id, row.deploy_state]));
  }

  /**
   * Sends one order per instance with `inFlight` outstanding, round-robin over the live replicas, and waits for
   * each to finish (or time out: it then counts as stuck). `midway` runs once half the orders were sent.
   */
  private async wave(
    instances: ReadonlyArray<{ instanceId: string; compositionId: string }>,
    orderName: 'DEPLOY' | 'UNDEPLOY',
    expectedState: string,
    tap: DispatchTap,
    midway?: () => Promise<void>,
  ): Promise<B5Wave> {
    tap.watch(orderName === 'DEPLOY' ? 'AUTOMATION_COMPOSITION_DEPLOY' : 'AUTOMATION_COMPOSITION_STATE_CHANGE');
    const watcher = new OperationWatcher(this.pool, orderName, 20);
    watcher.start();
    const sent: SentOrder[] = [];
    const reportsBefore = this.participantReports();
    const kafkaBefore = this.kafkaCounts();
    const replicaBefore = this.replicaCpu();
    const participantsBefore = this.participantsCpuS();
    const postgres = new ProcessGroupCpu(SERVICE_PROCESSES.postgres);
    postgres.start();
    const replicaAtKill: Array<number | undefined> = this.replicas.map(() => undefined);
    let postgresRss = postgresRssMbSum();
    const started = performance.now();
    let sendingS = 0;
    let sentCount = 0;
    let midwayDone = midway === undefined;
    try {
      await pool(instances, this.size.inFlight, async ({ instanceId, compositionId }, index) => {
        if (!midwayDone && index >= instances.length / 2) {
          midwayDone = true;
          this.replicaCpu().forEach((value, replica) => (replicaAtKill[replica] = value));
          await midway?.();
        }
        const sentAt = Date.now();
        const body = { deployOrder: orderName };
        const label = orderName.toLowerCase();
        const replica = this.liveReplica(index);
        try {
          await order(replica.api, compositionId, instanceId, body, label);
        } catch (error) {
          // An HTTP answer is a refusal; a reset connection (the replica died with the request in flight, possibly
          // before this process saw it exit) is not.
          if (/HTTP \d+/.test(String(error))) {
            log(`B5: ${orderName} of ${instanceId} refused: ${String(error)}`);
            return;
          }
          // The connection failed: whether its transaction committed is unknown, so the order
          // goes to a live replica; refused there (already under way), it still counts as sent and the accounting
          // finds its operation, or counts it lost.
          // Long enough for this process to see the dead replica exit, so the round-robin skips it.
          await sleep(500);
          await order(this.liveReplica(index).api, compositionId, instanceId, body, label).catch(
            (retryError: unknown) =>
              log(`B5: ${orderName} of ${instanceId} sent again after its replica died: ${String(retryError)}`),
          );
        }
        sent.push({ instanceId, sentAt });
        sentCount += 1;
        if (sentCount === instances.length) {
          sendingS = (performance.now() - started) / 1000;
        }
        await watcher.finished(instanceId, WAVE_TIMEOUT_MS).catch(() => 'TIMED OUT');
        postgresRss = Math.max(postgresRss, sentCount % 50 === 0 ? postgresRssMbSum() : 0);
      });
    } finally {
      await watcher.stop();
    }
    if (sendingS === 0) {
      sendingS = (performance.now() - started) / 1000;
    }
    const postgresCpuS = postgres.stop();
    const replicaAfter = this.replicaCpu();
    const participantsCpuS = this.participantsCpuS() - participantsBefore;
    // Let the participants' reports (and the broker counts) catch up with their last calls.
    await sleep(1_000);
    const kafkaAfter = this.kafkaCounts();
    const ids = instances.map((instance) => instance.instanceId);
    const operations = await this.operations(ids, orderName);
    const reports = this.participantReports().map((report, index) => ({
      ...report,
      repeatedCalls: report.repeatedCalls - (reportsBefore[index]?.repeatedCalls ?? 0),
    }));
    const n = instances.length;
    return {
      ...waveFigures(sent, sendingS, operations, tap.first, FLEET_ELEMENTS),
      accounting: accountWave(sent, operations, await this.finalStates(ids), expectedState, reports),
      replicas: this.replicas.map((replica, index) => {
        const after = Number.isNaN(replicaAfter[index] ?? NaN) ? replicaAtKill[index] : replicaAfter[index];
        const cpuS = (after ?? NaN) - (replicaBefore[index] ?? NaN);
        return {
          cpuS: round(cpuS, 2),
          cpuMsPerInstance: round((cpuS * 1000) / n, 2),
          rssMb: replica.process.alive ? round(processMemory(replica.process.pid).rssMb, 0) : NaN,
        };
      }),
      postgres: {
        cpuS: round(postgresCpuS, 2),
        cpuMsPerInstance: round((postgresCpuS * 1000) / n, 2),
        rssMbSum: postgresRss,
      },
      participantsCpuMsPerInstance: round((participantsCpuS * 1000) / n, 2),
      kafka: {
        runtime: kafkaWindow(kafkaBefore.runtime, kafkaAfter.runtime, n),
        participant: kafkaWindow(kafkaBefore.participant, kafkaAfter.participant, n),
      },
    };
  }

  private async steady(heartbeatMs: number): Promise<SteadyState> {
    const windowS = this.size.steadyWindowS;
    const replicaBefore = this.replicaCpu();
    const participantsBefore = this.participantsCpuS();
    const kafkaBefore = this.kafkaCounts();
    const postgres = new ProcessGroupCpu(SERVICE_PROCESSES.postgres);
    postgres.start();
    const started = performance.now();
    await sleep(windowS * 1000);
    const elapsedS = (performance.now() - started) / 1000;
    const replicaAfter = this.replicaCpu();
    const kafkaAfter = this.kafkaCounts();
    return {
      heartbeatMs,
      windowS: round(elapsedS, 1),
      replicasCpuPctOfCore: replicaAfter.map((after, index) =>
        cpuPctOfCore(after - (replicaBefore[index] ?? NaN), elapsedS),
      ),
      postgresCpuPctOfCore: cpuPctOfCore(postgres.stop(), elapsedS),
      participantsCpuPctOfCore: cpuPctOfCore(this.participantsCpuS() - participantsBefore, elapsedS),
      brokerRequests: {
        runtime: kafkaRates(kafkaBefore.runtime, kafkaAfter.runtime, elapsedS),
        participant: kafkaRates(kafkaBefore.participant, kafkaAfter.participant, elapsedS),
      },
    };
  }

  async run(): Promise<B5Result> {
    const size = this.size;
    const t0 = performance.now();
    log(`B5: ${size.replicas} runtime replicas on schema ${this.schema}`);
    // The first replica creates the schema; the others then start on it.
    this.replicas.push(await this.startReplica(0));
    for (let index = 1; index < size.replicas; index += 1) {
      this.replicas.push(await this.startReplica(index));
    }
    const t1 = performance.now();
    log(`B5: ${size.participants} participants in ${this.layout.processes.length} processes`);
    await this.startParticipants(size.shortHeartbeatMs);
    const t2 = performance.now();

    log(`B5: commissioning and priming ${this.layout.groups} compositions`);
    const threePhase = repoFile(THREE_PHASE_YAML);
    const compositionIds: string[] = [];
    for (let group = 0; group < this.layout.groups; group += 1) {
      const api = (this.replicas[group % this.replicas.length] as Replica).api;
      compositionIds.push(
        await commissionAndPrime(
          api,
          fleetCompositionYaml(threePhase, `bench.b5.${this.runId}.g${group}`, group),
          120_000,
        ),
      );
    }
    const t3 = performance.now();

    log(`B5: creating ${size.instances} instances`);
    const template = readInstanceTemplate(THREE_PHASE_INSTANCE);
    const plan: Array<{ compositionId: string; name: string }> = [];
    this.layout.instancesPerGroup.forEach((count, group) => {
      for (let index = 0; index < count; index += 1) {
        plan.push({
          compositionId: compositionIds[group] as string,
          name: `bench-b5-${this.runId}-g${group}-${index}`,
        });
      }
    });
    const instances: Array<{ instanceId: string; compositionId: string }> = [];
    await pool(plan, CREATE_CONCURRENCY, async ({ compositionId, name }, index) => {
      const api = (this.replicas[index % this.replicas.length] as Replica).api;
      instances.push({
        compositionId,
        instanceId: await instantiate(api, freshInstance(template, compositionId, name)),
      });
    });
    const t4 = performance.now();

    const tap = new DispatchTap(this.services.brokers, this.topics.operation, `acm-bench-${this.runId}-b5-tap`);
    await tap.start();
    try {
      log(`B5: deploying ${instances.length} instances, ${size.inFlight} in flight`);
      const deploy = await this.wave(instances, 'DEPLOY', 'DEPLOYED', tap);
      log(`B5: deployed (${JSON.stringify(deploy.accounting)})`);

      log(`B5: steady state, heartbeat ${size.shortHeartbeatMs} ms, ${size.steadyWindowS} s`);
      const steady = [await this.steady(size.shortHeartbeatMs)];
      log(`B5: restarting the participants with ONAP's heartbeat (${ONAP_HEARTBEAT_MS} ms)`);
      await Promise.allSettled(this.participants.map((child) => child.stop()));
      await this.startParticipants(ONAP_HEARTBEAT_MS);
      // The re-registrations' own work settles before the window.
      await sleep(5_000);
      steady.push(await this.steady(ONAP_HEARTBEAT_MS));

      const killedReplica = this.replicas.length - 1;
      let killedAfterOrders = 0;
      log(`B5: undeploying all; replica ${killedReplica} is SIGKILLed halfway`);
      const undeploy = await this.wave(instances, 'UNDEPLOY', 'UNDEPLOYED', tap, async () => {
        killedAfterOrders = Math.ceil(instances.length / 2);
        (this.replicas[killedReplica] as Replica).process.kill();
        await sleep(0);
      });
      log(`B5: undeployed (${JSON.stringify(undeploy.accounting)})`);
      return {
        size,
        compositions: this.layout.groups,
        participantProcesses: this.layout.processes.length,
        setupS: {
          replicas: round((t1 - t0) / 1000, 1),
          participants: round((t2 - t1) / 1000, 1),
          prime: round((t3 - t2) / 1000, 1),
          create: round((t4 - t3) / 1000, 1),
        },
        createPerS: round(instances.length / ((t4 - t3) / 1000), 1),
        deploy,
        steady,
        undeployWithFailover: { ...undeploy, killedReplica, killedAfterOrders },
        supervisionPassMs: null,
      };
    } finally {
      await tap.stop();
    }
  }

  /** Stops everything this benchmark started, drops the schema and the topics. Never throws. */
  async stop(keep: boolean): Promise<void> {
    await Promise.allSettled(this.participants.map((child) => child.stop()));
    await Promise.allSettled(this.replicas.map((replica) => replica.process.stop()));
    this.replicas.forEach((replica) => replica.api.close());
    if (!keep) {
      await this.pool.query(`DROP SCHEMA IF EXISTS "${this.schema}" CASCADE`).catch((error: unknown) => {
        log(`could not drop schema ${this.schema}: ${String(error)}`);
      });
      await deleteTopics(this.services.brokers, [this.topics.operation, this.topics.sync]);
    }
    await this.pool.end().catch(() => undefined);
  }
}

export async function runB5(
  services: Services,
  runId: string,
  logDir: string,
  size: FleetSize,
  keep: boolean,
): Promise<B5Result> {
  const bench = new FleetBench(services, runId, logDir, size);
  try {
    return await bench.run();
  } finally {
    await bench.stop(keep);
  }
}
