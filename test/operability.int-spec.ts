import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { UnitOfWork } from '@acm/domain';
import request from 'supertest';
import { join } from 'node:path';
import { dashboardQueries, exposedSeriesNames, metricNamesOf, samplesOf } from './support/promql';
import type { RuntimeHarness } from './support/runtime-harness';
import {
  BASE,
  PASSWORD,
  REPO_ROOT,
  USER,
  commissionAndPrime,
  readRepoFile,
  registerParticipant,
  startRuntime,
} from './support/runtime-harness';
import { eventually } from './support/scripted-participant';

const SIM_TYPE = 'org.onap.policy.clamp.acm.SimAutomationCompositionElement';
const TOKEN = 'token-c2f1d7e0-logcheck';
const SECRET_PASSWORD = 'password-9a4b-logcheck';

interface Lifecycle {
  readonly compositionId: string;
  readonly instanceId: string;
  readonly deployRequestId: string;
}

/** Commission, prime, instantiate and deploy the sensitive example on the built-in simulator, then undeploy. */
async function deployAndUndeploy(runtime: RuntimeHarness): Promise<Lifecycle> {
  await eventually('the built-in participant to register', async () => {
    const response = await runtime.http.get(`${BASE}/participants`).expect(200);
    return (response.body as unknown[]).length > 0 ? true : undefined;
  });
  const compositionId = await commissionAndPrime(runtime, readRepoFile('tosca/examples/sim-sensitive.yaml'));
  const body = readRepoFile('tosca/examples/instances/sim-sensitive.json')
    .replace('COMPOSITIONIDPLACEHOLDER', compositionId)
    .replace('SECRET-TOKEN-PLACEHOLDER', TOKEN)
    .replace('SECRET-PASSWORD-PLACEHOLDER', SECRET_PASSWORD);
  const created = await runtime.http
    .post(`${BASE}/compositions/${compositionId}/instances`)
    .set('Content-Type', 'application/json')
    .send(body)
    .expect(201);
  const instanceId = (created.body as { instanceId: string }).instanceId;
  const url = `${BASE}/compositions/${compositionId}/instances/${instanceId}`;
  const reached = (state: string) => async (): Promise<true | undefined> => {
    const got = await runtime.http.get(url).expect(200);
    return (got.body as { deployState: string }).deployState === state ? true : undefined;
  };
  const deployRequestId = randomUUID();
  await runtime.http.put(url).set('X-ONAP-RequestID', deployRequestId).send({ deployOrder: 'DEPLOY' }).expect(202);
  await eventually('DEPLOYED', reached('DEPLOYED'));
  // A request without credentials, refused: logged all the same.
  await request(runtime.app.getHttpServer()).get(`${BASE}/compositions`).expect(401);
  await runtime.http.put(url).send({ deployOrder: 'UNDEPLOY' }).expect(202);
  await eventually('UNDEPLOYED', reached('UNDEPLOYED'));
  return { compositionId, instanceId, deployRequestId };
}

