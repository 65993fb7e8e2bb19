import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { OwnPostgres } from '../support/own-postgres';
import type { ProductProcess } from '../support/processes';
import { freePort, runtimeProcess, simulatorProcess } from '../support/processes';
import { PASSWORD, REPO_ROOT, USER } from '../support/runtime-harness';
import { eventually } from '../support/scripted-participant';

const API = '/onap/policy/clamp/acm/v2';
const SIM_API = '/onap/policy/simparticipant/v2';
const SIM_TYPE = 'org.onap.policy.clamp.acm.SimAutomationCompositionElement:1.0.0';
const PARTICIPANT = '101c62b3-8918-41b9-a747-d21eb79c6c99';
const DEPLOYS = 6;
/** Answers collected while the database is down: enough to see every kind of request refused the same way. */
const OUTAGE_PROBES = 20;

interface InstanceView {
  deployState: string;
  lockState: string;
  stateChangeResult: string;
  phase?: number;
}

describe('PostgreSQL stopped and started during deploys', () => {
  const suffix = randomUUID().slice(0, 8);
  const topics = { op: `acm-fault-pg-op-${suffix}`, sync: `acm-fault-pg-sync-${suffix}` };
  let postgres: OwnPostgres;
  let runtime: ProductProcess;
  let simulator: ProductProcess;
  let runtimeUrl = '';
  let simUrl = '';

  const api = (): request.Agent => request.agent(runtimeUrl).auth(USER, PASSWORD);
  const sim = (): request.Agent => request.agent(simUrl).auth('participantUser', 'zb!XztG34');

  beforeAll(async () => {
    const [pgPort, runtimePort, simPort] = await Promise.all([freePort(), freePort(), freePort()]);
    postgres = new OwnPostgres(pgPort);
    postgres.init();
    postgres.start();
    runtimeUrl = `http://127.0.0.1:${runtimePort}`;
    simUrl = `http://127.0.0.1:${simPort}`;
    runtime = runtimeProcess(`outage-runtime-${suffix}`, {
      port: runtimePort,
      schema: 'acm',
      groupId: `acm-fault-pg-${suffix}`,
      topics,
      env: { DATABASE_URL: postgres.url },
    });
    runtime.start();
    await eventually(
      'the runtime to answer',
      async () =>
        (
          await api()
            .get('/onap/policy/clamp/acm/actuator/health')
            .catch(() => undefined)
        )?.status === 200
          ? true
          : undefined,
      3000,
    );
    simulator = simulatorProcess(`outage-sim-${suffix}`, {
      port: simPort,
      participantId: PARTICIPANT,
      types: SIM_TYPE,
      topics,
    });
    simulator.start();
    await eventually(
      'the simulator to register',
      async () => ((await api().get(`${API}/participants/${PARTICIPANT}`)).status === 200 ? true : undefined),
      3000,
    );
  }, 180_000);

  afterAll(async () => {
    await simulator?.stop();
    await runtime?.stop();
    postgres?.destroy();
  });

  it('answers 503 with Retry-After while the database is down, then finishes every deploy once, with none lost', async () => {
    const yaml = readFileSync(join(REPO_ROOT, 'tosca/examples/sim-single-element.yaml'), 'utf8');
    const commissioned = await api()
      .post(`${API}/compositions`)
      .set('Content-Type', 'application/yaml')
      .send(yaml)
      .expect(201);
    const compositionId = (commissioned.body as { compositionId: string }).compositionId;
    await api().put(`${API}/compositions/${compositionId}`).send({ primeOrder: 'PRIME' }).expect(202);
    await eventually('PRIMED', async () =>
      ((await api().get(`${API}/compositions/${compositionId}`)).body as { state: string }).state === 'PRIMED'
        ? true
        : undefined,
    );
    // The simulator takes a while per deploy, so its ACKs arrive while the database is down.
    await sim().put(`${SIM_API}/parameters`).send({ deployTimerMs: 1500 }).expect(200);

    const template = readFileSync(join(REPO_ROOT, 'tosca/examples/instances/sim-single-element.json'), 'utf8');
    const instanceIds: string[] = [];
    const elementIds: string[] = [];
    for (let index = 0; index < DEPLOYS; index += 1) {
      const elementId = randomUUID();
      elementIds.push(elementId);
      const body = template
        .replace(/COMPOSITIONIDPLACEHOLDER/g, compositionId)
        .replace(/5e1f0000-0000-4000-8000-000000001001/g, elementId)
        .replace('"SimSingleElementInstance"', `"outage-${index}"`);
      const created = await api()
        .post(`${API}/compositions/${compositionId}/instances`)
        .set('Content-Type', 'application/json')
        .send(body)
        .expect(201);
      instanceIds.push((created.body as { instanceId: string }).instanceId);
    }
    for (const instanceId of instanceIds) {
      await api()
        .put(`${API}/compositions/${compositionId}/instances/${instanceId}`)
        .send({ deployOrder: 'DEPLOY' })
        .expect(202);
    }

    postgres.stop('immediate');
    const outageAnswers: Array<{ status: number; retryAfter: unknown; body: unknown }> = [];
    for (let probe = 0; probe < OUTAGE_PROBES; probe += 1) {
      const instanceId = instanceIds[probe % DEPLOYS]!;
      const response =
        probe % 2 === 0
          ? await api().get(`${API}/compositions/${compositionId}/instances/${instanceId}`)
          : await api()
              .put(`${API}/compositions/${compositionId}/instances/${instanceId}`)
              .send({ deployOrder: 'DEPLOY' });
      outageAnswers.push({ status: response.status, retryAfter: response.headers['retry-after'], body: response.body });
    }
    // Every simulated deploy finishes (and its ACK is sent) while the database is still down.
    await eventually(
      'the simulator to finish every deploy',
      async () => {
        const list = (await sim().get(`${SIM_API}/instances`)).body as { automationCompositionList: InstanceView[] };
        return list.automationCompositionList.filter((instance) => instance.deployState === 'DEPLOYED').length ===
          DEPLOYS
          ? true
          : undefined;
      },
      3000,
    );
    postgres.start();

    expect(outageAnswers).toEqual(
      Array(OUTAGE_PROBES).fill({
        status: 503,
        retryAfter: '5',
        body: { errorDetails: 'The database is not reachable; retry later' },
      }),
    );
    const finals = await eventually(
      'every deploy to reach DEPLOYED',
      async () => {
        const views: InstanceView[] = [];
        for (const instanceId of instanceIds) {
          const response = await api().get(`${API}/compositions/${compositionId}/instances/${instanceId}`);
          if (response.status !== 200) {
            return undefined;
          }
          views.push(response.body as InstanceView);
        }
        return views.every((view) => view.deployState === 'DEPLOYED' && view.phase === undefined) ? views : undefined;
      },
      3000,
    );
    expect(finals.map((view) => [view.deployState, view.lockState, view.stateChangeResult])).toEqual(
      Array(DEPLOYS).fill(['DEPLOYED', 'LOCKED', 'NO_ERROR']),
    );
    const invocations = (await sim().get(`${SIM_API}/invocations`).expect(200)).body as Array<{
      targetId: string;
      invocations: number;
    }>;
    expect(invocations.filter((entry) => entry.invocations !== 1)).toEqual([]);
    for (const elementId of elementIds) {
      expect(invocations.filter((entry) => entry.targetId === elementId)).toHaveLength(1);
    }
  });
});
