import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MessageBus } from '@acm/messaging';
import request from 'supertest';
import { OidcProviderProcess } from './support/oidc-provider';
import type { OidcClient } from './support/oidc-provider';
import type { RuntimeHarness } from './support/runtime-harness';
import {
  BASE,
  USER,
  createInstanceFrom,
  historyOf,
  participantRegistered,
  readRepoFile,
  startRuntime,
} from './support/runtime-harness';
import { ScriptedParticipant, eventually } from './support/scripted-participant';

const SIM_TYPE = { typeName: 'org.onap.policy.clamp.acm.SimAutomationCompositionElement', typeVersion: '1.0.0' };
const AUDIENCE = 'acm-runtime';
const client = (user: string): OidcClient => ({
  id: `${user}-cli`,
  secret: `secret-${randomUUID()}`,
  user,
  groups: [],
});
const ALICE = client('alice');
const CAROL = client('carol');
const DAVE = client('dave');
const ERIN = client('erin');

/**
 * prod: a deploy, undeploy or delete needs two approvals (alice, an approver too, orders); quick: a deploy needs one, within a
 * second; staging: an update or a migration needs one; sites: a deploy of an instance labelled site=prod needs one.
 */
const POLICY = `projects:
  "*":
    admin: [${USER}]
  prod:
    approver: [alice, carol, dave]
    viewer: [erin]
  quick:
    operator: [alice]
    approver: [carol]
  staging:
    operator: [alice]
    approver: [carol]
  sites:
    operator: [alice]
    approver: [carol]
approvals:
  - project: prod
    orders: [DEPLOY, UNDEPLOY, DELETE]
    approvals: 2
  - project: quick
    orders: [DEPLOY]
    approvals: 1
    expiresAfter: PT1S
  - project: staging
    orders: [UPDATE, MIGRATE]
    approvals: 1
  - project: sites
    metadata: { site: prod }
    orders: [DEPLOY]
    approvals: 1
`;

interface ErrorBody {
  errorDetails: string;
}
interface PendingApprovalBody {
  approvalId: string;
  order: string;
  orderedBy: string;
  required: number;
  approvals: Array<{ by: string; at: string }>;
  expiresAt: string;
}
interface ApprovalBody extends PendingApprovalBody {
  state: string;
  reason: string | null;
  closedBy: string | null;
  instanceId: string;
  project: string;
}
interface InstanceBody {
  deployState: string;
  pendingApproval?: PendingApprovalBody;
}
interface HistoryEvent {
  event: string;
  actor: { kind: string; user?: string | null; rule?: string };
  detail: Record<string, unknown>;
}

