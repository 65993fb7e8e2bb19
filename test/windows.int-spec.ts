import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventStream } from './support/event-stream';
import type { RuntimeHarness } from './support/runtime-harness';
import { BASE, commissionAndPrime, createInstanceFrom, historyOf, readRepoFile } from './support/runtime-harness';
import type { ScriptedParticipant } from './support/scripted-participant';
import { eventually } from './support/scripted-participant';
import { startWithScriptedParticipant } from './support/scripted-runtime';

const definitionYaml = readRepoFile('tosca/examples/sim-single-element.yaml');
const instanceJson = readRepoFile('tosca/examples/instances/sim-single-element.json');

interface WindowBody {
  windowId: string;
  name: string;
  durationSeconds: number;
  openNow: boolean;
  nextStart: string | null;
}

interface RolloutBody {
  rolloutId: string;
  state: string;
  waitingFor: { windows: string[]; until: string | null; message: string } | null;
  counts: Record<string, number>;
}

interface HistoryEvent {
  event: string;
  detail: Record<string, unknown>;
  actor: Record<string, unknown>;
}

/** Jan 1st, 00:00 UTC, for one minute: closed at any time a test runs but that minute. */
const NEW_YEAR = { cron: '0 0 1 1 *', duration: '1m', timeZone: 'UTC' };
/** Opens every minute for an hour: always open. */
const ALWAYS = { cron: '* * * * *', duration: '1h', timeZone: 'UTC' };

/**
 * Maintenance windows on the real store (PostgreSQL) and a scripted participant: created and refused over REST, a
 * single order held by a window refused with the next opening or let through by a recorded override, a rollout
 * waiting for its window and starting once the window goes.
 */
