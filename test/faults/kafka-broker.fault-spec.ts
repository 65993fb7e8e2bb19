/**
 * Broker faults under load, on a broker of the suite's own (the shared one on 9092 is never stopped):
 * 1. SIGKILL and restart with its data during concurrent deploys;
 * 2. SIGKILL and restart with an empty log directory (a new cluster: no topics, no offsets, no producer
 *    state), with deploys ordered before the kill and during the outage;
 * 3. 10 000 malformed records on the operation topic, then a deploy.
 * Each asserts 0 lost, 0 stuck, 0 duplicated from the runtime's REST view and the simulator's handler
 * invocation log, and counts 5xx answers. Every wait is on a state, with a bounded deadline.
 */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { Response } from 'supertest';
import { KafkaMessageBus } from '@acm/messaging';
import { commissionedAndPrimed, dropSchema, participantKnown, runtimeAnswering } from '../support/e2e-stack';
import { FaultBroker } from '../support/fault-broker';
import type { ProductProcess } from '../support/processes';
import { freePort, runtimeProcess, simulatorProcess } from '../support/processes';
import { PASSWORD, USER, readRepoFile } from '../support/runtime-harness';
import { eventually } from '../support/scripted-participant';

const API = '/onap/policy/clamp/acm/v2';
const SIM_API = '/onap/policy/simparticipant/v2';
const SIM_TYPE = 'org.onap.policy.clamp.acm.SimAutomationCompositionElement:1.0.0';
/** The broker is the suite's own, so ONAP's default topic names are free to use (services-up creates them). */
const TOPICS = { op: 'policy-acruntime-participant', sync: 'acm-ppnt-sync' };
const BROKER_PORT = Number(process.env['ACM_FAULT_KAFKA_PORT'] ?? '19092');
const DEPLOYS_PER_SCENARIO = 20;
/** How long in-flight deploys may take to finish once the broker is back (its consumers reconnect with backoff). */
const SETTLE_MS = 150_000;
/**
 * Polls of 20 ms for the stack to start and prime: twice the e2e specs' wait, as both processes first
 * meet a broker that was itself just started. The set-up's answers are not counted: each test counts
 * 5xx answers only from its own start.
 */
const START_POLLS = 3_000;

interface Figures {
  orders: number;
  deployed: number;
  elementRuns: number;
  lost: number;
  stuck: number;
  duplicated: number;
  serverErrors: number;
}