describe('a whole lifecycle on PostgreSQL and the built-in simulator: logs, metrics, dashboard', () => {
  let runtime: RuntimeHarness;
  let lifecycle: Lifecycle;
  let scrape: string;
  const log: string[] = [];

  beforeAll(async () => {
    runtime = await startRuntime(
      {
        LOG_LEVEL: 'debug',
        SIMULATOR: 'true',
        SIMULATOR_TIMERS_MS: '0',
        MSG_ENABLE_ENCRYPTION: 'true',
        MSG_ENCRYPTION_KEY: 'operability test passphrase',
      },
      { logDestination: { write: (chunk: string) => log.push(chunk) } },
    );
    lifecycle = await deployAndUndeploy(runtime);
    scrape = (await runtime.http.get('/onap/policy/clamp/acm/actuator/prometheus').expect(200)).text;
  });

  const lines = (): Array<Record<string, unknown>> =>
    log
      .join('')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);

  it('writes one JSON object a line, without colour codes', () => {
    expect(lines().length).toBeGreaterThan(10);
    expect(log.join('')).not.toContain('\u001b[');
  });

  it('never writes the Basic password, the Authorization header or a sensitive property', () => {
    const text = log.join('');
    const header = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');
    for (const secret of [PASSWORD, header, TOKEN, SECRET_PASSWORD]) {
      expect(text).not.toContain(secret);
    }
  });

  it('writes one line per request with route, status, duration, request id and user', () => {
    const deploys = lines().filter(
      (line) => line['method'] === 'PUT' && line['route'] === '/v2/compositions/{compositionId}/instances/{instanceId}',
    );
    expect(deploys).toHaveLength(2);
    expect(deploys[0]).toMatchObject({ status: 202, requestId: lifecycle.deployRequestId, user: USER });
    expect(typeof deploys[0]?.['durationMs']).toBe('number');
    const refused = lines().find((line) => line['status'] === 401);
    expect(refused).toMatchObject({ method: 'GET', route: 'UNKNOWN' });
    // Scrapes and probes come every few seconds: debug only.
    expect(lines().find((line) => line['route'] === '/actuator/prometheus')).toMatchObject({ level: 'debug' });
  });

  it('replaces an X-ONAP-RequestID of 8,000 characters by a fresh UUID, said once, and echoes one of 128', async () => {
    const huge = 'r'.repeat(8_000);
    const answer = await runtime.http.get(`${BASE}/compositions`).set('X-ONAP-RequestID', huge).expect(200);
    const replacement = answer.headers['x-onap-requestid'] as string;
    expect(replacement).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    const mentioning = lines().filter((line) => JSON.stringify(line).includes(replacement));
    expect(mentioning.map((line) => [line['level'], line['msg']])).toEqual([
      [
        'warn',
        `X-ONAP-RequestID of 8000 characters replaced by ${replacement}: it must be 1 to 128 visible ASCII characters`,
      ],
      ['info', `GET ${BASE}/compositions 200`],
    ]);
    expect(lines().filter((line) => JSON.stringify(line).includes('r'.repeat(200)))).toEqual([]);
    const longest = `${randomUUID()}-${'x'.repeat(91)}`;
    expect(longest).toHaveLength(128);
    const echoed = await runtime.http.get(`${BASE}/compositions`).set('X-ONAP-RequestID', longest).expect(200);
    expect(echoed.headers['x-onap-requestid']).toBe(longest);
  });

  it('writes the order, each phase, each element result with its ids and the request id', () => {
    const ids = { compositionId: lifecycle.compositionId, instanceId: lifecycle.instanceId };
    const ofDeploy = lines().filter((line) => line['instanceId'] === lifecycle.instanceId);
    const ordered = ofDeploy.find((line) => line['event'] === 'ORDERED' && line['order'] === 'DEPLOY');
    expect(ordered).toMatchObject({ ...ids, requestId: lifecycle.deployRequestId, user: USER });
    const operationId = ordered?.['operationId'];
    expect(typeof operationId).toBe('string');
    const events = ofDeploy.filter((line) => line['operationId'] === operationId).map((line) => line['event']);
    expect(events).toEqual(
      expect.arrayContaining(['ORDERED', 'PHASE_STARTED', 'ELEMENT_RESULT', 'PHASE_COMPLETED', 'COMPLETED']),
    );
    const result = ofDeploy.find((line) => line['event'] === 'ELEMENT_RESULT' && line['operationId'] === operationId);
    expect(result).toMatchObject({ ...ids, deployState: 'DEPLOYED', result: true, messageType: expect.any(String) });
    // The element by name beside its id, and the order with its duration on the line that ends it.
    expect(result?.['elementName']).toEqual(expect.any(String));
    expect(result?.['msg']).toContain(`${String(result?.['elementName'])} (${String(result?.['elementId'])})`);
    const completed = ofDeploy.find((line) => line['event'] === 'COMPLETED' && line['operationId'] === operationId);
    expect(completed).toMatchObject({ order: 'DEPLOY', durationMs: expect.any(Number) });
    expect(completed?.['msg']).toMatch(/^COMPLETED DEPLOY of instance \S+ after \d+\.\d{3} s$/);
    const primed = lines().find((line) => line['event'] === 'COMPLETED' && line['instanceId'] === null);
    expect(primed).toMatchObject({ compositionId: lifecycle.compositionId });
  });

  it("writes the participant's state change", () => {
    expect(lines()).toEqual(
      expect.arrayContaining([expect.objectContaining({ event: 'PARTICIPANT_STATE', from: null, to: 'ON_LINE' })]),
    );
  });

  afterAll(async () => {
    await runtime.close();
  });

  it('exposes every metric each dashboard query reads', () => {
    const dashboard = JSON.parse(readFileSync(join(REPO_ROOT, 'grafana', 'acm-runtime.json'), 'utf8')) as Parameters<
      typeof dashboardQueries
    >[0];
    const exposed = exposedSeriesNames(scrape);
    const queries = dashboardQueries(dashboard);
    expect(queries.length).toBeGreaterThanOrEqual(20);
    const unknown = queries.flatMap((query) =>
      metricNamesOf(query.expr)
        .filter((name) => !exposed.has(name))
        .map((name) => `${query.panel}: ${name}`),
    );
    expect(unknown).toEqual([]);
  });

  it('measured the phases and ACKs of the deploy and counts the participant online', () => {
    expect(samplesOf(scrape, 'acm_phase_duration_seconds_count')).toEqual(
      expect.arrayContaining([expect.stringMatching(/^acm_phase_duration_seconds_count\{order="DEPLOY"\} [1-9]/)]),
    );
    expect(samplesOf(scrape, 'acm_ack_apply_latency_seconds_count')).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^acm_ack_apply_latency_seconds_count\{type="AUTOMATION_COMPOSITION_STATECHANGE_ACK"\} [1-9]/,
        ),
        expect.stringMatching(/^acm_ack_apply_latency_seconds_count\{type="PARTICIPANT_PRIME_ACK"\} [1-9]/),
      ]),
    );
    expect(samplesOf(scrape, 'acm_participants')).toEqual(['acm_participants{state="ON_LINE"} 1']);
    expect(samplesOf(scrape, 'acm_participant_replicas')).toEqual(['acm_participant_replicas{state="ON_LINE"} 1']);
    expect(samplesOf(scrape, 'acm_kafka_consumer_lag')).toEqual([
      'acm_kafka_consumer_lag{topic="policy-acruntime-participant",group="acm-runtime"} 0',
    ]);
    // Nothing runs once the undeploy finished.
    expect(samplesOf(scrape, 'acm_operations_in_flight')).toEqual([]);
    expect(samplesOf(scrape, 'acm_elements_in_flight')).toEqual([]);
  });
});

