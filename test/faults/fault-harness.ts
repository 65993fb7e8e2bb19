import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import request from 'supertest';
import { ProductProcess, SIMULATOR_SCRIPT, freePort, runtimeProcess } from '../support/processes';
import { PASSWORD, USER, readRepoFile } from '../support/runtime-harness';
import { eventually } from '../support/scripted-participant';
import { testDatabaseUrl, testKafkaBrokers } from '../support/services';

const API = '/onap/policy/clamp/acm/v2';
const SIM_API = '/onap/policy/simparticipant/v2';
const SIM_TYPES = 'org.onap.policy.clamp.acm.SimAutomationCompositionElement:1.0.0';
/** Elements per instance of tosca/examples/sim-three-phase.yaml (two per start phase). */
export const ELEMENTS_PER_INSTANCE = 6;

interface HistoryEvent {
  event: string;
  detail: Record<string, unknown>;
}

interface InstanceView {
  deployState: string;
  stateChangeResult: string;
  phase?: number;
  elements: Record<string, { deployState: string }>;
}

/** What a scenario reports: orders given, element runs seen, and the faults that must all be 0. */
export interface FaultFigures {
  orders: number;
  elementResults: number;
  elementRuns: number;
  lost: number;
  stuck: number;
  duplicated: number;
  serverErrors: number;
}

/**
 * One fault scenario's world: a runtime process on the shared PostgreSQL (own schema) and Kafka (own
 * topics), simulator processes of one participant, a REST client that counts 5xx answers.
 */
export class FaultWorld {
  readonly suffix = randomUUID().slice(0, 8);
  readonly participantId = randomUUID();
  readonly topics = { op: `acm-fault-op-${this.suffix}`, sync: `acm-fault-sync-${this.suffix}` };
  serverErrors = 0;
  /** Instances created so far: their names must be unique. */
  private created = 0;
  private runtimeUrl = '';
  private readonly processes: ProductProcess[] = [];
  private readonly runtimes: Array<{ process: ProductProcess; url: string; env: Record<string, string> }> = [];

  /** Starts the scenario's runtime; REST calls go to it. */
  async startRuntime(env: Record<string, string>): Promise<void> {
    this.runtimeUrl = await this.launchRuntime(env);
  }

  /** A second runtime replica on the same schema and consumer group; REST calls stay on the first. */
  async startRuntimeReplica(env: Record<string, string>): Promise<void> {
    await this.launchRuntime(env);
  }

  /** Kills the runtime REST calls go to with SIGKILL and starts a new one in its place. */
  async restartRuntime(): Promise<void> {
    const current = this.runtimes.find((runtime) => runtime.url === this.runtimeUrl)!;
    await current.process.stop('SIGKILL');
    this.runtimeUrl = await this.launchRuntime(current.env);
  }

  /** The URLs of the replicas started so far, oldest first (a restarted one appears again at its new URL). */
  get runtimeUrls(): string[] {
    return this.runtimes.map((runtime) => runtime.url);
  }

  /** Sends the next REST calls to the replica at `url`. */
  useRuntime(url: string): void {
    this.runtimeUrl = url;
  }

  /** Kills the replica at `url` with SIGKILL and starts a new one with its settings; answers the new URL. */
  async restartRuntimeAt(url: string): Promise<string> {
    const killed = this.runtimes.find((runtime) => runtime.url === url)!;
    await killed.process.stop('SIGKILL');
    return this.launchRuntime(killed.env);
  }

  /** Kills the first runtime replica with SIGKILL; REST calls move to the next one. */
  async killFirstRuntime(): Promise<void> {
    const [first, next] = this.runtimes;
    await first?.process.stop('SIGKILL');
    this.runtimeUrl = next?.url ?? '';
  }

  private async launchRuntime(env: Record<string, string>): Promise<string> {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const runtime = runtimeProcess(`fault-runtime-${this.suffix}-${this.runtimes.length}`, {
      port,
      schema: `fault_${this.suffix}`,
      groupId: `acm-runtime-${this.suffix}`,
      topics: this.topics,
      env,
    });
    this.processes.push(runtime);
    this.runtimes.push({ process: runtime, url, env });
    runtime.start();
    await eventually(
      `the runtime at ${url} to answer`,
      async () => {
        const response = await request(url)
          .get('/onap/policy/clamp/acm/actuator/health')
          .auth(USER, PASSWORD)
          .catch(() => undefined);
        return response?.status === 200 ? true : undefined;
      },
      1500,
    );
    return url;
  }

