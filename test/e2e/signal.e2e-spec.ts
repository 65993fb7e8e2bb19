import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { ProductProcess } from '../support/processes';
import { freePort, runtimeProcess, simulatorProcess } from '../support/processes';
import { PASSWORD, USER } from '../support/runtime-harness';
import { commissionedAndPrimed, dropSchema, participantKnown, runtimeAnswering } from '../support/e2e-stack';
import { eventually } from '../support/scripted-participant';
import { repoFile } from './lifecycle.scenarios';

const SIM_PARTICIPANT = '101c62b3-8918-41b9-a747-d21eb79c6c92';
const API = '/onap/policy/clamp/acm/v2';
const SIM_API = '/onap/policy/simparticipant/v2';
const FIXTURE = {
  database: '5e1f0000-0000-4000-8000-000000013001',
  approval: '5e1f0000-0000-4000-8000-000000013002',
  backend: '5e1f0000-0000-4000-8000-000000013003',
};

interface Element {
  deployState: string;
  outProperties?: Record<string, unknown>;
}

interface Instance {
  deployState: string;
  stateChangeResult: string;
  phase?: number;
  elements: Record<string, Element>;
}

/** The README's curl example of a signed-URL signal, exactly as written there (between its markers). */
function readmeCurl(): string {
  const readme = repoFile('README.md');
  const match = /<!-- signal-curl:start -->\s*```sh\n([\s\S]*?)```\s*<!-- signal-curl:end -->/.exec(readme);
  if (match === null) {
    throw new Error('README.md has no signal-curl example between its markers');
  }
  return match[1]!;
}

/** Runs a shell command line (the README's curl) with SIGNAL_URL set; resolves with its output and exit code. */
function runShell(command: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', command], { env: { ...process.env, ...env } });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout }));
  });
}

/**
 * Wait conditions over real Kafka and PostgreSQL, runtime and simulator as processes: an approval between two
 * simulator elements (dependsOn) holds the second until a signed-URL signal is posted with curl.
 */
