import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashPassword } from '@acm/input-guards';
import request from 'supertest';
import type { RuntimeHarness } from './support/runtime-harness';
import {
  BASE,
  PASSWORD,
  USER,
  commissionAndPrime,
  createInstanceFrom,
  instanceOf,
  readRepoFile,
} from './support/runtime-harness';
import type { ScriptedParticipant } from './support/scripted-participant';
import { eventually } from './support/scripted-participant';
import { startWithScriptedParticipant } from './support/scripted-runtime';

/** The cheapest cost the file accepts, so the test spends little CPU on hashing. */
const CHEAP = { logN: 14, r: 8, p: 1 };
const ALICE = { user: 'alice', password: `a-${randomUUID()}` };
const BOB = { user: 'bob-ci', password: `b-${randomUUID()}` };
/** RUNTIME_PASSWORD while the file is set: the file replaces it. */
const ENV_ONLY_PASSWORD = `env-${randomUUID()}`;

interface AuditEvent {
  subjectId: string;
  detail: { order?: string };
  actor: { kind: string; user?: string | null };
}

/** Several HTTP Basic users from RUNTIME_USERS_FILE: each one's orders carry their own actor in GET /v2/audit. */
describe('Basic users from a file (PostgreSQL, in-process bus, scripted participant)', () => {
  let folder: string;
  let runtime: RuntimeHarness;
  let participant: ScriptedParticipant;
  let compositionId: string;
  let instanceId: string;

  const as = (who: { user: string; password: string }) =>
    request.agent(runtime.app.getHttpServer()).auth(who.user, who.password);

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'acm-users-'));
    const file = join(folder, 'users');
    const lines = await Promise.all(
      [{ user: USER, password: PASSWORD }, ALICE, BOB].map(
        async (who) => `${who.user}:${await hashPassword(who.password, CHEAP)}`,
      ),
    );
    writeFileSync(file, `# test users\n${lines.join('\n')}\n`);
    ({ runtime, participant } = await startWithScriptedParticipant({
      HEART_BEAT: '3600000',
      RUNTIME_USERS_FILE: file,
      RUNTIME_PASSWORD: ENV_ONLY_PASSWORD,
    }));
    compositionId = await commissionAndPrime(runtime, readRepoFile('tosca/examples/sim-single-element.yaml'));
    ({ instanceId } = await createInstanceFrom(
      runtime,
      compositionId,
      readRepoFile('tosca/examples/instances/sim-single-element.json'),
    ));
  }, 120_000);

  afterAll(async () => {
    await participant.stop();
    await runtime.close();
    rmSync(folder, { recursive: true, force: true });
  });

  async function order(who: { user: string; password: string }, deployOrder: string): Promise<void> {
    await as(who)
      .put(`${BASE}/compositions/${compositionId}/instances/${instanceId}`)
      .send({ deployOrder })
      .expect(202);
    await eventually(`${deployOrder} done`, async () => {
      const current = await instanceOf<{ deployState: string }>(runtime, compositionId, instanceId);
      return current.deployState === `${deployOrder}ED` ? true : undefined;
    });
  }

  it("records each user's orders under their own name", async () => {
    await order(ALICE, 'DEPLOY');
    await order(BOB, 'UNDEPLOY');
    const audit = await as(BOB).get(`${BASE}/audit?instanceId=${instanceId}&action=ORDERED`).expect(200);
    expect(
      (audit.body as { events: AuditEvent[] }).events.map((event) => [event.detail.order, event.actor.user]),
    ).toEqual([
      ['DEPLOY', ALICE.user],
      ['UNDEPLOY', BOB.user],
    ]);
    const bobs = await as(ALICE).get(`${BASE}/audit?actor=${BOB.user}`).expect(200);
    const events = (bobs.body as { events: AuditEvent[] }).events;
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((event) => event.actor.user === BOB.user && event.subjectId === instanceId)).toBe(true);
  });

  it('refuses a wrong password, an unknown user, the env user and no credentials with 401, without echoing a secret', async () => {
    for (const who of [
      { user: ALICE.user, password: BOB.password },
      { user: 'mallory', password: ALICE.password },
      { user: USER, password: ENV_ONLY_PASSWORD },
    ]) {
      const refused = await as(who).get(`${BASE}/compositions`).expect(401);
      expect(refused.headers['www-authenticate']).toBe('Basic realm="acm-runtime"');
      expect(refused.text).not.toContain(who.password);
    }
    await request(runtime.app.getHttpServer()).get(`${BASE}/compositions`).expect(401);
    await as(ALICE).get(`${BASE}/compositions`).expect(200);
  });
});
