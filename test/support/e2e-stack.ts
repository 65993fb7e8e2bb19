import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import type request from 'supertest';
import supertest from 'supertest';
import type { ProductProcess } from './processes';
import { freePort, runtimeProcess, simulatorProcess } from './processes';
import { PASSWORD, USER } from './runtime-harness';
import { eventually } from './scripted-participant';
import { testDatabaseUrl } from './services';

const API = '/onap/policy/clamp/acm/v2';
/** The simulator's element type, as its SUPPORTED_ELEMENT_TYPES setting names it. */
const SIM_ELEMENT_TYPES = 'org.onap.policy.clamp.acm.SimAutomationCompositionElement:1.0.0';
/** The simulator's control API credentials (ONAP's simulator defaults). */
const SIM_USER = 'participantUser';
const SIM_PASSWORD = 'zb!XztG34';
/** Polls of 20 ms: about 30 s, for a process that has to start (or a participant that has to register). */
const START_POLLS = 1500;

/**
 * Waits until a runtime process answers its health endpoint (it may still be starting: errors are retried).
 * `attempts` is for a stack that starts slower, e.g. on a broker of its own.
 */
export async function runtimeAnswering(api: () => request.Agent, attempts = START_POLLS): Promise<void> {
  await eventually(
    'the runtime to answer',
    async () => {
      const response = await api()
        .get('/onap/policy/clamp/acm/actuator/health')
        .catch(() => undefined);
      return response?.status === 200 ? true : undefined;
    },
    attempts,
  );
}

/** Waits until the runtime knows a participant (its REGISTER was applied). */
export async function participantKnown(
  api: () => request.Agent,
  participantId: string,
  attempts = START_POLLS,
): Promise<void> {
  await eventually(
    `participant ${participantId} to register`,
    async () => ((await api().get(`${API}/participants/${participantId}`)).status === 200 ? true : undefined),
    attempts,
  );
}

export interface CommissionOptions {
  /** How the definition is written; ONAP takes JSON as well as YAML. */
  readonly contentType?: 'application/yaml' | 'application/json';
  /** Polls of 20 ms for PRIMED; eventually's default unless the stack is slower. */
  readonly attempts?: number;
}

/** Commissions a definition over HTTP and primes it; resolves with its id once it is PRIMED. */
export async function commissionedAndPrimed(
  api: () => request.Agent,
  definition: string,
  options: CommissionOptions = {},
): Promise<string> {
  const commissioned = await api()
    .post(`${API}/compositions`)
    .set('Content-Type', options.contentType ?? 'application/yaml')
    .send(definition)
    .expect(201);
  const compositionId = (commissioned.body as { compositionId: string }).compositionId;
  await api().put(`${API}/compositions/${compositionId}`).send({ primeOrder: 'PRIME' }).expect(202);
  await eventually(
    'PRIMED',
    async () => {
      // The composition was just created: any other answer than 200 is a fault, told at once, not as a timeout.
      const state = (await api().get(`${API}/compositions/${compositionId}`).expect(200)).body as { state: string };
      return state.state === 'PRIMED' ? true : undefined;
    },
    options.attempts,
  );
  return compositionId;
}

/** Drops the schema a runtime process used. */
export async function dropSchema(schema: string): Promise<void> {
  const client = new Client({ connectionString: testDatabaseUrl() });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
}

/** The runtime and the simulator as processes over Kafka and PostgreSQL, each test file on topics and a schema of its own. */
export interface SimulatorStack {
  /** A short random suffix that names this file's topics, schema and processes. */
  readonly suffix: string;
  readonly participantId: string;
  /** The runtime's REST API, as the default user. */
  api(): request.Agent;
  /** The simulator's control API. */
  sim(): request.Agent;
  /** Kills the runtime (SIGKILL: no shutdown hook runs) and starts a new one on the same port, schema and topics. */
  restartRuntime(): Promise<void>;
}

/**
 * Starts a runtime and a simulator participant before the file's tests (once the participant has registered) and
 * stops both and drops the schema after them. `label` names the processes, topics and schema; `simulatorEnv` adds
 * settings of the simulator (e.g. `SIM_OBSERVE`).
 */
export function simulatorStack(label: string, simulatorEnv: Record<string, string> = {}): SimulatorStack {
  const suffix = randomUUID().slice(0, 8);
  const schema = `e2e_${label}_${suffix}`;
  const topics = { op: `acm-e2e-op-${label}-${suffix}`, sync: `acm-e2e-sync-${label}-${suffix}` };
  const participantId = randomUUID();
  let runtimeUrl = '';
  let simUrl = '';
  let runtime: ProductProcess | undefined;
  let simulator: ProductProcess | undefined;
  const stack: SimulatorStack = {
    suffix,
    participantId,
    api: () => supertest.agent(runtimeUrl).auth(USER, PASSWORD),
    sim: () => supertest.agent(simUrl).auth(SIM_USER, SIM_PASSWORD),
    restartRuntime: async () => {
      await runtime?.stop('SIGKILL');
      runtime = newRuntime();
      runtime.start();
      await runtimeAnswering(stack.api);
    },
  };
  let runtimePort = 0;
  const newRuntime = (): ProductProcess =>
    runtimeProcess(`runtime-${label}-${suffix}`, {
      port: runtimePort,
      schema,
      groupId: `acm-runtime-${label}-${suffix}`,
      topics,
    });

  beforeAll(async () => {
    let simPort: number;
    [runtimePort, simPort] = await Promise.all([freePort(), freePort()]);
    runtimeUrl = `http://127.0.0.1:${runtimePort}`;
    simUrl = `http://127.0.0.1:${simPort}`;
    runtime = newRuntime();
    runtime.start();
    await runtimeAnswering(stack.api);
    simulator = simulatorProcess(`sim-${label}-${suffix}`, {
      port: simPort,
      participantId,
      types: SIM_ELEMENT_TYPES,
      topics,
      env: simulatorEnv,
    });
    simulator.start();
    await participantKnown(stack.api, participantId);
  }, 120_000);

  afterAll(async () => {
    await simulator?.stop();
    await runtime?.stop();
    await dropSchema(schema);
  });

  return stack;
}