  /** A simulator replica of the scenario's participant whose element handlers take `elementMs`. */
  async startSimulator(name: string, elementMs: number): Promise<{ process: ProductProcess; url: string }> {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const simulator = new ProductProcess(`${name}-${this.suffix}`, SIMULATOR_SCRIPT, {
      SIM_PORT: String(port),
      PARTICIPANT_ID: this.participantId,
      PARTICIPANT_SUPPORTED_ELEMENT_TYPES: SIM_TYPES,
      KAFKA_BOOTSTRAP_SERVERS: testKafkaBrokers().join(','),
      OPERATION_TOPIC: this.topics.op,
      SYNC_TOPIC: this.topics.sync,
      HEARTBEAT_MS: '1000',
      SIM_TIMERS_MS: String(elementMs),
    });
    this.processes.push(simulator);
    simulator.start();
    await eventually(
      `the simulator at ${url}`,
      async () => {
        const response = await this.sim(url)
          .get(`${SIM_API}/parameters`)
          .catch(() => undefined);
        return response?.status === 200 ? true : undefined;
      },
      1500,
    );
    return { process: simulator, url };
  }

  /** Stops every process of the scenario and drops its schema. */
  async stopAll(): Promise<void> {
    for (const product of this.processes.reverse()) {
      await product.stop('SIGKILL');
    }
    const client = new Client({ connectionString: testDatabaseUrl() });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "fault_${this.suffix}" CASCADE`);
    await client.end();
  }

  api(): request.Agent {
    return request.agent(this.runtimeUrl).auth(USER, PASSWORD);
  }

  sim(url: string): request.Agent {
    return request.agent(url).auth('participantUser', 'zb!XztG34');
  }

  async call(test: request.Test): Promise<request.Response> {
    const response = await test;
    if (response.status >= 500) {
      this.serverErrors += 1;
    }
    return response;
  }

  async onlineReplicas(): Promise<number> {
    const response = await this.call(this.api().get(`${API}/participants/${this.participantId}`));
    if (response.status !== 200) {
      return 0;
    }
    const { replicas } = (response.body as { participant: { replicas: Record<string, { participantState: string }> } })
      .participant;
    return Object.values(replicas).filter((replica) => replica.participantState === 'ON_LINE').length;
  }

  /** Commissions and primes the three-phase composition; returns its id. */
  async primedComposition(): Promise<string> {
    const created = await this.call(
      this.api()
        .post(`${API}/compositions`)
        .set('Content-Type', 'application/yaml')
        .send(readRepoFile('tosca/examples/sim-three-phase.yaml')),
    );
    const compositionId = (created.body as { compositionId: string }).compositionId;
    await this.call(this.api().put(`${API}/compositions/${compositionId}`).send({ primeOrder: 'PRIME' }));
    await eventually(
      'PRIMED',
      async () => {
        const got = await this.call(this.api().get(`${API}/compositions/${compositionId}`));
        return (got.body as { state?: string }).state === 'PRIMED' ? true : undefined;
      },
      1500,
    );
    return compositionId;
  }

  /** Creates `count` instances and orders DEPLOY on all of them at once; returns their ids. */
  async deployInstances(compositionId: string, count: number): Promise<string[]> {
    const instanceIds = await this.createInstances(compositionId, count);
    await Promise.all(
      instanceIds.map((instanceId) =>
        this.call(
          this.api()
            .put(`${API}/compositions/${compositionId}/instances/${instanceId}`)
            .send({ deployOrder: 'DEPLOY' }),
        ),
      ),
    );
    return instanceIds;
  }

  /** Creates `count` UNDEPLOYED instances of the three-phase composition, one after the other; returns their ids. */
  async createInstances(compositionId: string, count: number): Promise<string[]> {
    const template = JSON.parse(
      readRepoFile('tosca/examples/instances/sim-three-phase.json').replace(/COMPOSITIONIDPLACEHOLDER/g, compositionId),
    ) as { name: string; elements: Record<string, { id: string }> };
    const instanceIds: string[] = [];
    for (let index = 0; index < count; index += 1) {
      const elements = Object.fromEntries(
        Object.values(template.elements).map((element) => {
          const id = randomUUID();
          return [id, { ...element, id }];
        }),
      );
      const response = await this.call(
        this.api()
          .post(`${API}/compositions/${compositionId}/instances`)
          .send({ ...template, name: `${template.name}-${this.suffix}-${this.created++}`, elements }),
      );
      if (response.status !== 201) {
        throw new Error(`Instance not created: ${response.status} ${JSON.stringify(response.body)}`);
      }
      instanceIds.push((response.body as { instanceId: string }).instanceId);
    }
    return instanceIds;
  }

  async instances(compositionId: string, instanceIds: readonly string[]): Promise<InstanceView[]> {
    return Promise.all(
      instanceIds.map(async (instanceId) => {
        const response = await this.call(
          this.api().get(`${API}/compositions/${compositionId}/instances/${instanceId}`),
        );
        return response.body as InstanceView;
      }),
    );
  }

  /** Element ids the runtime already has DEPLOYED: whoever runs them again duplicates work. */
  async deployedElements(compositionId: string, instanceIds: readonly string[]): Promise<Set<string>> {
    const deployed = new Set<string>();
    for (const view of await this.instances(compositionId, instanceIds)) {
      for (const [elementId, element] of Object.entries(view.elements)) {
        if (element.deployState === 'DEPLOYED') {
          deployed.add(elementId);
        }
      }
    }
    return deployed;
  }

  /** Waits (bounded by `attempts` polls) until every instance is DEPLOYED with no open phase. */
  async allDeployed(compositionId: string, instanceIds: readonly string[], attempts: number): Promise<InstanceView[]> {
    return eventually(
      'every instance DEPLOYED',
      async () => {
        const views = await this.instances(compositionId, instanceIds);
        return views.every((view) => view.deployState === 'DEPLOYED' && view.phase === undefined) ? views : undefined;
      },
      attempts,
    );
  }

  /** Handler runs per element in a live simulator's invocation log. */
  async runsOf(url: string): Promise<Map<string, number>> {
    const log = (await this.sim(url).get(`${SIM_API}/invocations`).expect(200)).body as Array<{
      targetId: string;
      invocations: number;
    }>;
    const runs = new Map<string, number>();
    for (const entry of log) {
      runs.set(entry.targetId, (runs.get(entry.targetId) ?? 0) + entry.invocations);
    }
    return runs;
  }

  /**
   * The scenario's figures from the runtime's history (one ELEMENT_RESULT per element, none missing) and
   * the live simulators' logs (no element run twice, none run again after the runtime had it DEPLOYED).
   */
  async figures(
    compositionId: string,
    instanceIds: readonly string[],
    liveRuns: ReadonlyArray<Map<string, number>>,
    deployedBefore: ReadonlySet<string>,
  ): Promise<FaultFigures> {
    let elementResults = 0;
    let duplicated = 0;
    let lost = 0;
    for (const instanceId of instanceIds) {
      const history = (
        await this.call(this.api().get(`${API}/compositions/${compositionId}/instances/${instanceId}/history`))
      ).body as { events: HistoryEvent[] };
      const perElement = new Map<string, number>();
      for (const result of history.events.filter((event) => event.event === 'ELEMENT_RESULT')) {
        elementResults += 1;
        const elementId = String(result.detail['elementId']);
        perElement.set(elementId, (perElement.get(elementId) ?? 0) + 1);
      }
      duplicated += [...perElement.values()].filter((count) => count > 1).length;
      lost += ELEMENTS_PER_INSTANCE - perElement.size;
    }
    const views = await this.instances(compositionId, instanceIds);
    const elementIds = new Set(views.flatMap((view) => Object.keys(view.elements)));
    // The logs also hold the prime of the composition: only element runs count.
    const total = new Map<string, number>();
    for (const runs of liveRuns) {
      for (const [targetId, count] of runs) {
        if (elementIds.has(targetId)) {
          total.set(targetId, (total.get(targetId) ?? 0) + count);
        }
      }
    }
    duplicated += [...total.values()].filter((count) => count > 1).length;
    duplicated += [...total.keys()].filter((elementId) => deployedBefore.has(elementId)).length;
    return {
      orders: instanceIds.length,
      elementResults,
      elementRuns: [...total.values()].reduce((sum, count) => sum + count, 0),
      lost,
      stuck: views.filter((view) => view.deployState !== 'DEPLOYED' || view.stateChangeResult !== 'NO_ERROR').length,
      duplicated,
      serverErrors: this.serverErrors,
    };
  }
}
