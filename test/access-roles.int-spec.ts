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
  commissionAndPrime,
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
const ALICE = client('alice', ['team-ops']);
const VICTOR = client('victor', []);
const NOBODY = client('nobody', ['team-elsewhere']);

const POLICY = `# who may do what
projects:
  default:
    admin: [${USER}]
    operator: ["group:team-ops"]
    viewer: [victor]
`;

interface RefusalEvent {
  detail: { status: number; reason: string; method: string };
  actor: { user: string | null };
}

/** Roles from RUNTIME_POLICY_FILE on every route: 403 naming the role needed, recorded in the ledger. */
describe('roles per project (PostgreSQL, oidc-provider, scripted participant)', () => {
  let folder: string;
  let provider: OidcProviderProcess;
  let runtime: RuntimeHarness;
  let participant: ScriptedParticipant;
  let compositionId: string;
  let instanceId: string;
  const tokens = new Map<OidcClient, string>();

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'acm-policy-'));
    const policyFile = join(folder, 'policy.yaml');
    writeFileSync(policyFile, POLICY);
    provider = await OidcProviderProcess.start([ALICE, VICTOR, NOBODY], AUDIENCE);
    runtime = await startRuntime({
      HEART_BEAT: '3600000',
      OIDC_ISSUER: provider.issuer,
      OIDC_AUDIENCE: AUDIENCE,
      RUNTIME_POLICY_FILE: policyFile,
    });
    participant = new ScriptedParticipant(runtime.app.get(MessageBus), randomUUID(), [SIM_TYPE]);
    await participant.start();
    await participantRegistered(runtime, participant.participantId);
    compositionId = await commissionAndPrime(runtime, readRepoFile('tosca/examples/sim-single-element.yaml'));
    ({ instanceId } = await createInstanceFrom(
      runtime,
      compositionId,
      readRepoFile('tosca/examples/instances/sim-single-element.json'),
    ));
    for (const who of [ALICE, VICTOR, NOBODY]) {
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
      delete: (path: string) => agent.delete(path).set('Authorization', bearer),
    };
  };
  const instancePath = () => `${BASE}/compositions/${compositionId}/instances/${instanceId}`;

  it('lets a viewer read and refuses its order with 403 naming the operator role', async () => {
    await as(VICTOR).get(`${BASE}/compositions/${compositionId}/instances`).expect(200);
    const refused = await as(VICTOR).put(instancePath()).send({ deployOrder: 'DEPLOY' }).expect(403);
    expect((refused.body as { errorDetails: string }).errorDetails).toBe(
      `Forbidden: PUT ${instancePath()} needs the role operator in project default; victor has the role viewer`,
    );
  });

  it('lets an operator (by group) order, and refuses it what needs admin', async () => {
    await as(ALICE).put(instancePath()).send({ deployOrder: 'DEPLOY' }).expect(202);
    const refused = await as(ALICE).delete(`${BASE}/compositions/${compositionId}`).expect(403);
    expect((refused.body as { errorDetails: string }).errorDetails).toContain('needs the role admin');
  });

  it('refuses everything of the API to a user with no role, the event stream included', async () => {
    const refused = await as(NOBODY).get(`${BASE}/compositions`).expect(403);
    expect((refused.body as { errorDetails: string }).errorDetails).toBe(
      `Forbidden: GET ${BASE}/compositions needs the role viewer in a project; nobody has it in none`,
    );
    await as(NOBODY).get(`${BASE}/events`).expect(403);
  });

  it('keeps HTTP Basic: the admin of the policy commissions and reads the audit', async () => {
    await runtime.http.get(`${BASE}/compositions`).expect(200);
    await as(ALICE).get(`${BASE}/audit`).expect(403);
  });

  it('records each 403 in the ledger with the user', async () => {
    const events = await eventually('the 403s recorded', async () => {
      const response = await runtime.http.get(`${BASE}/audit?action=ACCESS_REFUSED`).expect(200);
      const found = (response.body as { events: RefusalEvent[] }).events;
      return found.length >= 5 ? found : undefined;
    });
    expect(events.map((event) => [event.detail.status, event.detail.method, event.actor.user])).toEqual([
      [403, 'PUT', 'victor'],
      [403, 'DELETE', 'alice'],
      [403, 'GET', 'nobody'],
      [403, 'GET', 'nobody'],
      [403, 'GET', 'alice'],
    ]);
  });
});
