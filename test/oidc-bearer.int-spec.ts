import { randomUUID } from 'node:crypto';
import { MessageBus } from '@acm/messaging';
import request from 'supertest';
import { OidcBearerVerifier } from '../apps/runtime-acm/src/security/bearer-tokens';
import { OidcProviderProcess } from './support/oidc-provider';
import type { OidcClient } from './support/oidc-provider';
import type { RuntimeHarness } from './support/runtime-harness';
import {
  BASE,
  commissionAndPrime,
  createInstanceFrom,
  participantRegistered,
  readRepoFile,
  startRuntime,
} from './support/runtime-harness';
import { ScriptedParticipant, eventually } from './support/scripted-participant';

const SIM_TYPE = { typeName: 'org.onap.policy.clamp.acm.SimAutomationCompositionElement', typeVersion: '1.0.0' };
const AUDIENCE = 'acm-runtime';
const ALICE: OidcClient = { id: 'alice-cli', secret: `secret-${randomUUID()}`, user: 'alice', groups: ['team-a'] };

interface AuditEvent {
  event: string;
  subjectId: string;
  detail: { order?: string; status?: number; reason?: string };
  actor: { kind: string; user: string | null };
}

const header = (token: string): string => `Bearer ${token}`;

/** Bearer tokens of a real OpenID provider (oidc-provider in a child process), besides HTTP Basic. */
describe('OpenID Connect bearer tokens (PostgreSQL, oidc-provider)', () => {
  let provider: OidcProviderProcess;
  let runtime: RuntimeHarness;
  let participant: ScriptedParticipant;

  beforeAll(async () => {
    provider = await OidcProviderProcess.start([ALICE], AUDIENCE);
    runtime = await startRuntime({
      HEART_BEAT: '3600000',
      OIDC_ISSUER: provider.issuer,
      OIDC_AUDIENCE: AUDIENCE,
      OIDC_CLOCK_SKEW_S: '0',
      OIDC_JWKS_COOLDOWN_S: '0',
    });
    participant = new ScriptedParticipant(runtime.app.get(MessageBus), randomUUID(), [SIM_TYPE]);
    await participant.start();
    await participantRegistered(runtime, participant.participantId);
  }, 60_000);

  afterAll(async () => {
    await participant?.stop();
    await runtime?.close();
    await provider?.stop();
  });

  const anonymous = () => request(runtime.app.getHttpServer());

  const refusal = async (token: string): Promise<string> => {
    const response = await anonymous().get(`${BASE}/compositions`).set('Authorization', header(token)).expect(401);
    expect(response.text).not.toContain(token);
    expect(response.headers['www-authenticate']).toContain('Bearer');
    return (response.body as { errorDetails: string }).errorDetails;
  };

  it('accepts a token of the provider, and its user is the actor of what it orders', async () => {
    const token = await provider.token(ALICE);
    await anonymous().get(`${BASE}/compositions`).set('Authorization', header(token)).expect(200);
    const compositionId = await commissionAndPrime(runtime, readRepoFile('tosca/examples/sim-single-element.yaml'));
    const { instanceId } = await createInstanceFrom(
      runtime,
      compositionId,
      readRepoFile('tosca/examples/instances/sim-single-element.json'),
    );
    await anonymous()
      .put(`${BASE}/compositions/${compositionId}/instances/${instanceId}`)
      .set('Authorization', header(token))
      .send({ deployOrder: 'DEPLOY' })
      .expect(202);
    const audit = await runtime.http.get(`${BASE}/audit?instanceId=${instanceId}&action=ORDERED`).expect(200);
    expect((audit.body as { events: AuditEvent[] }).events.map((event) => [event.detail.order, event.actor])).toEqual([
      ['DEPLOY', expect.objectContaining({ kind: 'request', user: 'alice' })],
    ]);
  });

  it('still accepts HTTP Basic', async () => {
    await runtime.http.get(`${BASE}/compositions`).expect(200);
  });

  it('refuses a token with a wrong signature, issuer or audience with 401 naming which', async () => {
    const token = await provider.token(ALICE);
    const [head, payload, signature] = token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...claims, preferred_username: 'admin' })).toString('base64url');
    expect(await refusal(`${head}.${forged}.${signature}`)).toBe('Unauthorized: the token has a wrong signature');
    expect(await refusal(await provider.token(ALICE, { issuer: provider.otherIssuer }))).toBe(
      'Unauthorized: the token has a wrong issuer (iss is not OIDC_ISSUER)',
    );
    expect(await refusal(await provider.token(ALICE, { resource: 'urn:acm:other' }))).toBe(
      'Unauthorized: the token has a wrong audience (aud does not name OIDC_AUDIENCE)',
    );
    expect(await refusal('not-a-jwt')).toBe('Unauthorized: the token is not a valid JWT');
  });

  it('records refused tokens in the ledger without the token', async () => {
    const token = await provider.token(ALICE, { resource: 'urn:acm:other' });
    await refusal(token);
    const events = await eventually('the refusal recorded', async () => {
      const response = await runtime.http.get(`${BASE}/audit?action=ACCESS_REFUSED`).expect(200);
      expect(response.text).not.toContain(token);
      const found = (response.body as { events: AuditEvent[] }).events;
      return found.some((event) => event.detail.reason?.includes('wrong audience')) ? found : undefined;
    });
    expect(events.every((event) => event.detail.status === 401 && event.actor.user === null)).toBe(true);
  });

  it('refuses an expired token with 401 naming the expiry', async () => {
    const token = await provider.token(ALICE);
    const settings = { issuer: provider.issuer, audience: AUDIENCE, groupsClaim: 'groups', clockSkewS: 30 };
    const now = new OidcBearerVerifier({ ...settings, jwksCooldownS: 0 });
    expect(await now.verify(token)).toEqual({
      ok: true,
      principal: { user: 'alice', groups: ['team-a'], scheme: 'bearer' },
    });
    // The provider issues tokens for 600 s: two hours later this one has expired, skew or not.
    const later = new OidcBearerVerifier({ ...settings, jwksCooldownS: 0 }, undefined, () => Date.now() + 7_200_000);
    expect(await later.verify(token)).toEqual({ ok: false, reason: 'the token has expired (exp)' });
  });

  it('follows a rotation of the provider keys (the JWKS fetched again for a new key)', async () => {
    await anonymous()
      .get(`${BASE}/compositions`)
      .set('Authorization', header(await provider.token(ALICE)))
      .expect(200);
    const kid = await provider.rotateKeys();
    const token = await provider.token(ALICE);
    const used = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8')) as { kid: string };
    expect(used.kid).toBe(kid);
    await anonymous().get(`${BASE}/compositions`).set('Authorization', header(token)).expect(200);
  });
});
