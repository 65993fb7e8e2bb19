import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { UnitOfWork } from '@acm/domain';
import { join } from 'node:path';
import { dashboardQueries, exposedSeriesNames, metricNamesOf, samplesOf } from './support/promql';
import type { RuntimeHarness } from './support/runtime-harness';
import {
  BASE,
  REPO_ROOT,
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
  await runtime.http.put(url).send({ deployOrder: 'DEPLOY' }).expect(202);
  await eventually('DEPLOYED', reached('DEPLOYED'));
  await runtime.http.put(url).send({ deployOrder: 'UNDEPLOY' }).expect(202);
  await eventually('UNDEPLOYED', reached('UNDEPLOYED'));
  return { compositionId, instanceId };
}

describe('engine metrics and the dashboard after a deploy (PostgreSQL, built-in simulator)', () => {
  let runtime: RuntimeHarness;
  let scrape: string;

  beforeAll(async () => {
    runtime = await startRuntime({
      SIMULATOR: 'true',
      SIMULATOR_TIMERS_MS: '0',
      MSG_ENABLE_ENCRYPTION: 'true',
      MSG_ENCRYPTION_KEY: 'operability test passphrase',
    });
    await deployAndUndeploy(runtime);
    scrape = (await runtime.http.get('/onap/policy/clamp/acm/actuator/prometheus').expect(200)).text;
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