describe('broker faults during deploys (own broker, runtime and simulator as processes)', () => {
  const suffix = randomUUID().slice(0, 8);
  const schema = `fault_${suffix}`;
  const broker = new FaultBroker(`broker-${suffix}`, BROKER_PORT);
  const participantId = randomUUID();
  const processes: ProductProcess[] = [];
  const figures: Record<string, Figures> = {};
  let runtimeUrl = '';
  let simUrl = '';
  let compositionId = '';
  let serverErrors = 0;

  const api = (): request.Agent => request.agent(runtimeUrl).auth(USER, PASSWORD);
  const counted = async (call: Promise<Response>): Promise<Response> => {
    const response = await call;
    if (response.status >= 500) {
      serverErrors += 1;
    }
    return response;
  };

  function started(process: ProductProcess): ProductProcess {
    process.start();
    processes.push(process);
    return process;
  }

  beforeAll(async () => {
    await broker.start();
    const [runtimePort, simPort] = await Promise.all([freePort(), freePort()]);
    runtimeUrl = `http://127.0.0.1:${runtimePort}`;
    simUrl = `http://127.0.0.1:${simPort}`;
    const kafka = { KAFKA_BOOTSTRAP_SERVERS: broker.bootstrap };
    started(
      runtimeProcess(`fault-runtime-${suffix}`, {
        port: runtimePort,
        schema,
        groupId: 'acm-runtime',
        topics: TOPICS,
        // The default supervision period: its pass also relays what the outbox kept during the outage.
        env: { ...kafka, HEART_BEAT: '5000' },
      }),
    );
    await runtimeAnswering(api, START_POLLS);
    started(
      simulatorProcess(`fault-sim-${suffix}`, {
        port: simPort,
        participantId,
        types: SIM_TYPE,
        topics: TOPICS,
        env: kafka,
      }),
    );
    await participantKnown(api, participantId, START_POLLS);
    compositionId = await commissionedAndPrimed(api, readRepoFile('tosca/examples/sim-single-element.yaml'), {
      attempts: START_POLLS,
    });
  }, 240_000);

  afterAll(async () => {
    await Promise.all(processes.map((process) => process.stop()));
    await broker.destroy();
    await dropSchema(schema);
    console.log(`fault figures:\n${JSON.stringify(figures, null, 2)}`);
  }, 120_000);

  /** Creates instances of the single-element composition, each with element ids of its own. */
  async function createInstances(count: number): Promise<Map<string, string>> {
    const body = JSON.parse(
      readRepoFile('tosca/examples/instances/sim-single-element.json').replace(
        /COMPOSITIONIDPLACEHOLDER/g,
        compositionId,
      ),
    ) as { name: string; elements: Record<string, { id: string }> };
    const elementByInstance = new Map<string, string>();
    for (let index = 0; index < count; index += 1) {
      const elementId = randomUUID();
      const [element] = Object.values(body.elements);
      const response = await counted(
        api()
          .post(`${API}/compositions/${compositionId}/instances`)
          .send({
            ...body,
            name: `${body.name}-${randomUUID().slice(0, 8)}`,
            elements: { [elementId]: { ...element, id: elementId } },
          }),
      );
      expect(response.status).toBe(201);
      elementByInstance.set((response.body as { instanceId: string }).instanceId, elementId);
    }
    return elementByInstance;
  }

  async function deploy(instanceIds: string[]): Promise<void> {
    const answers = await Promise.all(
      instanceIds.map((instanceId) =>
        counted(
          api().put(`${API}/compositions/${compositionId}/instances/${instanceId}`).send({ deployOrder: 'DEPLOY' }),
        ),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(instanceIds.map(() => 202));
  }

  /** Polls every instance until all are DEPLOYED or one ended otherwise, or the deadline passes; then counts. */
  async function settle(elementByInstance: Map<string, string>, errorsBefore: number): Promise<Figures> {
    const states = new Map<string, { deployState?: string; stateChangeResult?: string; phase?: number }>();
    const done = (state: { deployState?: string; phase?: number } | undefined): boolean =>
      state?.deployState === 'DEPLOYED' && state.phase === undefined;
    const deadline = Date.now() + SETTLE_MS;
    while (Date.now() < deadline) {
      for (const instanceId of elementByInstance.keys()) {
        if (!done(states.get(instanceId))) {
          const response = await counted(api().get(`${API}/compositions/${compositionId}/instances/${instanceId}`));
          if (response.status === 200) {
            states.set(instanceId, response.body as { deployState?: string });
          }
        }
      }
      const all = [...elementByInstance.keys()].map((id) => states.get(id));
      if (
        all.every(done) ||
        all.some((state) => state?.stateChangeResult === 'FAILED' || state?.stateChangeResult === 'TIMEOUT')
      ) {
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const log = (await request.agent(simUrl).auth('participantUser', 'zb!XztG34').get(`${SIM_API}/invocations`))
      .body as Array<{
      targetId: string;
      invocations: number;
    }>;
    const runsByElement = new Map<string, number>();
    const ours = new Set(elementByInstance.values());
    for (const entry of log.filter((item) => ours.has(item.targetId))) {
      runsByElement.set(entry.targetId, (runsByElement.get(entry.targetId) ?? 0) + entry.invocations);
    }
    const all = [...elementByInstance.keys()].map((id) => states.get(id));
    const ended = all.filter(
      (state) => state?.stateChangeResult === 'FAILED' || state?.stateChangeResult === 'TIMEOUT',
    );
    return {
      orders: elementByInstance.size,
      deployed: all.filter(done).length,
      elementRuns: [...runsByElement.values()].reduce((sum, runs) => sum + runs, 0),
      lost: ended.length + [...ours].filter((elementId) => !runsByElement.has(elementId)).length,
      stuck: all.filter((state) => !done(state) && !ended.includes(state)).length,
      duplicated: [...runsByElement.values()].reduce((sum, runs) => sum + Math.max(0, runs - 1), 0),
      serverErrors: serverErrors - errorsBefore,
    };
  }

  function expectClean(result: Figures): void {
    expect(result).toMatchObject({
      deployed: result.orders,
      elementRuns: result.orders,
      lost: 0,
      stuck: 0,
      duplicated: 0,
      serverErrors: 0,
    });
  }

  it('finishes every deploy when the broker is killed and restarts with its data', async () => {
    const errorsBefore = serverErrors;
    const elementByInstance = await createInstances(DEPLOYS_PER_SCENARIO);
    await deploy([...elementByInstance.keys()]);
    await broker.stop('SIGKILL');
    await broker.start();
    figures['sigkill-restart-with-data'] = await settle(elementByInstance, errorsBefore);
    expectClean(figures['sigkill-restart-with-data']);
  }, 300_000);

  it('finishes every deploy when the broker comes back empty, as a new cluster', async () => {
    const errorsBefore = serverErrors;
    const elementByInstance = await createInstances(DEPLOYS_PER_SCENARIO);
    const [before, during] = [
      [...elementByInstance.keys()].slice(0, DEPLOYS_PER_SCENARIO / 2),
      [...elementByInstance.keys()].slice(DEPLOYS_PER_SCENARIO / 2),
    ];
    await deploy(before);
    await broker.stop('SIGKILL');
    broker.wipeData();
    // Accepted while no broker answers: the outbox keeps them until the new cluster takes them.
    await deploy(during);
    await broker.start();
    figures['restart-with-empty-data'] = await settle(elementByInstance, errorsBefore);
    expectClean(figures['restart-with-empty-data']);
  }, 300_000);

  it('counts 10 000 malformed records on the operation topic, stays up, and deploys afterwards', async () => {
    const errorsBefore = serverErrors;
    const metricsText = async (): Promise<number> => {
      const text = (await counted(api().get('/onap/policy/clamp/acm/actuator/prometheus'))).text;
      return text
        .split('\n')
        .filter((line) => line.startsWith('acm_participant_messages_rejected_total{'))
        .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
    };
    const rejectedBefore = await metricsText();
    const bus = new KafkaMessageBus({
      brokers: [broker.bootstrap],
      clientId: `fault-${suffix}`,
      logger: () => undefined,
    });
    const total = 10_000;
    try {
      for (let start = 0; start < total; start += 1_000) {
        await bus.publish(
          TOPICS.op,
          Array.from({ length: 1_000 }, (_, index) => ({
            key: `junk-${(start + index) % 10}`,
            value:
              (start + index) % 2 === 0
                ? `{not json ${start + index}`
                : JSON.stringify({ messageType: 'NO_SUCH_TYPE' }),
          })),
        );
      }
    } finally {
      await bus.close();
    }
    const rejected = await eventually(
      'every malformed record to be counted',
      async () => {
        const count = (await metricsText()) - rejectedBefore;
        return count >= total ? count : undefined;
      },
      6_000,
    );
    expect(rejected).toBe(total);
    expect((await counted(api().get('/onap/policy/clamp/acm/actuator/health'))).status).toBe(200);

    const elementByInstance = await createInstances(1);
    await deploy([...elementByInstance.keys()]);
    figures['malformed-records'] = await settle(elementByInstance, errorsBefore);
    expectClean(figures['malformed-records']);
  }, 300_000);
});
