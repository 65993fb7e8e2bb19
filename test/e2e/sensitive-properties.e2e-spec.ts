import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import request from 'supertest';
import { commissionedAndPrimed, dropSchema, participantKnown, runtimeAnswering } from '../support/e2e-stack';
import type { ProductProcess } from '../support/processes';
import { E2E_LOG_DIR, freePort, runtimeProcess, simulatorProcess } from '../support/processes';
import { PASSWORD, USER, readRepoFile } from '../support/runtime-harness';
import { eventually } from '../support/scripted-participant';
import { testDatabaseUrl } from '../support/services';

const API = '/onap/policy/clamp/acm/v2';
const SIM_API = '/onap/policy/simparticipant/v2';
const SIM_TYPES = 'org.onap.policy.clamp.acm.SimAutomationCompositionElement:1.0.0';

interface Element {
  properties: Record<string, unknown>;
}

interface Instance {
  deployState: string;
  lockState: string;
  phase?: number;
  elements: Record<string, Element>;
}

/**
 * A sensitive property through a whole lifecycle with MSG_ENABLE_ENCRYPTION on: the runtime and the
 * simulator as processes over Kafka and PostgreSQL, both logging at their most verbose.
 */
describe('sensitive properties over Kafka and PostgreSQL (runtime + simulator processes)', () => {
  const suffix = randomUUID().slice(0, 8);
  const schema = `e2e_secret_${suffix}`;
  const topics = { op: `acm-e2e-op-secret-${suffix}`, sync: `acm-e2e-sync-secret-${suffix}` };
  const participantId = randomUUID();
  const token = `tok-${randomUUID()}`;
  const password = `pw-${randomUUID()}`;
  const runtimeName = `runtime-secret-${suffix}`;
  const simulatorName = `sim-secret-${suffix}`;
  let runtimeUrl = '';
  let simUrl = '';
  let runtime: ProductProcess;
  let simulator: ProductProcess;

  const api = (): request.Agent => request.agent(runtimeUrl).auth(USER, PASSWORD);
  const sim = (): request.Agent => request.agent(simUrl).auth('participantUser', 'zb!XztG34');

  beforeAll(async () => {
    const [runtimePort, simPort] = await Promise.all([freePort(), freePort()]);
    runtimeUrl = `http://127.0.0.1:${runtimePort}`;
    simUrl = `http://127.0.0.1:${simPort}`;
    runtime = runtimeProcess(runtimeName, {
      port: runtimePort,
      schema,
      groupId: `acm-runtime-secret-${suffix}`,
      topics,
      env: { MSG_ENABLE_ENCRYPTION: 'true', MSG_ENCRYPTION_KEY: `key-${suffix}`, LOG_LEVEL: 'verbose' },
    });
    runtime.start();
    await runtimeAnswering(api);
    simulator = simulatorProcess(simulatorName, { port: simPort, participantId, types: SIM_TYPES, topics });
    simulator.start();
    await participantKnown(api, participantId);
  }, 120_000);

  afterAll(async () => {
    await simulator?.stop();
    await runtime?.stop();
    await dropSchema(schema);
  });

  async function storedProperties(elementId: string): Promise<Record<string, unknown> | undefined> {
    const client = new Client({ connectionString: testDatabaseUrl() });
    await client.connect();
    try {
      const result = await client.query<{ properties: Record<string, unknown> }>(
        `SELECT properties FROM "${schema}".automation_composition_element WHERE element_id = $1`,
        [elementId],
      );
      return result.rows[0]?.properties;
    } finally {
      await client.end();
    }
  }

  async function instance(compositionId: string, instanceId: string): Promise<Instance> {
    return (await api().get(`${API}/compositions/${compositionId}/instances/${instanceId}`).expect(200))
      .body as Instance;
  }

  async function until(compositionId: string, instanceId: string, deployState: string): Promise<Instance> {
    return eventually(`the instance to be ${deployState}`, async () => {
      const current = await instance(compositionId, instanceId);
      return current.deployState === deployState && current.phase === undefined ? current : undefined;
    });
  }

  it('stores it encrypted, masks it in GET and history, sends it in clear and never logs it', async () => {
    const compositionId = await commissionedAndPrimed(api, readRepoFile('tosca/examples/sim-sensitive.yaml'));

    const body = readRepoFile('tosca/examples/instances/sim-sensitive.json')
      .replace(/COMPOSITIONIDPLACEHOLDER/g, compositionId)
      .replace('SECRET-TOKEN-PLACEHOLDER', token)
      .replace('SECRET-PASSWORD-PLACEHOLDER', password);
    const [elementId] = Object.keys((JSON.parse(body) as { elements: Record<string, unknown> }).elements);
    if (elementId === undefined) {
      throw new Error('the example instance has no element');
    }
    const instantiated = await api()
      .post(`${API}/compositions/${compositionId}/instances`)
      .set('Content-Type', 'application/json')
      .send(body)
      .expect(201);
    const instanceId = (instantiated.body as { instanceId: string }).instanceId;

    const stored = await storedProperties(elementId);
    expect(stored?.['baseUrl']).toEqual(expect.stringMatching(/^ENCRYPTED:/));
    expect((stored?.['credentials'] as Record<string, unknown>)['password']).toEqual(
      expect.stringMatching(/^ENCRYPTED:/),
    );

    await api()
      .put(`${API}/compositions/${compositionId}/instances/${instanceId}`)
      .send({ deployOrder: 'DEPLOY' })
      .expect(202);
    const deployed = await until(compositionId, instanceId, 'DEPLOYED');
    expect(deployed.elements[elementId]?.properties['baseUrl']).toBe('******');
    expect(deployed.elements[elementId]?.properties['credentials']).toEqual({ user: 'operator', password: '******' });

    const atSimulator = (await sim().get(`${SIM_API}/instances/${instanceId}`).expect(200)).body as Instance;
    expect(atSimulator.elements[elementId]?.properties['baseUrl']).toBe(`http://sim.example:30800/?token=${token}`);
    expect(atSimulator.elements[elementId]?.properties['credentials']).toEqual({ user: 'operator', password });

    await api()
      .put(`${API}/compositions/${compositionId}/instances/${instanceId}`)
      .send({ deployOrder: 'UNDEPLOY' })
      .expect(202);
    await until(compositionId, instanceId, 'UNDEPLOYED');
    const history = await api().get(`${API}/compositions/${compositionId}/instances/${instanceId}/history`).expect(200);
    expect((history.body as { events: unknown[] }).events.length).toBeGreaterThan(0);
    expect(JSON.stringify(history.body)).not.toMatch(new RegExp(`${token}|${password}|ENCRYPTED:`));
    expect((await storedProperties(elementId))?.['baseUrl']).toEqual(expect.stringMatching(/^ENCRYPTED:/));

    await api().delete(`${API}/compositions/${compositionId}/instances/${instanceId}`).expect(202);
    await eventually('the instance to be deleted', async () =>
      (await api().get(`${API}/compositions/${compositionId}/instances/${instanceId}`)).status === 404
        ? true
        : undefined,
    );

    await simulator.stop();
    await runtime.stop();
    const runtimeLog = readFileSync(join(E2E_LOG_DIR, `${runtimeName}.log`), 'utf8');
    expect(runtimeLog.length).toBeGreaterThan(0);
    for (const log of [runtimeLog, readFileSync(join(E2E_LOG_DIR, `${simulatorName}.log`), 'utf8')]) {
      expect(log).not.toContain(token);
      expect(log).not.toContain(password);
    }
  });
});
