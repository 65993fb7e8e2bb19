/**
 * The network between the runtime and PostgreSQL breaks without the server stopping, on a TCP proxy in front of the
 * shared server (the suite's own schema):
 * 1. a 30 s blackhole (nothing forwarded, nothing closed) while deploys run and orders keep coming: every request
 *    answers 503 with Retry-After within the bound (statement deadline + connection wait), before the network is back;
 *    no order is applied later than its answer said, and once healed every order completes;
 * 2. 50 ms of latency each way: every order completes, no 5xx;
 * 3. every connection reset (RST) three times while deploys run: every order completes.
 * Each asserts 0 lost, 0 stuck, 0 duplicated from the runtime's history and the simulator's log.
 */
import { randomUUID } from 'node:crypto';
import type request from 'supertest';
import { readRepoFile } from '../support/runtime-harness';
import { eventually } from '../support/scripted-participant';
import { testDatabaseUrl } from '../support/services';
import { TcpProxy } from '../support/tcp-proxy';
import { FaultWorld } from './fault-harness';

const API = '/onap/policy/clamp/acm/v2';
const BLACKHOLE_MS = 30_000;
/** The runtime's defaults: DATABASE_STATEMENT_TIMEOUT_MS, the client's margin over it, the wait for a connection. */
const STATEMENT_MS = 5000;
const MARGIN_MS = 1000;
const CONNECT_MS = 5000;
/** The longest a request may wait on a silent database: a connection, then one statement. */
const BOUND_MS = CONNECT_MS + STATEMENT_MS + MARGIN_MS;
/** Requests sent at once during the blackhole. */
const PROBERS = 4;
/** Element handlers take this long, so ACKs arrive while the network is broken. */
const ELEMENT_MS = 400;
const SETTLE_POLLS = 4000;
/** What a 503 may say during the blackhole; the last leaves the outcome to the history. */
const UNCERTAIN_COMMIT = 'the order was applied only if its history says so';

interface Answer {
  readonly instanceId: string | null;
  readonly status: number;
  readonly retryAfter: string | undefined;
  readonly errorDetails: string;
  readonly ms: number;
}

interface HistoryEvent {
  event: string;
  detail: Record<string, unknown>;
}

