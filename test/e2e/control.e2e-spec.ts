import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { ProductProcess } from '../support/processes';
import { freePort, runtimeProcess, simulatorProcess } from '../support/processes';
import { PASSWORD, USER } from '../support/runtime-harness';
import { commissionedAndPrimed, dropSchema, participantKnown, runtimeAnswering } from '../support/e2e-stack';
import { eventually } from '../support/scripted-participant';
import { repoFile } from './lifecycle.scenarios';

const SIM_PARTICIPANT = '101c62b3-8918-41b9-a747-d21eb79c6c90';
const API = '/onap/policy/clamp/acm/v2';
const SIM_API = '/onap/policy/simparticipant/v2';
const FIXTURE_ELEMENT = '5e1f0000-0000-4000-8000-000000001001';

interface Instance {
  deployState: string;
  lockState: string;
  stateChangeResult: string;
  phase?: number;
}

/**
 * Control of running work over real Kafka and PostgreSQL, runtime and simulator as processes: a lost deploy
 * message healed by the resend after MAX_WAIT_MS, and a cancelled deploy from which DEPLOY and UNDEPLOY both work.
 */
describe('control of running work: runtime + simulator as processes over Kafka', () => {
  const suffix = randomUUID().slice(0, 8);
  const schema = `e2e_control_${suffix}`;
  const topics = { op: `acm-e2e-op-${suffix}`, sync: `acm-e2e-sync-${suffix}` };
  let runtimeUrl = '';
  let simUrl = '';
  let runtime: ProductProcess;
  let simulator: ProductProcess;
  let compositionId = '';

  const api = (): request.Agent => request.agent(runtimeUrl).auth(USER, PASSWORD);
  const sim = (): request.Agent => request.agent(simUrl).auth('participantUser', 'zb!XztG34');

  beforeAll(async () => {
    const [runtimePort, simPort] = await Promise.all([freePort(), freePort()]);
    runtimeUrl = `http://127.0.0.1:${runtimePort}`;
    simUrl = `http://127.0.0.1:${simPort}`;
    // A short supervision period and MAX_WAIT_MS, so the resend comes within a second of silence.
    runtime = runtimeProcess(`runtime-control-${suffix}`, {
      port: runtimePort,
      schema,
      groupId: `acm-runtime-${suffix}`,
      topics,
      env: { HEART_BEAT: '200', MAX_WAIT_MS: '1000', MAX_RETRY_COUNT: '3' },
    });
    runtime.start();
    await runtimeAnswering(api);
    simulator = simulatorProcess(`sim-control-${suffix}`, {
      port: simPort,
      participantId: SIM_PARTICIPANT,
      types: 'org.onap.policy.clamp.acm.SimAutomationCompositionElement:1.0.0',
      topics,
    });
    simulator.start();
    await participantKnown(api, SIM_PARTICIPANT);
    compositionId = await commissionedAndPrimed(api, repoFile('tosca/examples/sim-single-element.yaml'));
  }, 120_000);

  afterAll(async () => {
    await simulator?.stop();
    await runtime?.stop();
    await dropSchema(schema);
  });

  /** A new instance of the single-element composition, with its own element id and name. */
  async function instantiate(): Promise<{ instanceId: string; elementId: string }> {
    const elementId = randomUUID();
    const body = repoFile('tosca/examples/instances/sim-single-element.json')
      .replace(/COMPOSITIONIDPLACEHOLDER/g, compositionId)
      .replace(new RegExp(FIXTURE_ELEMENT, 'g'), elementId)
      .replace('SimSingleElementInstance', `Control-${randomUUID().slice(0, 8)}`);
    const response = await api()
      .post(`${API}/compositions/${compositionId}/instances`)
      .set('Content-Type', 'application/json')
      .send(body)
      .expect(201);
    return { instanceId: (response.body as { instanceId: string }).instanceId, elementId };
  }

  const path = (instanceId: string): string => `${API}/compositions/${compositionId}/instances/${instanceId}`;

  async function get(instanceId: string): Promise<Instance> {
    return (await api().get(path(instanceId)).expect(200)).body as Instance;
  }

  async function until(instanceId: string, deployState: string, lockState: string): Promise<Instance> {
    // Long enough for a cancelled 3 s deploy the simulator finishes before it takes the next order.
    return eventually(
      `${deployState}/${lockState}`,
      async () => {
        const current = await get(instanceId);
        return current.deployState === deployState &&
          current.lockState === lockState &&
          current.stateChangeResult === 'NO_ERROR' &&
          current.phase === undefined
          ? current
          : undefined;
      },
      2000,
    );
  }

  async function events(instanceId: string): Promise<string[]> {
    const history = (
      await api()
        .get(`${path(instanceId)}/history`)
        .expect(200)
    ).body as {
      events: Array<{ event: string }>;
    };
    return history.events.map((entry) => entry.event);
  }

  it('heals a deploy message the participant dropped by resending it, and the element is handled once', async () => {
    const { instanceId, elementId } = await instantiate();
    await sim()
      .put(`${SIM_API}/drop`)
      .send({ count: 1, messageTypes: ['AUTOMATION_COMPOSITION_DEPLOY'] })
      .expect(200);
    await api().put(path(instanceId)).send({ deployOrder: 'DEPLOY' }).expect(202);
    await until(instanceId, 'DEPLOYED', 'LOCKED');

    const drops = (await sim().get(`${SIM_API}/drop`).expect(200)).body as {
      droppedCount: number;
      dropped: Array<{ messageId: string; automationCompositionId?: string }>;
    };
    const dropped = drops.dropped.filter((entry) => entry.automationCompositionId === instanceId);
    expect(dropped).toHaveLength(1);
    expect(await events(instanceId)).toEqual(expect.arrayContaining(['PHASE_RESENT', 'RESENT', 'COMPLETED']));
    const invocations = (await sim().get(`${SIM_API}/invocations`).expect(200)).body as Array<{
      messageId: string;
      targetId: string;
      invocations: number;
    }>;
    const ours = invocations.filter((entry) => entry.targetId === elementId);
    // The resent message carries the dropped one's messageId; the handler ran once for the element.
    expect(ours).toEqual([{ messageId: dropped[0]!.messageId, targetId: elementId, invocations: 1 }]);
  });

  it('cancels a deploy in flight: 409 when nothing runs, then UNDEPLOY and DEPLOY both work', async () => {
    const { instanceId } = await instantiate();
    await expect(
      api()
        .post(`${path(instanceId)}/cancel`)
        .expect(409),
    ).resolves.toMatchObject({
      body: {
        errorDetails: expect.stringMatching(/no operation is running; DeployState: UNDEPLOYED.*allowed now: DEPLOY/),
      },
    });
    try {
      await sim().put(`${SIM_API}/parameters`).send({ deployTimerMs: 3_000 }).expect(200);
      await api().put(path(instanceId)).send({ deployOrder: 'DEPLOY' }).expect(202);
      await api()
        .post(`${path(instanceId)}/cancel`)
        .expect(202);
      expect(await get(instanceId)).toMatchObject({ deployState: 'DEPLOYING', stateChangeResult: 'FAILED' });
      expect(await events(instanceId)).toContain('CANCELLED');
      await sim().put(`${SIM_API}/parameters`).send({}).expect(200);
      await api().put(path(instanceId)).send({ deployOrder: 'UNDEPLOY' }).expect(202);
      await until(instanceId, 'UNDEPLOYED', 'NONE');

      await sim().put(`${SIM_API}/parameters`).send({ deployTimerMs: 3_000 }).expect(200);
      await api().put(path(instanceId)).send({ deployOrder: 'DEPLOY' }).expect(202);
      await api()
        .post(`${path(instanceId)}/cancel`)
        .expect(202);
      await sim().put(`${SIM_API}/parameters`).send({}).expect(200);
      await api().put(path(instanceId)).send({ deployOrder: 'DEPLOY' }).expect(202);
      await until(instanceId, 'DEPLOYED', 'LOCKED');
    } finally {
      await sim().put(`${SIM_API}/parameters`).send({}).expect(200);
    }
  });
});