describe('engine gauges while an operation runs (PostgreSQL, a participant that never answers)', () => {
  let runtime: RuntimeHarness;

  beforeAll(async () => {
    runtime = await startRuntime();
  });

  afterAll(async () => {
    await runtime.close();
  });

  it('counts the running operation by order and its elements by state', async () => {
    await registerParticipant(runtime.app, randomUUID(), [{ typeName: SIM_TYPE, typeVersion: '1.0.0' }]);
    const created = await runtime.http
      .post(`${BASE}/compositions`)
      .set('Content-Type', 'application/yaml')
      .send(readRepoFile('tosca/examples/sim-single-element.yaml'))
      .expect(201);
    const compositionId = (created.body as { compositionId: string }).compositionId;
    // Stands in for the PRIME_ACK the silent participant never sends.
    await runtime.app.get(UnitOfWork).transaction(async (store) => {
      const found = await store.definitions.find(compositionId);
      if (!found) {
        throw new Error(`no definition ${compositionId}`);
      }
      await store.definitions.update({ ...found.value, state: 'PRIMED' }, found.version);
    });
    const instance = await runtime.http
      .post(`${BASE}/compositions/${compositionId}/instances`)
      .set('Content-Type', 'application/json')
      .send(
        readRepoFile('tosca/examples/instances/sim-single-element.json').replace(
          'COMPOSITIONIDPLACEHOLDER',
          compositionId,
        ),
      )
      .expect(201);
    const instanceId = (instance.body as { instanceId: string }).instanceId;
    await runtime.http
      .put(`${BASE}/compositions/${compositionId}/instances/${instanceId}`)
      .send({ deployOrder: 'DEPLOY' })
      .expect(202);

    const text = (await runtime.http.get('/onap/policy/clamp/acm/actuator/prometheus').expect(200)).text;
    expect(samplesOf(text, 'acm_operations_in_flight')).toEqual(['acm_operations_in_flight{order="DEPLOY"} 1']);
    expect(samplesOf(text, 'acm_elements_in_flight')).toEqual(['acm_elements_in_flight{state="DEPLOYING"} 1']);
    expect(samplesOf(text, 'acm_participants')).toEqual(['acm_participants{state="ON_LINE"} 1']);
    // The DEPLOY message left the outbox once the in-process bus took it.
    expect(samplesOf(text, 'acm_outbox_backlog')).toEqual(['acm_outbox_backlog 0']);
  });
});