describe('fault: the network to PostgreSQL blackholed, slow and reset', () => {
  const world = new FaultWorld();
  const target = new URL(testDatabaseUrl());
  const proxy = new TcpProxy(target.hostname, Number(target.port));
  let simulatorUrl = '';
  let compositionId = '';
  const created: string[] = [];

  beforeAll(async () => {
    const port = await proxy.start();
    await world.startRuntime({ DATABASE_URL: testDatabaseUrl().replace(`:${target.port}/`, `:${port}/`) });
    simulatorUrl = (await world.startSimulator('db-network-sim', ELEMENT_MS)).url;
    await eventually(
      'the simulator ON_LINE',
      async () => ((await world.onlineReplicas()) === 1 ? true : undefined),
      1500,
    );
    compositionId = await world.primedComposition();
  }, 180_000);

  afterAll(async () => {
    proxy.heal();
    proxy.delay(0);
    await world.stopAll();
    await proxy.close();
  });

  /** Creates instances without deploying them. */
  async function createInstances(count: number): Promise<string[]> {
    const template = JSON.parse(
      readRepoFile('tosca/examples/instances/sim-three-phase.json').replace(/COMPOSITIONIDPLACEHOLDER/g, compositionId),
    ) as { name: string; elements: Record<string, { id: string }> };
    const ids: string[] = [];
    for (let index = 0; index < count; index += 1) {
      const elements = Object.fromEntries(
        Object.values(template.elements).map((element) => {
          const id = randomUUID();
          return [id, { ...element, id }];
        }),
      );
      const response = await world.call(
        world
          .api()
          .post(`${API}/compositions/${compositionId}/instances`)
          .send({ ...template, name: `net-${world.suffix}-${created.length}`, elements }),
      );
      expect(response.status).toBe(201);
      const instanceId = (response.body as { instanceId: string }).instanceId;
      created.push(instanceId);
      ids.push(instanceId);
    }
    return ids;
  }

  const deploy = (instanceId: string): request.Test =>
    world.api().put(`${API}/compositions/${compositionId}/instances/${instanceId}`).send({ deployOrder: 'DEPLOY' });

  async function timed(instanceId: string | null, test: request.Test): Promise<Answer> {
    const started = performance.now();
    const response = await test;
    return {
      instanceId,
      status: response.status,
      retryAfter: response.headers['retry-after'],
      errorDetails: (response.body as { errorDetails?: string }).errorDetails ?? '',
      ms: Math.round(performance.now() - started),
    };
  }

  async function deployOrders(instanceId: string): Promise<number> {
    const history = (
      await world.call(world.api().get(`${API}/compositions/${compositionId}/instances/${instanceId}/history`))
    ).body as { events: HistoryEvent[] };
    return history.events.filter((event) => event.event === 'ORDERED' && event.detail['order'] === 'DEPLOY').length;
  }

  it(`answers 503 + Retry-After within the bound through a ${BLACKHOLE_MS / 1000} s blackhole, applies nothing late, then completes every order`, async () => {
    const [running, waiting] = [await createInstances(4), await createInstances(8)];
    for (const instanceId of running) {
      expect((await world.call(deploy(instanceId))).status).toBe(202);
    }
    const errorsBefore = world.serverErrors;

    proxy.blackhole();
    const started = performance.now();
    const answers: Answer[] = [];
    const unordered = [...waiting];
    await Promise.all(
      Array.from({ length: PROBERS }, async () => {
        while (performance.now() - started < BLACKHOLE_MS) {
          const instanceId = unordered.shift();
          answers.push(
            instanceId === undefined
              ? await timed(null, world.api().get(`${API}/compositions/${compositionId}/instances/${running[0]}`))
              : await timed(instanceId, deploy(instanceId)),
          );
        }
      }),
    );
    // Every request above has its answer while the network is still silent: none waited for it to come back.
    const longest = Math.max(...answers.map((answer) => answer.ms));
    proxy.heal();
    console.log(
      `blackhole ${BLACKHOLE_MS / 1000} s: ${answers.length} requests, longest ${longest} ms, bound ${BOUND_MS} ms; answers ${JSON.stringify(
        [...new Set(answers.map((answer) => `${answer.status} ${answer.errorDetails}`))],
      )}`,
    );

    expect(answers.filter((answer) => answer.status !== 503 || answer.retryAfter !== '5')).toEqual([]);
    expect(answers.filter((answer) => answer.errorDetails === '')).toEqual([]);
    expect(longest).toBeLessThan(BOUND_MS * 3);
    expect(unordered).toEqual([]);

    // An order answered 503 is applied only if its history says so when it is looked at; a client retries the
    // others, and a retry the runtime refused as "already ordered" would show an order applied after its answer.
    const retried: string[] = [];
    for (const answer of answers.filter((each) => each.instanceId !== null)) {
      const instanceId = answer.instanceId!;
      const applied = (await deployOrders(instanceId)) === 1;
      if (!answer.errorDetails.includes(UNCERTAIN_COMMIT)) {
        expect({ instanceId, applied }).toEqual({ instanceId, applied: false });
      }
      if (!applied) {
        const retry = await world.call(deploy(instanceId));
        expect({ instanceId, status: retry.status, body: retry.body as unknown }).toEqual({
          instanceId,
          status: 202,
          body: expect.anything() as unknown,
        });
        retried.push(instanceId);
      }
    }
    const instanceIds = [...running, ...waiting];
    await world.allDeployed(compositionId, instanceIds, SETTLE_POLLS);
    for (const instanceId of instanceIds) {
      expect({ instanceId, orders: await deployOrders(instanceId) }).toEqual({ instanceId, orders: 1 });
    }
    const figures = await world.figures(compositionId, instanceIds, [await world.runsOf(simulatorUrl)], new Set());
    console.log(`blackhole figures: ${JSON.stringify({ ...figures, retried: retried.length, longestMs: longest })}`);
    expect({ ...figures, serverErrors: figures.serverErrors - errorsBefore }).toMatchObject({
      lost: 0,
      stuck: 0,
      duplicated: 0,
      serverErrors: 0,
    });
  });

  it('completes every order through 50 ms of latency each way, with no 5xx', async () => {
    const errorsBefore = world.serverErrors;
    proxy.delay(50);
    const instanceIds = await createInstances(4);
    for (const instanceId of instanceIds) {
      expect((await world.call(deploy(instanceId))).status).toBe(202);
    }
    await world.allDeployed(compositionId, instanceIds, SETTLE_POLLS);
    proxy.delay(0);
    const figures = await world.figures(compositionId, instanceIds, [await world.runsOf(simulatorUrl)], new Set());
    console.log(`latency figures: ${JSON.stringify(figures)}`);
    expect({ ...figures, serverErrors: figures.serverErrors - errorsBefore }).toMatchObject({
      lost: 0,
      stuck: 0,
      duplicated: 0,
      serverErrors: 0,
    });
  });

  it('completes every order when every connection is reset three times during deploys', async () => {
    const instanceIds = await createInstances(6);
    for (const instanceId of instanceIds) {
      expect((await world.call(deploy(instanceId))).status).toBe(202);
    }
    let resets = 0;
    const views = async (): Promise<Array<{ deployState: string }>> =>
      (
        await Promise.all(
          instanceIds.map((instanceId) =>
            world.api().get(`${API}/compositions/${compositionId}/instances/${instanceId}`),
          ),
        )
      ).map((response) => response.body as { deployState: string });
    // Each reset waits until the runtime is connected again and a deploy is still under way.
    while (resets < 3) {
      await eventually(
        'a connection to reset during a deploy',
        async () =>
          proxy.connections > 0 && (await views()).some((view) => view.deployState === 'DEPLOYING') ? true : undefined,
        1500,
      );
      proxy.reset();
      resets += 1;
    }
    await world.allDeployed(compositionId, instanceIds, SETTLE_POLLS);
    const figures = await world.figures(compositionId, instanceIds, [await world.runsOf(simulatorUrl)], new Set());
    console.log(`reset figures: ${JSON.stringify({ ...figures, resets })}`);
    expect(figures).toMatchObject({ lost: 0, stuck: 0, duplicated: 0 });
    for (const instanceId of instanceIds) {
      expect({ instanceId, orders: await deployOrders(instanceId) }).toEqual({ instanceId, orders: 1 });
    }
  });
});
