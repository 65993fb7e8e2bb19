import { randomUUID } from 'node:crypto';
import type { RuntimeHarness } from './support/runtime-harness';
import { BASE, USER, commissionAndPrime, readRepoFile } from './support/runtime-harness';
import type { ScriptedParticipant } from './support/scripted-participant';
import { eventually } from './support/scripted-participant';
import { startWithScriptedParticipant } from './support/scripted-runtime';

const definitionYaml = readRepoFile('tosca/examples/sim-approval.yaml');
const instanceJson = readRepoFile('tosca/examples/instances/sim-approval.json');

interface Instance {
  deployState: string;
  phase?: number;
  elements: Record<
    string,
    { deployState: string; definition: { name: string }; outProperties?: Record<string, unknown> }
  >;
}

/**
 * Signals through the real store (PostgreSQL): the wait's state is kept with the element, and two identical
 * signals sent at once serialise on the instance's row lock, so one counts and the other is a duplicate.
 */
describe('wait-condition signals (PostgreSQL, in-process bus, scripted participant)', () => {
  let runtime: RuntimeHarness;
  let participant: ScriptedParticipant;
  let compositionId: string;

  beforeAll(async () => {
    ({ runtime, participant } = await startWithScriptedParticipant({ HEART_BEAT: '3600000' }));
    compositionId = await commissionAndPrime(runtime, definitionYaml);
  });

  afterAll(async () => {
    await participant.stop();
    await runtime.close();
  });

  async function waitingInstance(): Promise<{ path: string; approval: string; read: () => Promise<Instance> }> {
    const parsed = JSON.parse(instanceJson.replace(/COMPOSITIONIDPLACEHOLDER/g, compositionId)) as {
      name: string;
      elements: Record<string, { id: string }>;
    };
    const elements = Object.fromEntries(
      Object.values(parsed.elements).map((element) => {
        const id = randomUUID();
        return [id, { ...element, id }];
      }),
    );
    const created = await runtime.http
      .post(`${BASE}/compositions/${compositionId}/instances`)
      .send({ ...parsed, name: `${parsed.name}-${randomUUID().slice(0, 8)}`, elements })
      .expect(201);
    const path = `${BASE}/compositions/${compositionId}/instances/${(created.body as { instanceId: string }).instanceId}`;
    const read = async (): Promise<Instance> => (await runtime.http.get(path).expect(200)).body as Instance;
    const approval = Object.entries((await read()).elements).find(([, element]) =>
      element.definition.name.endsWith('Approval'),
    )![0];
    await runtime.http.put(path).send({ deployOrder: 'DEPLOY' }).expect(202);
    await eventually('the approval waiting', async () => {
      const wait = (await read()).elements[approval]?.outProperties?.['waitCondition'] as { outcome?: string };
      return wait?.outcome === 'WAITING' ? true : undefined;
    });
    return { path, approval, read };
  }

  it('applies one of two identical signals sent at once; the other is a duplicate, and the deploy completes', async () => {
    const { path, approval, read } = await waitingInstance();
    const send = () =>
      runtime.http.post(`${path}/elements/${approval}/signal`).send({ status: 'SUCCESS', id: 'same-signal' });
    const answers = await Promise.all([send(), send()]);
    const effects = answers.map((answer) => [answer.status, (answer.body as { effect: string }).effect]).sort();
    expect(effects).toEqual([
      [200, 'DUPLICATE'],
      [202, 'COMPLETED'],
    ]);
    await eventually('DEPLOYED', async () => ((await read()).deployState === 'DEPLOYED' ? true : undefined));
    const stored = (await read()).elements[approval]!;
    expect(stored.deployState).toBe('DEPLOYED');
    expect(stored.outProperties?.['waitCondition']).toMatchObject({
      signalIds: ['same-signal'],
      successes: 1,
      outcome: 'COMPLETED',
    });
    const history = (await runtime.http.get(`${path}/history`).expect(200)).body as {
      events: Array<{ event: string }>;
    };
    expect(history.events.filter((entry) => entry.event === 'SIGNAL_RECEIVED')).toHaveLength(1);
  });

  it("builds a signed URL on the address the request arrived on, never on the request's Host", async () => {
    const { path, approval } = await waitingInstance();
    const signed = await runtime.http
      .get(`${path}/elements/${approval}/signal-url`)
      .set('Host', 'evil.example')
      .set('X-Forwarded-Host', 'evil.example')
      .expect(200);
    const url = (signed.body as { url: string }).url;
    // supertest connects to 127.0.0.1 on an ephemeral port of its own.
    expect(url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+${path}/elements/${approval}/signal\\?token=`));
    expect(url).not.toContain('evil.example');
  });

  it('refuses bad signals with 4xx naming the field, and none of them changes the stored wait', async () => {
    const { path, approval, read } = await waitingInstance();
    const before = (await read()).elements[approval]!.outProperties;
    const refusals: Array<[unknown, number, string]> = [
      [{ status: 'MAYBE', id: 'a' }, 400, 'status: must be SUCCESS or FAILURE'],
      [{ status: 'SUCCESS' }, 400, 'id: must be a string of 1 to 200'],
      [{ status: 'SUCCESS', id: 'a', reason: 7 }, 400, 'reason: must be a string of at most 1000'],
      [[1, 2], 400, 'body: must be a JSON object'],
    ];
    for (const [body, status, text] of refusals) {
      const refused = await runtime.http
        .post(`${path}/elements/${approval}/signal`)
        .send(body as object)
        .expect(status);
      expect((refused.body as { errorDetails: string }).errorDetails).toContain(text);
    }
    const database = Object.entries((await read()).elements).find(([, element]) =>
      element.definition.name.endsWith('Database'),
    )![0];
    const notWait = await runtime.http
      .post(`${path}/elements/${database}/signal`)
      .send({ status: 'SUCCESS', id: 'a' })
      .expect(400);
    expect((notWait.body as { errorDetails: string }).errorDetails).toContain('must name a wait-condition element');
    await runtime.http.post(`${path}/elements/${randomUUID()}/signal`).send({ status: 'SUCCESS', id: 'a' }).expect(404);
    await runtime.http.post(`${path}/elements/not-a-uuid/signal`).send({ status: 'SUCCESS', id: 'a' }).expect(400);
    expect((await read()).elements[approval]!.outProperties).toEqual(before);
  });

  it('names the user and request id of every ORDERED, PAUSED, RESUMED, SIGNAL_RECEIVED and CANCELLED event', async () => {
    const history = async (path: string) =>
      (
        (await runtime.http.get(`${path}/history`).expect(200)).body as {
          events: Array<{ event: string; actor: Record<string, unknown> }>;
        }
      ).events;
    const actorsOf = (events: Array<{ event: string; actor: Record<string, unknown> }>, kinds: string[]) =>
      events.filter((entry) => kinds.includes(entry.event)).map(({ event, actor }) => ({ event, actor }));
    const by = (requestId: string) => ({ kind: 'request', user: USER, requestId });

    const signalled = await waitingInstance();
    await runtime.http.post(`${signalled.path}/pause`).set('X-ONAP-RequestID', 'req-pause').expect(202);
    await runtime.http.post(`${signalled.path}/resume`).set('X-ONAP-RequestID', 'req-resume').expect(202);
    await runtime.http
      .post(`${signalled.path}/elements/${signalled.approval}/signal`)
      .set('X-ONAP-RequestID', 'req-signal')
      .send({ status: 'SUCCESS', id: 'approved' })
      .expect(202);
    const ordered = (await history(signalled.path)).find((entry) => entry.event === 'ORDERED')!;
    // waitingInstance's deploy sent no request id of its own: the runtime's, as it answered with.
    expect(ordered.actor).toEqual({ kind: 'request', user: USER, requestId: expect.stringMatching(/.+/) });
    expect(actorsOf(await history(signalled.path), ['PAUSED', 'RESUMED', 'SIGNAL_RECEIVED'])).toEqual([
      { event: 'PAUSED', actor: by('req-pause') },
      { event: 'RESUMED', actor: by('req-resume') },
      { event: 'SIGNAL_RECEIVED', actor: by('req-signal') },
    ]);

    const cancelled = await waitingInstance();
    await runtime.http.post(`${cancelled.path}/cancel`).set('X-ONAP-RequestID', 'req-cancel').expect(202);
    expect(actorsOf(await history(cancelled.path), ['CANCELLED'])).toEqual([
      { event: 'CANCELLED', actor: by('req-cancel') },
    ]);
  });
});
