import { randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import type { RuntimeHarness } from './support/runtime-harness';
import {
  BASE,
  USER,
  commissionAndPrime,
  createInstanceFrom,
  instanceOf,
  orderInstance,
  readRepoFile,
} from './support/runtime-harness';
import type { ScriptedParticipant } from './support/scripted-participant';
import { eventually } from './support/scripted-participant';
import { startWithScriptedParticipant } from './support/scripted-runtime';

interface AuditEvent {
  subjectId: string;
  event: string;
  detail: { order?: string };
  actor: { kind: string; user?: string | null; requestId?: string | null };
  at: string;
  sequence: number;
}

const linesOf = (response: Response): AuditEvent[] =>
  response.text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as AuditEvent);

/** GET /v2/audit on the real PostgreSQL, with operations run through the engine and a scripted participant. */
describe('audit query (PostgreSQL, in-process bus, scripted participant)', () => {
  let runtime: RuntimeHarness;
  let participant: ScriptedParticipant;
  let compositionId: string;
  const instances: string[] = [];

  beforeAll(async () => {
    ({ runtime, participant } = await startWithScriptedParticipant({ HEART_BEAT: '3600000' }));
    compositionId = await commissionAndPrime(runtime, readRepoFile('tosca/examples/sim-single-element.yaml'));
    for (let index = 0; index < 2; index++) {
      const { instanceId } = await createInstanceFrom(
        runtime,
        compositionId,
        readRepoFile('tosca/examples/instances/sim-single-element.json'),
      );
      instances.push(instanceId);
      for (const order of ['DEPLOY', 'UNDEPLOY']) {
        await orderInstance(runtime, compositionId, instanceId, { deployOrder: order });
        await eventually(`${order} done`, async () => {
          const current = await instanceOf<{ deployState: string }>(runtime, compositionId, instanceId);
          return current.deployState === `${order}ED` ? true : undefined;
        });
      }
    }
  }, 120_000);

  afterAll(async () => {
    await participant.stop();
    await runtime.close();
  });

  const audit = async (query: string): Promise<AuditEvent[]> =>
    ((await runtime.http.get(`${BASE}/audit?${query}`).expect(200)).body as { events: AuditEvent[] }).events;

  it('answers who ordered each operation of an instance', async () => {
    const orders = await audit(`instanceId=${instances[0]}&action=ORDERED`);
    expect(orders.map((event) => [event.subjectId, event.detail.order, event.actor.kind, event.actor.user])).toEqual([
      [instances[0], 'DEPLOY', 'request', USER],
      [instances[0], 'UNDEPLOY', 'request', USER],
    ]);
    const undeploys = await audit(`instanceId=${instances[0]}&action=UNDEPLOY`);
    expect(undeploys.map((event) => event.detail.order)).toEqual(['UNDEPLOY']);
  });

  it('answers what a user did between two times, in time order across subjects', async () => {
    const all = await audit(`actor=${USER}&action=ORDERED`);
    expect(all.map((event) => [event.subjectId, event.detail.order])).toEqual([
      [compositionId, 'PRIME'],
      [instances[0], 'DEPLOY'],
      [instances[0], 'UNDEPLOY'],
      [instances[1], 'DEPLOY'],
      [instances[1], 'UNDEPLOY'],
    ]);
    const third = all[2]!;
    const from = new Date(Date.parse(`${all[1]!.at.replace(' ', 'T')}Z`) + 1).toISOString();
    const window = await audit(`actor=${USER}&action=ORDERED&from=${from}&to=2999-01-01`);
    expect(window.map((event) => event.sequence)).toEqual(all.slice(2).map((event) => event.sequence));
    expect(window[0]!.sequence).toBe(third.sequence);
    expect(await audit(`actor=nobody-${randomUUID()}`)).toEqual([]);
  });

  it('pages and selects a definition with its instances', async () => {
    const everything = await audit(`compositionId=${compositionId}`);
    expect(new Set(everything.map((event) => event.subjectId))).toEqual(new Set([compositionId, ...instances]));
    const page = await audit(`compositionId=${compositionId}&page=1&size=3`);
    expect(page.map((event) => event.sequence)).toEqual(everything.slice(3, 6).map((event) => event.sequence));
  });

  it('streams every matching event as NDJSON, by format or by Accept', async () => {
    const json = await audit(`compositionId=${compositionId}`);
    const response = await runtime.http.get(`${BASE}/audit?compositionId=${compositionId}&format=ndjson`).expect(200);
    expect(response.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    expect(linesOf(response)).toEqual(json);
    const accepted = await runtime.http
      .get(`${BASE}/audit?compositionId=${compositionId}`)
      .set('Accept', 'application/x-ndjson')
      .expect(200);
    expect(accepted.text).toBe(response.text);
  });

  it('refuses a bad filter with 400 naming the parameter and the rule', async () => {
    const cases: Array<[string, string]> = [
      ['from=yesterday', 'from: must be an ISO-8601 time'],
      ['to=2026-13-45T00:00:00', 'to: must be an ISO-8601 time'],
      ['from=2026-12-02&to=2026-12-01', 'from: must be before to'],
      ['action=DEPLOYED', 'action: "DEPLOYED" is neither an event kind'],
      ['instanceId=42', 'instanceId: must be a UUID'],
      ['page=-1&size=2', 'page: must be an integer'],
      ['format=csv', 'format: must be json or ndjson'],
    ];
    for (const [query, message] of cases) {
      const refused = await runtime.http.get(`${BASE}/audit?${query}`).expect(400);
      expect((refused.body as { errorDetails: string }).errorDetails).toContain(message);
    }
  });
});
