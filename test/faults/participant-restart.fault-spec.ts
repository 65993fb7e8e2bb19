import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { ProductProcess } from '../support/processes';
import { ProductProcess as Process, SIMULATOR_SCRIPT, freePort, runtimeProcess } from '../support/processes';
import { PASSWORD, USER, readRepoFile } from '../support/runtime-harness';
import { eventually } from '../support/scripted-participant';
import { testKafkaBrokers } from '../support/services';

const API = '/onap/policy/clamp/acm/v2';
const SIM_API = '/onap/policy/simparticipant/v2';
const SIM_TYPES = 'org.onap.policy.clamp.acm.SimAutomationCompositionElement:1.0.0';
const INSTANCES = 8;
const ELEMENT_MS = 1500;

interface HistoryEvent {
  event: string;
  operationId: string;
  detail: Record<string, unknown>;
}

/**
 * Scenario 3 of the fault suite: a participant is killed with SIGKILL mid-phase and started again as a
 * new process (a new replica of the same participantId). Its unfinished work must be picked up at once —
 * long before the dead replica is OFF_LINE (MAX_STATUS_WAIT keeps its 150 s default) — with no element
 * lost, stuck or run twice.
 */
describe('fault: a participant killed mid-phase and restarted', () => {
  const suffix = randomUUID().slice(0, 8);
  const schema = `fault_${suffix}`;
  const topics = { op: `acm-fault-op-${suffix}`, sync: `acm-fault-sync-${suffix}` };
  const participantId = randomUUID();
  let runtimeUrl = '';
  let runtime: ProductProcess;
  const simulators: ProductProcess[] = [];
  let serverErrors = 0;

  const api = (): request.Agent => request.agent(runtimeUrl).auth(USER, PASSWORD);
  const sim = (url: string): request.Agent => request.agent(url).auth('participantUser', 'zb!XztG34');

  function simulator(name: string, port: number): ProductProcess {
    const product = new Process(`${name}-${suffix}`, SIMULATOR_SCRIPT, {
      SIM_PORT: String(port),
      PARTICIPANT_ID: participantId,
      PARTICIPANT_SUPPORTED_ELEMENT_TYPES: SIM_TYPES,
      KAFKA_BOOTSTRAP_SERVERS: testKafkaBrokers().join(','),
      OPERATION_TOPIC: topics.op,
      SYNC_TOPIC: topics.sync,
      HEARTBEAT_MS: '1000',
      SIM_TIMERS_MS: String(ELEMENT_MS),
    });
    simulators.push(product);
    return product;
  }

  async function call(test: request.Test): Promise<request.Response> {
    const response = await test;
    if (response.status >= 500) {
      serverErrors += 1;
    }
    return response;
  }

  async function simUp(url: string): Promise<void> {
    await eventually(
      `the simulator at ${url}`,
      async () => {
        const response = await sim(url)
          .get(`${SIM_API}/parameters`)
          .catch(() => undefined);
        return response?.status === 200 ? true : undefined;
      },
      1500,
    );
  }

  async function onlineReplicas(): Promise<number> {
    const response = await call(api().get(`${API}/participants/${participantId}`));
    if (response.status !== 200) {
      return 0;
    }
    const replicas = (response.body as { participant: { replicas: Record<string, { participantState: string }> } })
      .participant.replicas;
    return Object.values(replicas).filter((replica) => replica.participantState === 'ON_LINE').length;
  }

  beforeAll(async () => {
    const port = await freePort();
    runtimeUrl = `http://127.0.0.1:${port}`;
    runtime = runtimeProcess(`fault-runtime-${suffix}`, {
      port,
      schema,
      groupId: `acm-runtime-${suffix}`,
      topics,
      env: { HEART_BEAT: '500', MAX_OPERATION_WAIT: '600000' },
    });
    runtime.start();
    await eventually(
      'the runtime to answer',
      async () => {
        const response = await api()
          .get('/onap/policy/clamp/acm/actuator/health')
          .catch(() => undefined);
        return response?.status === 200 ? true : undefined;
      },
      1500,
    );
  });

  afterAll(async () => {
    for (const product of simulators) {
      await product.stop();
    }
    await runtime.stop();
  });

  it('finishes the killed replica’s work at once on the restarted one, nothing lost, stuck or run twice', async () => {
    const firstPort = await freePort();
    const firstUrl = `http://127.0.0.1:${firstPort}`;
    const first = simulator('sim-first', firstPort);
    first.start();
    await simUp(firstUrl);
    await eventually(
      'the participant to register',
      async () => ((await onlineReplicas()) >= 1 ? true : undefined),
      1500,
    );

    const created = await call(
      api()
        .post(`${API}/compositions`)
        .set('Content-Type', 'application/yaml')
        .send(readRepoFile('tosca/examples/sim-three-phase.yaml')),
    );
    expect(created.status).toBe(201);
    const compositionId = (created.body as { compositionId: string }).compositionId;
    expect((await call(api().put(`${API}/compositions/${compositionId}`).send({ primeOrder: 'PRIME' }))).status).toBe(
      202,
    );
    await eventually(
      'PRIMED',
      async () => {
        const got = await call(api().get(`${API}/compositions/${compositionId}`));
        return (got.body as { state?: string }).state === 'PRIMED' ? true : undefined;
      },
      1500,
    );

    const template = JSON.parse(
      readRepoFile('tosca/examples/instances/sim-three-phase.json').replace(/COMPOSITIONIDPLACEHOLDER/g, compositionId),
    ) as { name: string; elements: Record<string, { id: string }> };
    const instanceIds: string[] = [];
    for (let index = 0; index < INSTANCES; index += 1) {
      const elements = Object.fromEntries(
        Object.values(template.elements).map((element) => {
          const id = randomUUID();
          return [id, { ...element, id }];
        }),
      );
      const response = await call(
        api()
          .post(`${API}/compositions/${compositionId}/instances`)
          .send({ ...template, name: `${template.name}-${suffix}-${index}`, elements }),
      );
      expect(response.status).toBe(201);
      instanceIds.push((response.body as { instanceId: string }).instanceId);
    }
    const orders = await Promise.all(
      instanceIds.map((instanceId) =>
        call(api().put(`${API}/compositions/${compositionId}/instances/${instanceId}`).send({ deployOrder: 'DEPLOY' })),
      ),
    );
    expect(orders.map((response) => response.status)).toEqual(instanceIds.map(() => 202));

    // Kill the participant while phase-0 elements are running (their handlers take ELEMENT_MS).
    await eventually(
      'the participant to be working',
      async () => {
        const log = (await sim(firstUrl).get(`${SIM_API}/invocations`).expect(200)).body as unknown[];
        return log.length >= INSTANCES ? true : undefined;
      },
      1500,
    );
    await first.stop('SIGKILL');
    // What the killed replica had finished, as the runtime saw it: the restarted one must not redo it.
    const completedBeforeRestart = new Set<string>();
    for (const instanceId of instanceIds) {
      const view = (await call(api().get(`${API}/compositions/${compositionId}/instances/${instanceId}`))).body as {
        elements: Record<string, { deployState: string }>;
      };
      for (const [elementId, element] of Object.entries(view.elements)) {
        if (element.deployState === 'DEPLOYED') {
          completedBeforeRestart.add(elementId);
        }
      }
    }
    const secondPort = await freePort();
    const secondUrl = `http://127.0.0.1:${secondPort}`;
    const second = simulator('sim-restarted', secondPort);
    second.start();
    await simUp(secondUrl);

    // Bounded well below MAX_STATUS_WAIT (150 s): 40 s at most, polling the instances.
    const states = await eventually(
      'every instance DEPLOYED',
      async () => {
        const views = await Promise.all(
          instanceIds.map(async (instanceId) => {
            const response = await call(api().get(`${API}/compositions/${compositionId}/instances/${instanceId}`));
            return response.body as { deployState: string; stateChangeResult: string; phase?: number };
          }),
        );
        return views.every((view) => view.deployState === 'DEPLOYED' && view.phase === undefined) ? views : undefined;
      },
      2000,
    );
    expect(states.every((view) => view.stateChangeResult === 'NO_ERROR')).toBe(true);

    // Runtime side: one result per element of each deploy operation.
    let elementResults = 0;
    let duplicated = 0;
    let lost = 0;
    for (const instanceId of instanceIds) {
      const history = (await call(api().get(`${API}/compositions/${compositionId}/instances/${instanceId}/history`)))
        .body as { events: HistoryEvent[] };
      const results = history.events.filter((event) => event.event === 'ELEMENT_RESULT');
      elementResults += results.length;
      const perElement = new Map<string, number>();
      for (const result of results) {
        const elementId = String(result.detail['elementId']);
        perElement.set(elementId, (perElement.get(elementId) ?? 0) + 1);
      }
      duplicated += [...perElement.values()].filter((count) => count > 1).length;
      lost += 6 - perElement.size;
    }
    // Participant side: the restarted replica ran each element once, and none the killed one had finished.
    const log = (await sim(secondUrl).get(`${SIM_API}/invocations`).expect(200)).body as Array<{
      targetId: string;
      invocations: number;
    }>;
    const runs = new Map<string, number>();
    for (const entry of log) {
      runs.set(entry.targetId, (runs.get(entry.targetId) ?? 0) + entry.invocations);
    }
    duplicated += [...runs.values()].filter((count) => count > 1).length;
    const redoneAfterRestart = [...runs.keys()].filter((elementId) => completedBeforeRestart.has(elementId)).length;

    const figures = {
      orders: instanceIds.length,
      elementResults,
      restartedReplicaRuns: [...runs.values()].reduce((sum, count) => sum + count, 0),
      lost,
      stuck: states.filter((view) => view.deployState !== 'DEPLOYED').length,
      duplicated: duplicated + redoneAfterRestart,
      serverErrors,
    };
    process.stdout.write(`participant-restart figures: ${JSON.stringify(figures)}\n`);
    expect(figures).toMatchObject({ lost: 0, stuck: 0, duplicated: 0, serverErrors: 0 });
    expect(elementResults).toBe(instanceIds.length * 6);
  });
});
