import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { REFUSALS_PER_MINUTE } from '../apps/runtime-acm/src/security/refusal-budget';
import type { RuntimeHarness } from './support/runtime-harness';
import { BASE, startRuntime } from './support/runtime-harness';
import { eventually } from './support/scripted-participant';

interface RefusalEvent {
  subjectId: string;
  operationId: string | null;
  event: string;
  detail: { status: number; reason: string; method: string; path: string; source: string | null; unrecorded: number };
  actor: { kind: string; user: string | null; requestId: string | null };
}

/** Refused requests (401) in the audit ledger as ACCESS_REFUSED, bounded per source, without the secrets. */
describe('refused requests in the audit ledger (PostgreSQL)', () => {
  let runtime: RuntimeHarness;

  beforeAll(async () => {
    runtime = await startRuntime({ HEART_BEAT: '3600000' });
  });

  afterAll(async () => {
    await runtime.close();
  });

  const anonymous = () => request(runtime.app.getHttpServer());

  const refusals = async (): Promise<{ events: RefusalEvent[]; text: string }> => {
    const response = await runtime.http.get(`${BASE}/audit?action=ACCESS_REFUSED`).expect(200);
    return { events: (response.body as { events: RefusalEvent[] }).events, text: response.text };
  };

  it('records a 401 with the user name given, the source, method, path and request id, never the password', async () => {
    const password = `secret-${randomUUID()}`;
    const requestId = randomUUID();
    await anonymous().get(`${BASE}/compositions`).expect(401);
    await anonymous()
      .delete(`${BASE}/compositions/${randomUUID()}`)
      .auth('mallory', password)
      .set('X-ONAP-RequestID', requestId)
      .expect(401);
    const { events, text } = await eventually('two refusals recorded', async () => {
      const found = await refusals();
      return found.events.length === 2 ? found : undefined;
    });
    expect(text).not.toContain(password);
    expect(events.map((event) => [event.event, event.operationId, event.actor.kind, event.actor.user])).toEqual([
      ['ACCESS_REFUSED', null, 'request', null],
      ['ACCESS_REFUSED', null, 'request', 'mallory'],
    ]);
    expect(events[0]!.detail).toMatchObject({
      status: 401,
      reason: 'Unauthorized: HTTP Basic credentials are required',
      method: 'GET',
      path: `${BASE}/compositions`,
      unrecorded: 0,
    });
    expect(events[1]!.detail).toMatchObject({
      status: 401,
      reason: 'Unauthorized: wrong user name or password',
      method: 'DELETE',
    });
    expect(events[1]!.actor.requestId).toBe(requestId);
    expect(events[1]!.detail.source).toMatch(/127\.0\.0\.1|::1/);
    const byUser = (await runtime.http.get(`${BASE}/audit?actor=mallory`).expect(200)).body as { events: unknown[] };
    expect(byUser.events).toHaveLength(1);
  });

  it("records a signed URL's refused token, checked by its route, without the token", async () => {
    const before = (await refusals()).events.length;
    const signal = (token: string) =>
      anonymous()
        .post(`${BASE}/compositions/${randomUUID()}/instances/${randomUUID()}/elements/${randomUUID()}/signal`)
        .query({ token })
        .send({ outcome: 'SUCCESS' });
    const malformed = `malformed-${randomUUID()}`;
    await signal(malformed).expect(401);
    // Well formed, an hour ahead, but signed by nobody.
    const forged = `${Math.floor(Date.now() / 1000) + 3600}.${'A'.repeat(43)}`;
    await signal(forged).expect(403);
    const { events, text } = await eventually('two route refusals recorded', async () => {
      const found = await refusals();
      return found.events.length === before + 2 ? found : undefined;
    });
    expect(text).not.toContain(malformed);
    expect(text).not.toContain(forged);
    expect(events.slice(before).map((event) => [event.detail.status, event.detail.method, event.actor.user])).toEqual([
      [401, 'POST', null],
      [403, 'POST', null],
    ]);
    expect(events[before]!.detail.reason).toContain('signal token');
    expect(events[before]!.detail.path).toMatch(/\/signal$/);
  });

  it('records at most the budget of one source per minute', async () => {
    const before = (await refusals()).events.length;
    const sent = REFUSALS_PER_MINUTE + 5;
    for (let index = 0; index < sent; index += 1) {
      await anonymous().get(`${BASE}/participants`).auth('guesser', `guess-${index}`).expect(401);
    }
    // Every refusal was admitted or counted before its answer was sent; only the writes of the admitted ones remain.
    const events = await eventually('the budget recorded', async () => {
      const found = (await refusals()).events;
      return found.length === REFUSALS_PER_MINUTE ? found : undefined;
    });
    expect(before).toBeLessThan(REFUSALS_PER_MINUTE);
    expect(events.filter((event) => event.actor.user === 'guesser')).toHaveLength(REFUSALS_PER_MINUTE - before);
  });
});
