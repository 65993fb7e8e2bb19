import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { commissionedAndPrimed, dropSchema, participantKnown, runtimeAnswering } from '../support/e2e-stack';
import type { ProductProcess } from '../support/processes';
import { freePort, runtimeProcess, simulatorProcess } from '../support/processes';
import { PASSWORD, USER, readRepoFile } from '../support/runtime-harness';
import { eventually } from '../support/scripted-participant';

const API = '/onap/policy/clamp/acm/v2';
const SIM_API = '/onap/policy/simparticipant/v2';
const KEPT_PARTICIPANT = '101c62b3-8918-41b9-a747-d21eb79c6cb0';
const NEW_PARTICIPANT = '101c62b3-8918-41b9-a747-d21eb79c6cb1';
/** ONAP's participant heartbeat: a parked order would wait two of these. */
const ONAP_HEARTBEAT_MS = '120000';
/** Polls of the migration: about 30 s at most, far below the two heartbeats (240 s) a stall would take. */
const MIGRATION_POLLS = 1000;

// The source is served by one participant only (its Sink becomes an element of the first simulator's type);
// the target adds Extra, of a type only the second simulator serves: that participant owns only NEW elements.
const fromYaml = readRepoFile('tosca/examples/sim-migration-from.yaml').replace(
  /(\n {6}type: org\.onap\.policy\.clamp\.acm\.SimAutomationCompositionElement)2\n/,
  '$1\n',
);
const toYaml = readRepoFile('tosca/examples/sim-migration-to.yaml');
const createBody = readRepoFile('tosca/examples/instances/sim-migration-from.json');
const migrateBody = readRepoFile('tosca/examples/instances/sim-migration-to.json');

interface Instance {
  compositionId: string;
  deployState: string;
  lockState: string;
  subState: string;
  stateChangeResult: string;
  phase?: number;
  elements: Record<string, { participantId?: string }>;
}

describe('migration to a composition with a participant that owns only NEW elements (Kafka, PostgreSQL)', () => {
  const suffix = randomUUID().slice(0, 8);
  const schema = `e2e_mignew_${suffix}`;
  const topics = { op: `acm-e2e-mignew-op-${suffix}`, sync: `acm-e2e-mignew-sync-${suffix}` };
  let runtimeUrl = '';
  let newSimUrl = '';
  const processes: ProductProcess[] = [];

  const api = (): request.Agent => request.agent(runtimeUrl).auth(USER, PASSWORD);

  beforeAll(async () => {
    const [runtimePort, keptPort, newPort] = await Promise.all([freePort(), freePort(), freePort()]);
    runtimeUrl = `http://127.0.0.1:${runtimePort}`;
    newSimUrl = `http://127.0.0.1:${newPort}`;
    const runtime = runtimeProcess(`runtime-mignew-${suffix}`, {
      port: runtimePort,
      schema,
      groupId: `acm-runtime-mignew-${suffix}`,
      topics,
    });
    runtime.start();
    processes.push(runtime);
    await runtimeAnswering(api);
    const sims = [
      simulatorProcess(`sim-mignew-kept-${suffix}`, {
        port: keptPort,
        participantId: KEPT_PARTICIPANT,
        types: 'org.onap.policy.clamp.acm.SimAutomationCompositionElement:1.0.0',
        topics,
        env: { HEARTBEAT_MS: ONAP_HEARTBEAT_MS },
      }),
      simulatorProcess(`sim-mignew-new-${suffix}`, {
        port: newPort,
        participantId: NEW_PARTICIPANT,
        types: 'org.onap.policy.clamp.acm.SimAutomationCompositionElement2:1.0.0',
        topics,
        env: { HEARTBEAT_MS: ONAP_HEARTBEAT_MS },
      }),
    ];
    for (const sim of sims) {
      sim.start();
      processes.push(sim);
    }
    for (const id of [KEPT_PARTICIPANT, NEW_PARTICIPANT]) {
      await participantKnown(api, id);
    }
  }, 120_000);

  afterAll(async () => {
    for (const process of processes.slice(1)) {
      await process.stop();
    }
    await processes[0]?.stop();
    await dropSchema(schema);
  });

  async function settled(compositionId: string, instanceId: string, attempts?: number): Promise<Instance> {
    return eventually(
      `DEPLOYED on ${compositionId}`,
      async () => {
        const response = await api().get(`${API}/compositions/${compositionId}/instances/${instanceId}`);
        const current = response.body as Instance;
        return response.status === 200 &&
          current.compositionId === compositionId &&
          current.deployState === 'DEPLOYED' &&
          current.subState === 'NONE' &&
          current.phase === undefined
          ? current
          : undefined;
      },
      attempts,
    );
  }

  it('prechecks, then migrates to DEPLOYED on the target without waiting for a heartbeat', async () => {
    const fromId = await commissionedAndPrimed(api, fromYaml);
    const toId = await commissionedAndPrimed(api, toYaml);
    const created = await api()
      .post(`${API}/compositions/${fromId}/instances`)
      .send(JSON.parse(createBody.replace(/COMPOSITIONIDPLACEHOLDER/g, fromId)))
      .expect(201);
    const instanceId = (created.body as { instanceId: string }).instanceId;
    await api()
      .put(`${API}/compositions/${fromId}/instances/${instanceId}`)
      .send({ deployOrder: 'DEPLOY' })
      .expect(202);
    const deployed = await settled(fromId, instanceId);
    expect(Object.values(deployed.elements).every((element) => element.participantId === KEPT_PARTICIPANT)).toBe(true);

    const migrate = JSON.parse(
      migrateBody
        .replace(/COMPOSITIONIDPLACEHOLDER/g, fromId)
        .replace(/INSTANCEIDPLACEHOLDER/g, instanceId)
        .replace(/COMPOSITIONTARGETIDPLACEHOLDER/g, toId),
    ) as object;
    await api()
      .post(`${API}/compositions/${fromId}/instances`)
      .send({ ...migrate, precheck: true })
      .expect(200);
    const prechecked = await settled(fromId, instanceId);
    expect(prechecked.stateChangeResult).toBe('NO_ERROR');

    await api().post(`${API}/compositions/${fromId}/instances`).send(migrate).expect(200);
    const migrated = await settled(toId, instanceId, MIGRATION_POLLS);
    expect(migrated).toMatchObject({ lockState: 'LOCKED', stateChangeResult: 'NO_ERROR' });
    const owners = Object.values(migrated.elements).map((element) => element.participantId);
    expect(owners).toContain(NEW_PARTICIPANT);

    // The participant that joined the instance through the migration holds its element.
    const held = (
      await request
        .agent(newSimUrl)
        .auth('participantUser', 'zb!XztG34')
        .get(`${SIM_API}/instances/${instanceId}`)
        .expect(200)
    ).body as { elements?: Record<string, { deployState: string }> };
    expect(Object.values(held.elements ?? {}).map((element) => element.deployState)).toEqual(['DEPLOYED']);
  });
});
