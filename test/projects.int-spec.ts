import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MessageBus } from '@acm/messaging';
import { load } from 'js-yaml';
import request from 'supertest';
import { OidcProviderProcess } from './support/oidc-provider';
import type { OidcClient } from './support/oidc-provider';
import type { RuntimeHarness } from './support/runtime-harness';
import {
  BASE,
  USER,
  createInstanceFrom,
  participantRegistered,
  readRepoFile,
  startRuntime,
} from './support/runtime-harness';
import { ScriptedParticipant, eventually } from './support/scripted-participant';

const SIM_TYPE = { typeName: 'org.onap.policy.clamp.acm.SimAutomationCompositionElement', typeVersion: '1.0.0' };
const AUDIENCE = 'acm-runtime';
const client = (user: string, groups: string[]): OidcClient => ({
  id: `${user}-cli`,
  secret: `secret-${randomUUID()}`,
  user,
  groups,
});
const ALICE = client('alice', []);
const BOB = client('bob', ['team-b-ops']);
const CAROL = client('carol', []);
const DAVE = client('dave', []);

const POLICY = `projects:
  "*":
    admin: [${USER}]
  team-a:
    operator: [alice]
    viewer: [carol]
    admin: [dave]
  team-b:
    operator: ["group:team-b-ops"]
`;

interface ErrorBody {
  errorDetails: string;
}
interface InstanceBody {
  instanceId: string;
  deployState: string;
}