describe('wait conditions: runtime + simulator as processes over Kafka', () => {
  const suffix = randomUUID().slice(0, 8);
  const schema = `e2e_signal_${suffix}`;
  const topics = { op: `acm-e2e-op-${suffix}`, sync: `acm-e2e-sync-${suffix}` };
  let runtimeUrl = '';
  let simUrl = '';
  let runtime: ProductProcess;
  let simulator: ProductProcess;
  let compositionId = '';

  const api = (): request.Agent => request.agent(runtimeUrl).auth(USER, PASSWORD);
  const anonymous = (): request.Agent => request.agent(runtimeUrl);
  const sim = (): request.Agent => request.agent(simUrl).auth('participantUser', 'zb!XztG34');

  beforeAll(async () => {
    const [runtimePort, simPort] = await Promise.all([freePort(), freePort()]);
    runtimeUrl = `http://127.0.0.1:${runtimePort}`;
    simUrl = `http://127.0.0.1:${simPort}`;
    runtime = runtimeProcess(`runtime-signal-${suffix}`, {
      port: runtimePort,
      schema,
      groupId: `acm-runtime-${suffix}`,
      topics,
      env: { HEART_BEAT: '200', SIGNAL_KEY: `e2e-signal-key-${suffix}` },
    });
    runtime.start();
    await runtimeAnswering(api);
    simulator = simulatorProcess(`sim-signal-${suffix}`, {
      port: simPort,
      participantId: SIM_PARTICIPANT,
      types: 'org.onap.policy.clamp.acm.SimAutomationCompositionElement:1.0.0',
      topics,
    });
    simulator.start();
    await participantKnown(api, SIM_PARTICIPANT);
    compositionId = await commissionedAndPrimed(api, repoFile('tosca/examples/sim-approval.yaml'));
  }, 120_000);

  afterAll(async () => {
    await simulator?.stop();
    await runtime?.stop();
    await dropSchema(schema);
  });

  it('primes the wait condition with no participant, as an ONAP client expects to see it', async () => {
    const definition = (await api().get(`${API}/compositions/${compositionId}`).expect(200)).body as {
      state: string;
      elementStateMap: Record<string, { state: string; participantId?: string }>;
    };
    expect(definition.elementStateMap['acm.example.approval.Approval']).toMatchObject({ state: 'PRIMED' });
    expect(definition.elementStateMap['acm.example.approval.Approval']!.participantId).toBeUndefined();
    expect(definition.elementStateMap['acm.example.approval.Database']!.participantId).toBe(SIM_PARTICIPANT);
  });

  it('holds Backend until a signed-URL signal is posted with curl, then the deploy completes', async () => {
    const ids = { database: randomUUID(), approval: randomUUID(), backend: randomUUID() };
    const body = repoFile('tosca/examples/instances/sim-approval.json')
      .replace(/COMPOSITIONIDPLACEHOLDER/g, compositionId)
      .replace(new RegExp(FIXTURE.database, 'g'), ids.database)
      .replace(new RegExp(FIXTURE.approval, 'g'), ids.approval)
      .replace(new RegExp(FIXTURE.backend, 'g'), ids.backend)
      .replace('SimApprovalInstance', `Approval-${suffix}`);
    const created = await api()
      .post(`${API}/compositions/${compositionId}/instances`)
      .set('Content-Type', 'application/json')
      .send(body)
      .expect(201);
    const instanceId = (created.body as { instanceId: string }).instanceId;
    const path = `${API}/compositions/${compositionId}/instances/${instanceId}`;
    const get = async (): Promise<Instance> => (await api().get(path).expect(200)).body as Instance;

    await api().put(path).send({ deployOrder: 'DEPLOY' }).expect(202);
    const waiting = await eventually('Database deployed and the approval waiting', async () => {
      const current = await get();
      const wait = current.elements[ids.approval]?.outProperties?.['waitCondition'] as { outcome?: string } | undefined;
      return current.elements[ids.database]?.deployState === 'DEPLOYED' && wait?.outcome === 'WAITING'
        ? current
        : undefined;
    });
    expect(waiting.deployState).toBe('DEPLOYING');
    expect(waiting.elements[ids.approval]!.deployState).toBe('DEPLOYING');
    expect(waiting.elements[ids.backend]!.deployState).toBe('DEPLOYING');
    // The simulator never saw Backend: it is held by the approval.
    const invocations = (await sim().get(`${SIM_API}/invocations`).expect(200)).body as Array<{ targetId: string }>;
    expect(invocations.map((entry) => entry.targetId)).not.toContain(ids.backend);
    expect(invocations.map((entry) => entry.targetId)).not.toContain(ids.approval);

    const signed = (await api().get(`${path}/elements/${ids.approval}/signal-url`).expect(200)).body as {
      url: string;
      token: string;
    };
    expect(signed.url).toContain(`/elements/${ids.approval}/signal?token=`);

    // A forged token and a token of another element are refused, before anything is read.
    const [expiry] = signed.token.split('.');
    await anonymous()
      .post(`${path}/elements/${ids.approval}/signal?token=${expiry}.${'A'.repeat(43)}`)
      .send({ status: 'SUCCESS', id: 'x' })
      .expect(403);
    await anonymous()
      .post(`${path}/elements/${ids.database}/signal?token=${signed.token}`)
      .send({ status: 'SUCCESS', id: 'x' })
      .expect(403);
    await anonymous()
      .post(`${path}/elements/${randomUUID()}/signal?token=${signed.token}`)
      .send({ status: 'SUCCESS', id: 'x' })
      .expect(403);
    await anonymous().post(`${path}/elements/${ids.approval}/signal`).send({ status: 'SUCCESS', id: 'x' }).expect(401);
    await anonymous()
      .post(`${path}/elements/${ids.approval}/signal?token=garbage`)
      .send({ status: 'SUCCESS', id: 'x' })
      .expect(401);
    expect((await get()).elements[ids.backend]!.deployState).toBe('DEPLOYING');

    const curl = await runShell(readmeCurl(), { SIGNAL_URL: signed.url });
    expect(curl.code).toBe(0);
    expect(JSON.parse(curl.stdout)).toMatchObject({ effect: 'COMPLETED', status: 'SUCCESS', id: 'approval-1' });

    const deployed = await eventually('DEPLOYED', async () => {
      const current = await get();
      return current.deployState === 'DEPLOYED' && current.stateChangeResult === 'NO_ERROR' ? current : undefined;
    });
    expect(deployed.elements[ids.backend]!.deployState).toBe('DEPLOYED');

    // The same curl again: a duplicate id, 200 and nothing changes.
    const again = await runShell(readmeCurl(), { SIGNAL_URL: signed.url });
    expect(JSON.parse(again.stdout)).toMatchObject({ effect: 'DUPLICATE' });
    const history = (await api().get(`${path}/history`).expect(200)).body as { events: Array<{ event: string }> };
    expect(history.events.map((entry) => entry.event)).toEqual(
      expect.arrayContaining(['WAIT_STARTED', 'SIGNAL_RECEIVED', 'WAIT_COMPLETED', 'COMPLETED']),
    );
    const metrics = await api().get('/onap/policy/clamp/acm/actuator/prometheus').expect(200);
    expect(metrics.text).toContain('acm_signals_total{status="SUCCESS",effect="completed"} 1');
    expect(metrics.text).toContain('acm_signals_total{status="SUCCESS",effect="duplicate"} 1');
  });
});