describe('maintenance windows (PostgreSQL, in-process bus, scripted participant)', () => {
  let runtime: RuntimeHarness;
  let participant: ScriptedParticipant;
  let compositionId: string;
  const created: string[] = [];

  beforeAll(async () => {
    ({ runtime, participant } = await startWithScriptedParticipant({ HEART_BEAT: '3600000' }));
    compositionId = await commissionAndPrime(runtime, definitionYaml);
  });

  afterEach(async () => {
    for (const windowId of created.splice(0)) {
      await runtime.http.delete(`${BASE}/windows/${windowId}`);
    }
  });

  afterAll(async () => {
    await participant.stop();
    await runtime.close();
  });

  async function createWindow(body: Record<string, unknown>): Promise<WindowBody> {
    const window = (
      await runtime.http
        .post(`${BASE}/windows`)
        .send({ scope: { compositionIds: [compositionId] }, ...body })
        .expect(201)
    ).body as WindowBody;
    created.push(window.windowId);
    return window;
  }

  it('creates, lists, reads and deletes a window', async () => {
    const window = await createWindow({ name: 'new-year', ...NEW_YEAR, kind: 'allow' });
    expect(window).toMatchObject({ name: 'new-year', durationSeconds: 60, openNow: false });
    expect(window.nextStart).toMatch(/^\d{4}-01-01T00:00:00\.000Z$/);
    const listed = (await runtime.http.get(`${BASE}/windows`).expect(200)).body as { windows: WindowBody[] };
    expect(listed.windows.map((item) => item.windowId)).toContain(window.windowId);
    await runtime.http.get(`${BASE}/windows/${window.windowId}`).expect(200);
    await runtime.http.delete(`${BASE}/windows/${window.windowId}`).expect(204);
    await runtime.http.get(`${BASE}/windows/${window.windowId}`).expect(404);
    await runtime.http.delete(`${BASE}/windows/${window.windowId}`).expect(404);
  });

  it.each([
    [{ cron: '0 25 * * *' }, /^cron: "0 25 \* \* \*" does not parse: Field value \(25\) is out of range/],
    [{ timeZone: 'Mars/Olympus' }, /^timeZone: must be an IANA time zone/],
    [{ duration: 'soon' }, /^duration: /],
  ])('refuses %j with 400 naming the field', async (change, message) => {
    const refused = await runtime.http
      .post(`${BASE}/windows`)
      .send({ name: 'bad', ...NEW_YEAR, ...change })
      .expect(400);
    expect((refused.body as { errorDetails: string }).errorDetails).toMatch(message);
  });

  it('refuses a single order outside the allow window with the next opening, and lets an override through', async () => {
    await createWindow({ name: 'new-year-only', ...NEW_YEAR, kind: 'allow', outside: 'refuse' });
    const { instanceId } = await createInstanceFrom(runtime, compositionId, instanceJson);
    const path = `${BASE}/compositions/${compositionId}/instances/${instanceId}`;
    const refused = await runtime.http.put(path).send({ deployOrder: 'DEPLOY' }).expect(409);
    expect((refused.body as { errorDetails: string }).errorDetails).toMatch(
      /^DEPLOY of instance .* is held: outside the allow window "new-year-only"; next opening \d{4}-01-01T00:00:00\.000Z/,
    );
    expect((await historyOf<HistoryEvent>(runtime, compositionId, instanceId)).map((e) => e.event)).not.toContain(
      'ORDERED',
    );

    await runtime.http
      .put(`${path}?override=${encodeURIComponent('change CHG-42')}`)
      .send({ deployOrder: 'DEPLOY' })
      .expect(202);
    const history = await historyOf<HistoryEvent>(runtime, compositionId, instanceId);
    const overridden = history.find((event) => event.event === 'WINDOW_OVERRIDDEN');
    expect(overridden).toMatchObject({
      detail: { order: 'DEPLOY', reason: 'change CHG-42', windows: ['new-year-only'] },
      actor: { kind: 'request', user: 'runtimeUser' },
    });
    expect(history.map((event) => event.event)).toContain('ORDERED');
  });

  it('refuses a delete while a deny window is open; a window scoped to another composition does not apply', async () => {
    const { instanceId } = await createInstanceFrom(runtime, compositionId, instanceJson);
    await createWindow({ name: 'elsewhere', ...ALWAYS, kind: 'deny', scope: { compositionIds: [randomUUID()] } });
    const plan = (
      await runtime.http
        .post(`${BASE}/rollouts?dryRun=true`)
        .send({ order: 'DEPLOY', compositionId, instanceIds: [instanceId], strategy: { batchSize: 1 } })
        .expect(200)
    ).body as { windows: { applying: string[]; openNow: boolean } };
    expect(plan.windows).toMatchObject({ applying: [], openNow: true });
    const path = `${BASE}/compositions/${compositionId}/instances/${instanceId}`;
    await createWindow({ name: 'freeze', ...ALWAYS, kind: 'deny' });
    const refused = await runtime.http.delete(path).expect(409);
    expect((refused.body as { errorDetails: string }).errorDetails).toMatch(
      /held: deny window "freeze" is open; no opening found within a year/,
    );
  });

  it('selects the instances of a rollout by the filters of /v2/instances, resolved at creation', async () => {
    const deployed = await createInstanceFrom(runtime, compositionId, instanceJson);
    const undeployed = await createInstanceFrom(runtime, compositionId, instanceJson);
    await runtime.http
      .put(`${BASE}/compositions/${compositionId}/instances/${deployed.instanceId}`)
      .send({ deployOrder: 'DEPLOY' })
      .expect(202);
    await eventually('the instance deployed', async () => {
      const instance = (
        await runtime.http.get(`${BASE}/compositions/${compositionId}/instances/${deployed.instanceId}`).expect(200)
      ).body as { deployState: string };
      return instance.deployState === 'DEPLOYED' ? true : undefined;
    });
    const body = {
      order: 'UNDEPLOY',
      compositionId,
      instanceIds: [deployed.instanceId, undeployed.instanceId],
      filter: { deployStates: ['DEPLOYED'] },
      strategy: { batchSize: 1 },
    };
    const plan = (await runtime.http.post(`${BASE}/rollouts?dryRun=true`).send(body).expect(200)).body as {
      batches: Array<{ batch: number; instanceIds: string[] }>;
      refused: unknown[];
    };
    expect(plan.batches).toEqual([{ batch: 1, instanceIds: [deployed.instanceId] }]);
    expect(plan.refused).toEqual([]);
    const refused = await runtime.http
      .post(`${BASE}/rollouts`)
      .send({ ...body, filter: { metadata: { site: 'nowhere' } } })
      .expect(400);
    expect((refused.body as { errorDetails: string }).errorDetails).toBe(
      'filter: the selection is empty; no instance matches the filter',
    );
  });

  it('holds a rollout until its window lets it start, and answers the windows in a dry run; its events are streamed', async () => {
    const server = runtime.app.getHttpServer() as Server;
    if (!server.listening) {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    }
    const stream = await EventStream.open(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    await eventually('the stream ready', () => (stream.ready ? true : undefined));
    const fleet = [
      await createInstanceFrom(runtime, compositionId, instanceJson),
      await createInstanceFrom(runtime, compositionId, instanceJson),
    ];
    const ids = fleet.map((item) => item.instanceId);
    const freeze = await createWindow({ name: 'rollout-freeze', ...ALWAYS, kind: 'deny' });
    const body = { order: 'DEPLOY', compositionId, instanceIds: ids, strategy: { batchSize: 1 } };

    const plan = (await runtime.http.post(`${BASE}/rollouts?dryRun=true`).send(body).expect(200)).body as {
      windows: { applying: string[]; openNow: boolean; heldBy: string[]; nextOpening: string | null };
    };
    expect(plan.windows).toEqual({
      applying: ['rollout-freeze'],
      openNow: false,
      heldBy: ['rollout-freeze'],
      nextOpening: null,
    });

    const started = (await runtime.http.post(`${BASE}/rollouts`).send(body).expect(201)).body as RolloutBody;
    expect(started.state).toBe('RUNNING');
    expect(started.counts).toMatchObject({ PENDING: 2, ORDERED: 0 });
    expect(started.waitingFor).toEqual({
      windows: ['rollout-freeze'],
      until: null,
      message: 'waiting for window "rollout-freeze" (no opening found within a year)',
    });

    await runtime.http.delete(`${BASE}/windows/${freeze.windowId}`).expect(204);
    const done = await eventually('the rollout completed', async () => {
      const rollout = (await runtime.http.get(`${BASE}/rollouts/${started.rolloutId}`).expect(200)).body as RolloutBody;
      return rollout.state === 'COMPLETED' ? rollout : undefined;
    });
    expect(done.waitingFor).toBeNull();
    const history = (await runtime.http.get(`${BASE}/rollouts/${started.rolloutId}/history`).expect(200)).body as {
      events: Array<{ kind: string; batch: number | null; reason: string | null }>;
    };
    const kinds = history.events.map((event) => event.kind);
    expect(history.events.find((event) => event.kind === 'WINDOW_WAIT')).toMatchObject({
      batch: 1,
      reason: 'waiting for window "rollout-freeze"',
    });
    expect(kinds.indexOf('WINDOW_WAIT')).toBeLessThan(kinds.indexOf('BATCH_STARTED'));

    // The same events on GET /v2/events, the rollout as their subject, in the same order.
    const streamed = await eventually('the rollout events streamed', () => {
      const mine = stream.history
        .map((event) => event.data)
        .filter((data) => data['subjectId'] === started.rolloutId && data['event'] === 'ROLLOUT');
      return mine.length === history.events.length ? mine : undefined;
    });
    stream.close();
    expect(streamed.map((data) => (data['detail'] as { kind: string }).kind)).toEqual(kinds);
    expect(streamed[0]).toMatchObject({ actor: { kind: 'request', user: 'runtimeUser' } });
  });
});