/** Approval policies on PostgreSQL, with real users of the oidc-provider and a scripted participant. */
describe('approvals (PostgreSQL, oidc-provider, scripted participant)', () => {
  let folder: string;
  let provider: OidcProviderProcess;
  let runtime: RuntimeHarness;
  let participant: ScriptedParticipant;
  const tokens = new Map<OidcClient, string>();
  const prod = { compositionId: '', instanceId: '' };
  const quick = { compositionId: '', instanceId: '' };
  const staging = { compositionId: '', instanceId: '' };

  const commissionInto = async (project: string): Promise<{ compositionId: string; instanceId: string }> => {
    const created = await runtime.http
      .post(`${BASE}/compositions?project=${project}`)
      .set('Content-Type', 'application/yaml')
      .send(readRepoFile('tosca/examples/sim-single-element.yaml'))
      .expect(201);
    const compositionId = (created.body as { compositionId: string }).compositionId;
    await runtime.http.put(`${BASE}/compositions/${compositionId}`).send({ primeOrder: 'PRIME' }).expect(202);
    await eventually(`${project} PRIMED`, async () => {
      const got = await runtime.http.get(`${BASE}/compositions/${compositionId}`).expect(200);
      return (got.body as { state: string }).state === 'PRIMED' ? true : undefined;
    });
    const { instanceId } = await createInstanceFrom(
      runtime,
      compositionId,
      readRepoFile('tosca/examples/instances/sim-single-element.json'),
    );
    return { compositionId, instanceId };
  };

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'acm-approvals-'));
    const policyFile = join(folder, 'policy.yaml');
    writeFileSync(policyFile, POLICY);
    provider = await OidcProviderProcess.start([ALICE, CAROL, DAVE, ERIN], AUDIENCE);
    runtime = await startRuntime({
      HEART_BEAT: '3600000',
      OIDC_ISSUER: provider.issuer,
      OIDC_AUDIENCE: AUDIENCE,
      RUNTIME_POLICY_FILE: policyFile,
    });
    participant = new ScriptedParticipant(runtime.app.get(MessageBus), randomUUID(), [SIM_TYPE]);
    await participant.start();
    await participantRegistered(runtime, participant.participantId);
    Object.assign(prod, await commissionInto('prod'));
    Object.assign(quick, await commissionInto('quick'));
    Object.assign(staging, await commissionInto('staging'));
    for (const who of [ALICE, CAROL, DAVE, ERIN]) {
      tokens.set(who, await provider.token(who));
    }
  }, 60_000);

  afterAll(async () => {
    await participant?.stop();
    await runtime?.close();
    await provider?.stop();
    rmSync(folder, { recursive: true, force: true });
  });

  const as = (who: OidcClient) => {
    const agent = request(runtime.app.getHttpServer());
    const bearer = `Bearer ${tokens.get(who) ?? ''}`;
    return {
      get: (path: string) => agent.get(path).set('Authorization', bearer),
      put: (path: string) => agent.put(path).set('Authorization', bearer),
      post: (path: string) => agent.post(path).set('Authorization', bearer),
    };
  };
  const instancePath = (of: { compositionId: string; instanceId: string }) =>
    `${BASE}/compositions/${of.compositionId}/instances/${of.instanceId}`;
  const instance = async (of: { compositionId: string; instanceId: string }): Promise<InstanceBody> =>
    (await as(ALICE).get(instancePath(of)).expect(200)).body as InstanceBody;
  const approvalPath = (approvalId: string, verb: 'approve' | 'reject') => `${BASE}/approvals/${approvalId}/${verb}`;
  const deployedOrNot = async (of: { compositionId: string; instanceId: string }, state: string) =>
    eventually(`instance ${state}`, async () => ((await instance(of)).deployState === state ? true : undefined));

  it('holds a production deploy until two approvers other than the orderer approve it, then runs it', async () => {
    await as(ALICE).put(instancePath(prod)).send({ deployOrder: 'DEPLOY' }).expect(202);
    const waiting = await instance(prod);
    expect(waiting.deployState).toBe('UNDEPLOYED');
    expect(waiting.pendingApproval).toMatchObject({ order: 'DEPLOY', orderedBy: 'alice', required: 2, approvals: [] });
    const approvalId = waiting.pendingApproval!.approvalId;

    const second = await as(ALICE).put(instancePath(prod)).send({ deployOrder: 'DEPLOY' }).expect(409);
    expect((second.body as ErrorBody).errorDetails).toBe(
      `Instance ${prod.instanceId} has an order waiting for approvals: approval ${approvalId} (DEPLOY by alice, 0 of 2); ` +
        'approve or reject it first',
    );
    const self = await as(ALICE).post(approvalPath(approvalId, 'approve')).expect(409);
    expect((self.body as ErrorBody).errorDetails).toBe(
      `Approval ${approvalId} of DEPLOY: alice gave the order and cannot approve it`,
    );
    const viewer = await as(ERIN).post(approvalPath(approvalId, 'approve')).expect(403);
    expect((viewer.body as ErrorBody).errorDetails).toBe(
      `Forbidden: to approve approval ${approvalId} needs the role approver in project prod; erin has the role viewer`,
    );
    const recorded = await eventually("erin's refusal in the audit ledger", async () => {
      const answer = await runtime.http.get(`${BASE}/audit?action=ACCESS_REFUSED&actor=erin`).expect(200);
      const events = (answer.body as { events: HistoryEvent[] }).events;
      return events.length > 0 ? events : undefined;
    });
    expect(recorded[0]!.detail).toMatchObject({ status: 403, reason: (viewer.body as ErrorBody).errorDetails });

    const first = (await as(CAROL).post(approvalPath(approvalId, 'approve')).expect(200)).body as ApprovalBody;
    expect(first).toMatchObject({ state: 'PENDING', approvals: [{ by: 'carol' }] });
    const duplicate = await as(CAROL).post(approvalPath(approvalId, 'approve')).expect(409);
    expect((duplicate.body as ErrorBody).errorDetails).toBe(
      `Approval ${approvalId} of DEPLOY: carol has already approved it`,
    );
    expect((await instance(prod)).deployState).toBe('UNDEPLOYED');

    const last = (await as(DAVE).post(approvalPath(approvalId, 'approve')).expect(200)).body as ApprovalBody;
    expect(last).toMatchObject({ state: 'EXECUTED', approvals: [{ by: 'carol' }, { by: 'dave' }] });
    await deployedOrNot(prod, 'DEPLOYED');
    expect((await instance(prod)).pendingApproval).toBeUndefined();

    const history = await historyOf<HistoryEvent>(runtime, prod.compositionId, prod.instanceId);
    const told = history.filter((event) => ['APPROVAL_REQUESTED', 'APPROVED', 'ORDERED'].includes(event.event));
    expect(told.map((event) => [event.event, event.actor.user])).toEqual([
      ['APPROVAL_REQUESTED', 'alice'],
      ['APPROVED', 'carol'],
      ['APPROVED', 'dave'],
      ['ORDERED', 'alice'],
    ]);
    expect(told[2]!.detail).toMatchObject({ approvalId, approvers: ['carol', 'dave'], orderedBy: 'alice' });
    const refusedAgain = await as(CAROL).post(approvalPath(approvalId, 'approve')).expect(409);
    expect((refusedAgain.body as ErrorBody).errorDetails).toBe(`Approval ${approvalId} of DEPLOY: it is EXECUTED`);
  });

  it('rejects a waiting order with a reason, and the order never runs', async () => {
    await as(ALICE).put(instancePath(prod)).send({ deployOrder: 'UNDEPLOY' }).expect(202);
    const approvalId = (await instance(prod)).pendingApproval!.approvalId;
    const noReason = await as(CAROL).post(approvalPath(approvalId, 'reject')).send({}).expect(400);
    expect((noReason.body as ErrorBody).errorDetails).toBe('reason: is required and must be non-empty text');
    const rejected = (
      await as(CAROL).post(approvalPath(approvalId, 'reject')).send({ reason: 'not during the audit' }).expect(200)
    ).body as ApprovalBody;
    expect(rejected).toMatchObject({ state: 'REJECTED', closedBy: 'carol', reason: 'not during the audit' });
    const late = await as(DAVE).post(approvalPath(approvalId, 'approve')).expect(409);
    expect((late.body as ErrorBody).errorDetails).toBe(
      `Approval ${approvalId} of UNDEPLOY: it is REJECTED (not during the audit)`,
    );
    const after = await instance(prod);
    expect(after.deployState).toBe('DEPLOYED');
    expect(after.pendingApproval).toBeUndefined();
    const history = await historyOf<HistoryEvent>(runtime, prod.compositionId, prod.instanceId);
    expect(history.filter((event) => event.event === 'ORDERED').map((event) => event.detail['order'])).toEqual([
      'DEPLOY',
    ]);
    expect(history.find((event) => event.event === 'APPROVAL_REJECTED')).toMatchObject({
      actor: { kind: 'request', user: 'carol' },
      detail: { approvalId, reason: 'not during the audit' },
    });
  });

  it('answers a held delete as ONAP does, and records the refusal when the approved delete cannot run', async () => {
    // An ONAP client with HTTP Basic: the answer has the shape it knows.
    const held = await runtime.http.delete(instancePath(prod)).expect(202);
    expect(held.body).toEqual({
      instanceId: prod.instanceId,
      affectedAutomationComposition: { name: expect.any(String) as string, version: expect.any(String) as string },
    });
    const approvalId = (await instance(prod)).pendingApproval!.approvalId;
    await as(CAROL).post(approvalPath(approvalId, 'approve')).expect(200);
    // The instance is DEPLOYED: the delete, run as it was given, is refused then, and the approval says why.
    const last = (await as(DAVE).post(approvalPath(approvalId, 'approve')).expect(200)).body as ApprovalBody;
    expect(last.state).toBe('REFUSED');
    expect(last.reason).toMatch(/^the approved DELETE was refused when it ran: /);
    const after = await instance(prod);
    expect(after.deployState).toBe('DEPLOYED');
    expect(after.pendingApproval).toBeUndefined();
  });

  it('expires an order that is not approved in time: it never runs', async () => {
    await as(ALICE).put(instancePath(quick)).send({ deployOrder: 'DEPLOY' }).expect(202);
    const approvalId = (await instance(quick)).pendingApproval!.approvalId;
    const expired = await eventually('the approval EXPIRED', async () => {
      const listed = (await as(CAROL).get(`${BASE}/approvals`).expect(200)).body as { approvals: ApprovalBody[] };
      return listed.approvals.find((approval) => approval.approvalId === approvalId && approval.state === 'EXPIRED');
    });
    expect(expired.reason).toBe('0 of 1 approvals when its time ran out');
    const refused = await as(CAROL).post(approvalPath(approvalId, 'approve')).expect(409);
    expect((refused.body as ErrorBody).errorDetails).toBe(
      `Approval ${approvalId} of DEPLOY: it is EXPIRED (0 of 1 approvals when its time ran out)`,
    );
    const after = await instance(quick);
    expect(after.deployState).toBe('UNDEPLOYED');
    expect(after.pendingApproval).toBeUndefined();
    const history = await historyOf<HistoryEvent>(runtime, quick.compositionId, quick.instanceId);
    expect(history.map((event) => event.event)).not.toContain('ORDERED');
    expect(history.find((event) => event.event === 'APPROVAL_EXPIRED')?.actor).toEqual({
      kind: 'runtime',
      rule: 'approval-expiry',
    });
  });

  it('holds an update, answering 200 as ONAP does, and applies it once approved', async () => {
    const current = (await as(ALICE).get(instancePath(staging)).expect(200)).body as Record<string, unknown>;
    const update = {
      instanceId: staging.instanceId,
      compositionId: staging.compositionId,
      name: current['name'],
      version: current['version'],
      description: 'updated after approval',
      elements: current['elements'],
    };
    const held = await as(ALICE)
      .post(`${BASE}/compositions/${staging.compositionId}/instances`)
      .send(update)
      .expect(200);
    expect(held.body).toEqual({
      instanceId: staging.instanceId,
      affectedAutomationComposition: { name: current['name'], version: current['version'] },
    });
    const waiting = (await as(ALICE).get(instancePath(staging)).expect(200)).body as InstanceBody & {
      description: string;
    };
    expect(waiting.description).toBe(current['description']);
    expect(waiting.pendingApproval).toMatchObject({ order: 'UPDATE', required: 1 });
    const done = (await as(CAROL).post(approvalPath(waiting.pendingApproval!.approvalId, 'approve')).expect(200))
      .body as ApprovalBody;
    expect(done.state).toBe('EXECUTED');
    const after = (await as(ALICE).get(instancePath(staging)).expect(200)).body as { description: string };
    expect(after.description).toBe('updated after approval');
  });

  it('refuses a rollout of an order that a rule holds, naming the rule', async () => {
    const refused = await runtime.http
      .post(`${BASE}/rollouts`)
      .send({ order: 'UNDEPLOY', compositionId: prod.compositionId, strategy: { batchSize: 1 } })
      .expect(400);
    expect((refused.body as ErrorBody).errorDetails).toBe(
      'order: a rollout cannot UNDEPLOY: in project prod an approval rule makes UNDEPLOY wait for 2 approvals by ' +
        'approvers; give the order to each instance instead',
    );
    expect((await instance(prod)).deployState).toBe('DEPLOYED');
  });

  it('lists to each caller the approvals of its projects', async () => {
    const listed = (await as(ERIN).get(`${BASE}/approvals`).expect(200)).body as { approvals: ApprovalBody[] };
    expect(listed.approvals.map((approval) => [approval.project, approval.order, approval.state])).toEqual([
      ['prod', 'DELETE', 'REFUSED'],
      ['prod', 'UNDEPLOY', 'REJECTED'],
      ['prod', 'DEPLOY', 'EXECUTED'],
    ]);
    const carols = (await as(CAROL).get(`${BASE}/approvals`).expect(200)).body as { approvals: ApprovalBody[] };
    expect(carols.approvals.map((approval) => approval.project)).toEqual(['staging', 'quick', 'prod', 'prod', 'prod']);
    const pending = (await as(CAROL).get(`${BASE}/approvals?state=PENDING`).expect(200)).body as {
      approvals: ApprovalBody[];
    };
    expect(pending.approvals).toEqual([]);
    await as(ERIN).get(`${BASE}/approvals?state=DONE`).expect(400);
  });

  it('holds by labels: a deploy of the instance labelled site=prod waits, the one labelled site=dev runs', async () => {
    const sites = await commissionInto('sites');
    const labelled = async (site: string) => {
      const body = readRepoFile('tosca/examples/instances/sim-single-element.json').replace(
        '"name": "SimSingleElementInstance",',
        `"name": "Site-${site}",\n  "metadata": { "site": "${site}" },`,
      );
      const { instanceId } = await createInstanceFrom(runtime, sites.compositionId, body);
      return { compositionId: sites.compositionId, instanceId };
    };
    const [prodSite, devSite] = [await labelled('prod'), await labelled('dev')];
    await as(ALICE).put(instancePath(prodSite)).send({ deployOrder: 'DEPLOY' }).expect(202);
    await as(ALICE).put(instancePath(devSite)).send({ deployOrder: 'DEPLOY' }).expect(202);
    await deployedOrNot(devSite, 'DEPLOYED');
    expect((await instance(devSite)).pendingApproval).toBeUndefined();
    const waiting = await instance(prodSite);
    expect(waiting.deployState).toBe('UNDEPLOYED');
    expect(waiting.pendingApproval).toMatchObject({ order: 'DEPLOY', orderedBy: 'alice', required: 1 });
    await as(CAROL).post(approvalPath(waiting.pendingApproval!.approvalId, 'approve')).expect(200);
    await deployedOrNot(prodSite, 'DEPLOYED');
  });
});