/** Two users in two projects: each sees and orders only its own project's definitions and instances. */
describe('projects (PostgreSQL, oidc-provider, scripted participant)', () => {
  let folder: string;
  let provider: OidcProviderProcess;
  let runtime: RuntimeHarness;
  let participant: ScriptedParticipant;
  const tokens = new Map<OidcClient, string>();
  const team = {
    a: { compositionId: '', instanceId: '' },
    b: { compositionId: '', instanceId: '' },
  };

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
    folder = mkdtempSync(join(tmpdir(), 'acm-projects-'));
    const policyFile = join(folder, 'policy.yaml');
    writeFileSync(policyFile, POLICY);
    provider = await OidcProviderProcess.start([ALICE, BOB, CAROL, DAVE], AUDIENCE);
    runtime = await startRuntime({
      HEART_BEAT: '3600000',
      OIDC_ISSUER: provider.issuer,
      OIDC_AUDIENCE: AUDIENCE,
      RUNTIME_POLICY_FILE: policyFile,
    });
    participant = new ScriptedParticipant(runtime.app.get(MessageBus), randomUUID(), [SIM_TYPE]);
    await participant.start();
    await participantRegistered(runtime, participant.participantId);
    team.a = await commissionInto('team-a');
    team.b = await commissionInto('team-b');
    for (const who of [ALICE, BOB, CAROL, DAVE]) {
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
      delete: (path: string) => agent.delete(path).set('Authorization', bearer),
    };
  };
  const instancePath = (of: { compositionId: string; instanceId: string }) =>
    `${BASE}/compositions/${of.compositionId}/instances/${of.instanceId}`;
  const compositionIdsSeenBy = async (who: OidcClient): Promise<string[]> => {
    const listed = await as(who).get(`${BASE}/compositions`).expect(200);
    const templates = (listed.body as { service_templates: Array<{ metadata: { compositionId: string } }> })
      .service_templates;
    return templates.map((template) => template.metadata.compositionId).sort();
  };
  const instanceIdsSeenBy = async (who: OidcClient): Promise<string[]> => {
    const listed = await as(who).get(`${BASE}/instances`).expect(200);
    return (listed.body as { automationCompositionList: InstanceBody[] }).automationCompositionList
      .map((instance) => instance.instanceId)
      .sort();
  };

  it('lists to each user only the definitions and instances of its project', async () => {
    expect(await compositionIdsSeenBy(ALICE)).toEqual([team.a.compositionId]);
    expect(await compositionIdsSeenBy(BOB)).toEqual([team.b.compositionId]);
    expect(await compositionIdsSeenBy(CAROL)).toEqual([team.a.compositionId]);
    expect(await instanceIdsSeenBy(ALICE)).toEqual([team.a.instanceId]);
    expect(await instanceIdsSeenBy(BOB)).toEqual([team.b.instanceId]);
    const all = await runtime.http.get(`${BASE}/compositions`).expect(200);
    expect((all.body as { service_templates: unknown[] }).service_templates).toHaveLength(2);
  });

  it('answers the project of a definition and of its instances, in the GETs and the lists', async () => {
    const definition = await as(ALICE).get(`${BASE}/compositions/${team.a.compositionId}`).expect(200);
    expect((definition.body as { project: string }).project).toBe('team-a');
    const instance = await as(BOB).get(instancePath(team.b)).expect(200);
    expect((instance.body as { project: string }).project).toBe('team-b');
    const all = await runtime.http.get(`${BASE}/instances`).expect(200);
    const listed = (all.body as { automationCompositionList: Array<{ instanceId: string; project: string }> })
      .automationCompositionList;
    expect(
      listed
        .map(({ instanceId, project }) => ({ instanceId, project }))
        .sort((x, y) => x.project.localeCompare(y.project)),
    ).toEqual([
      { instanceId: team.a.instanceId, project: 'team-a' },
      { instanceId: team.b.instanceId, project: 'team-b' },
    ]);
    const ofDefinition = await as(ALICE).get(`${BASE}/compositions/${team.a.compositionId}/instances`).expect(200);
    expect(
      (ofDefinition.body as { automationCompositionList: Array<{ project: string }> }).automationCompositionList.map(
        ({ project }) => project,
      ),
    ).toEqual(['team-a']);
  });

  it("refuses a user the other project's definition and instance with 403 naming role and project", async () => {
    const read = await as(ALICE).get(instancePath(team.b)).expect(403);
    expect((read.body as ErrorBody).errorDetails).toBe(
      `Forbidden: GET ${instancePath(team.b)} needs the role viewer in project team-b; alice has no role there`,
    );
    const order = await as(BOB).put(instancePath(team.a)).send({ deployOrder: 'DEPLOY' }).expect(403);
    expect((order.body as ErrorBody).errorDetails).toBe(
      `Forbidden: PUT ${instancePath(team.a)} needs the role operator in project team-a; bob has no role there`,
    );
  });

  it("refuses a viewer's order with 403 naming the operator role in its project", async () => {
    const refused = await as(CAROL).put(instancePath(team.a)).send({ deployOrder: 'DEPLOY' }).expect(403);
    expect((refused.body as ErrorBody).errorDetails).toBe(
      `Forbidden: PUT ${instancePath(team.a)} needs the role operator in project team-a; carol has the role viewer`,
    );
  });

  it('lets each operator deploy its own instance', async () => {
    await as(ALICE).put(instancePath(team.a)).send({ deployOrder: 'DEPLOY' }).expect(202);
    await as(BOB).put(instancePath(team.b)).send({ deployOrder: 'DEPLOY' }).expect(202);
    for (const [who, of] of [
      [ALICE, team.a],
      [BOB, team.b],
    ] as const) {
      await eventually(`${who.user}'s instance DEPLOYED`, async () => {
        const got = await as(who).get(instancePath(of)).expect(200);
        return (got.body as InstanceBody).deployState === 'DEPLOYED' ? true : undefined;
      });
    }
  });

  it('commissions only into a project the policy names, by an admin of it', async () => {
    const yaml = readRepoFile('tosca/examples/sim-single-element.yaml');
    const unknown = await runtime.http
      .post(`${BASE}/compositions?project=team-c`)
      .set('Content-Type', 'application/yaml')
      .send(yaml)
      .expect(400);
    expect((unknown.body as ErrorBody).errorDetails).toBe(
      'project: "team-c" is not a project of RUNTIME_POLICY_FILE (projects: team-a, team-b)',
    );
    const malformed = await runtime.http
      .post(`${BASE}/compositions?project=Team_A`)
      .set('Content-Type', 'application/yaml')
      .send(yaml)
      .expect(400);
    expect((malformed.body as ErrorBody).errorDetails).toContain('"Team_A" is not a project name');
    const operator = await as(ALICE)
      .post(`${BASE}/compositions?project=team-a`)
      .set('Content-Type', 'application/yaml')
      .send(yaml)
      .expect(403);
    expect((operator.body as ErrorBody).errorDetails).toBe(
      `Forbidden: POST ${BASE}/compositions needs the role admin in project team-a; alice has the role operator`,
    );
  });

  it('keeps a definition in its project: an update must name it', async () => {
    const template = load(readRepoFile('tosca/examples/sim-single-element.yaml')) as { metadata?: object };
    const update = { ...template, metadata: { ...template.metadata, compositionId: team.a.compositionId } };
    const refused = await runtime.http.post(`${BASE}/compositions?project=team-b`).send(update).expect(400);
    expect((refused.body as ErrorBody).errorDetails).toBe(
      `project: the definition ${team.a.compositionId} is in project team-a, not team-b; a definition stays in its project`,
    );
  });

  it('keeps an instance in its project: no migration to another project', async () => {
    const refused = await runtime.http
      .post(`${BASE}/compositions/${team.a.compositionId}/instances`)
      .send({
        instanceId: team.a.instanceId,
        compositionId: team.a.compositionId,
        compositionTargetId: team.b.compositionId,
        name: 'x',
        version: '1.0.0',
        elements: {},
      })
      .expect(400);
    expect((refused.body as ErrorBody).errorDetails).toContain(
      `the definition ${team.b.compositionId} is in project team-b, the instance in team-a`,
    );
  });

  it('asks for the role in every project for what spans projects', async () => {
    const refused = await as(ALICE).get(`${BASE}/participants`).expect(403);
    expect((refused.body as ErrorBody).errorDetails).toBe(
      `Forbidden: GET ${BASE}/participants needs the role viewer in every project (team-a, team-b); alice has no role in some`,
    );
    await runtime.http.get(`${BASE}/audit`).expect(200);
  });

  it("answers a project's admin the audit of its project only", async () => {
    const refused = await as(ALICE).get(`${BASE}/audit`).expect(403);
    expect((refused.body as ErrorBody).errorDetails).toBe(
      `Forbidden: GET ${BASE}/audit needs the role admin in a project; alice has it in none`,
    );
    const events = await eventually("alice's deploy in the audit", async () => {
      const answer = await as(DAVE).get(`${BASE}/audit?action=ORDERED`).expect(200);
      const found = (answer.body as { events: Array<{ subjectId: string; actor: { user?: string } }> }).events;
      return found.some((event) => event.actor.user === 'alice') ? found : undefined;
    });
    expect(new Set(events.map((event) => event.subjectId))).toEqual(new Set([team.a.compositionId, team.a.instanceId]));
  });
  it("keeps a rollout in its definition's project: created, read, listed and controlled there only", async () => {
    const rolloutOf = (of: { compositionId: string }) => ({
      order: 'UNDEPLOY',
      compositionId: of.compositionId,
      strategy: { batchSize: 1 },
    });
    const elsewhere = await as(ALICE).post(`${BASE}/rollouts`).send(rolloutOf(team.b)).expect(403);
    expect((elsewhere.body as ErrorBody).errorDetails).toBe(
      `Forbidden: POST ${BASE}/rollouts needs the role operator in project team-b; alice has no role there`,
    );
    const viewer = await as(CAROL).post(`${BASE}/rollouts?dryRun=true`).send(rolloutOf(team.a)).expect(403);
    expect((viewer.body as ErrorBody).errorDetails).toBe(
      `Forbidden: POST ${BASE}/rollouts needs the role operator in a project; carol has it in none`,
    );
    const created = await as(ALICE).post(`${BASE}/rollouts`).send(rolloutOf(team.a)).expect(201);
    const rolloutId = (created.body as { rolloutId: string }).rolloutId;
    const rolloutPath = `${BASE}/rollouts/${rolloutId}`;

    await as(CAROL).get(rolloutPath).expect(200);
    await as(CAROL).get(`${rolloutPath}/history`).expect(200);
    const read = await as(BOB).get(rolloutPath).expect(403);
    expect((read.body as ErrorBody).errorDetails).toBe(
      `Forbidden: GET ${rolloutPath} needs the role viewer in project team-a; bob has no role there`,
    );
    const control = await as(BOB).post(`${rolloutPath}/pause`).expect(403);
    expect((control.body as ErrorBody).errorDetails).toBe(
      `Forbidden: POST ${rolloutPath}/pause needs the role operator in project team-a; bob has no role there`,
    );
    const byViewer = await as(CAROL).post(`${rolloutPath}/cancel`).expect(403);
    expect((byViewer.body as ErrorBody).errorDetails).toContain('needs the role operator in project team-a');
    // Its project's operator controls it: the guard lets the control through (a finished rollout refuses it itself).
    const cancelled = await as(ALICE).post(`${rolloutPath}/cancel`);
    expect(cancelled.status === 200 ? 'CANCELLED' : (cancelled.body as ErrorBody).errorDetails).toMatch(
      /^CANCELLED$|^Rollout .* (is|has) /,
    );

    const listedTo = async (who: OidcClient): Promise<string[]> => {
      const listed = await as(who).get(`${BASE}/rollouts`).expect(200);
      return (listed.body as { rollouts: Array<{ rolloutId: string }> }).rollouts.map((item) => item.rolloutId);
    };
    expect(await listedTo(ALICE)).toEqual([rolloutId]);
    expect(await listedTo(CAROL)).toEqual([rolloutId]);
    expect(await listedTo(BOB)).toEqual([]);
    const all = await runtime.http.get(`${BASE}/rollouts`).expect(200);
    expect((all.body as { rollouts: Array<{ rolloutId: string }> }).rollouts.map((item) => item.rolloutId)).toEqual([
      rolloutId,
    ]);
  });
  it("keeps a subscription in its filter's definition's project; one without a definition spans projects", async () => {
    const hook = (filter: object) => ({ url: 'https://hooks.example.com/acm', filter });
    const created = await as(DAVE)
      .post(`${BASE}/subscriptions`)
      .send(hook({ compositionId: team.a.compositionId }))
      .expect(201);
    const ofTeamA = (created.body as { subscriptionId: string }).subscriptionId;
    const elsewhere = await as(DAVE)
      .post(`${BASE}/subscriptions`)
      .send(hook({ compositionId: team.b.compositionId }))
      .expect(403);
    expect((elsewhere.body as ErrorBody).errorDetails).toBe(
      `Forbidden: POST ${BASE}/subscriptions needs the role admin in project team-b; dave has no role there`,
    );
    const spanning = await as(DAVE).post(`${BASE}/subscriptions`).send(hook({})).expect(403);
    expect((spanning.body as ErrorBody).errorDetails).toBe(
      `Forbidden: POST ${BASE}/subscriptions needs the role admin in every project (team-a, team-b); dave has no role in some`,
    );
    const everywhere = await runtime.http.post(`${BASE}/subscriptions`).send(hook({})).expect(201);
    const ofAll = (everywhere.body as { subscriptionId: string }).subscriptionId;

    await as(CAROL).get(`${BASE}/subscriptions/${ofTeamA}`).expect(200);
    const read = await as(BOB).get(`${BASE}/subscriptions/${ofTeamA}`).expect(403);
    expect((read.body as ErrorBody).errorDetails).toBe(
      `Forbidden: GET ${BASE}/subscriptions/${ofTeamA} needs the role viewer in project team-a; bob has no role there`,
    );
    const spanningRead = await as(CAROL).get(`${BASE}/subscriptions/${ofAll}`).expect(403);
    expect((spanningRead.body as ErrorBody).errorDetails).toContain('needs the role viewer in every project');

    const listedTo = async (who: OidcClient): Promise<string[]> => {
      const listed = await as(who).get(`${BASE}/subscriptions`).expect(200);
      return (listed.body as { subscriptions: Array<{ subscriptionId: string }> }).subscriptions
        .map((item) => item.subscriptionId)
        .sort();
    };
    expect(await listedTo(CAROL)).toEqual([ofTeamA]);
    expect(await listedTo(BOB)).toEqual([]);
    const all = await runtime.http.get(`${BASE}/subscriptions`).expect(200);
    expect(
      (all.body as { subscriptions: Array<{ subscriptionId: string }> }).subscriptions
        .map((item) => item.subscriptionId)
        .sort(),
    ).toEqual([ofAll, ofTeamA].sort());
    await as(DAVE).delete(`${BASE}/subscriptions/${ofTeamA}`).expect(204);
  });
});
