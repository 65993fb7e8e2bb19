import request from 'supertest';
import type { EmbeddedRuntime } from '../support/readme-walk';
import { startEmbeddedRuntime } from '../support/readme-walk';
import { EventStream } from '../support/event-stream';
import { BASE, PASSWORD, USER, readRepoFile } from '../support/runtime-harness';
import { eventually } from '../support/scripted-participant';

/** The payloads of the history events a stream received, in the order it received them. */
function historyOf(stream: EventStream): Array<Record<string, unknown>> {
  return stream.history.map((event) => event.data);
}

describe('GET /v2/events: the history as it commits, pushed as server-sent events', () => {
  let runtime: EmbeddedRuntime;
  const streams: EventStream[] = [];

  beforeAll(async () => {
    runtime = await startEmbeddedRuntime('live-events-runtime');
  }, 120_000);

  afterAll(async () => {
    streams.forEach((stream) => stream.close());
    await runtime?.stop();
  });

  const api = () => request(`http://127.0.0.1:${runtime.port}`);
  const open = async (query = ''): Promise<EventStream> => {
    const stream = await EventStream.open(`http://127.0.0.1:${runtime.port}`, { query });
    streams.push(stream);
    await eventually('the ready event', () =>
      stream.events.some((event) => event.type === 'ready') ? true : undefined,
    );
    return stream;
  };

  it('streams every event of a prime and a deploy as GET .../history lists it, and only the asked subjects', async () => {
    const everything = await open();
    expect(everything.contentType).toContain('text/event-stream');

    const commissioned = await api()
      .post(`${BASE}/compositions`)
      .auth(USER, PASSWORD)
      .set('Content-Type', 'application/yaml')
      .send(readRepoFile('tosca/examples/sim-three-phase.yaml'));
    expect(commissioned.status).toBe(201);
    const compositionId = commissioned.body.compositionId as string;
    const definitionOnly = await open(`?subjectId=${compositionId}`);

    await api().put(`${BASE}/compositions/${compositionId}`).auth(USER, PASSWORD).send({ primeOrder: 'PRIME' });
    await eventually('PRIMED on the stream', () =>
      historyOf(definitionOnly).some((event) => event.event === 'COMPLETED') ? true : undefined,
    );
    const instanceBody = readRepoFile('tosca/examples/instances/sim-three-phase.json').replace(
      'COMPOSITIONIDPLACEHOLDER',
      compositionId,
    );
    const created = await api()
      .post(`${BASE}/compositions/${compositionId}/instances`)
      .auth(USER, PASSWORD)
      .set('Content-Type', 'application/json')
      .send(instanceBody);
    const instanceId = created.body.instanceId as string;
    const instancePath = `${BASE}/compositions/${compositionId}/instances/${instanceId}`;
    await api().put(instancePath).auth(USER, PASSWORD).send({ deployOrder: 'DEPLOY' });
    await eventually(
      'the deploy to complete on the stream',
      () =>
        historyOf(everything).some((event) => event.subjectId === instanceId && event.event === 'COMPLETED')
          ? true
          : undefined,
      3000,
    );

    const history = await api().get(`${instancePath}/history`).auth(USER, PASSWORD);
    const streamed = historyOf(everything).filter((event) => event.subjectId === instanceId);
    expect(streamed).toEqual(history.body.events);
    expect(streamed.map((event) => event.event)).toEqual([
      'ORDERED',
      ...[0, 1, 2].flatMap(() => ['PHASE_STARTED', 'ELEMENT_RESULT', 'ELEMENT_RESULT', 'PHASE_COMPLETED']),
      'COMPLETED',
    ]);
    // The id of each message is its feed position (what an EventSource sends back as Last-Event-ID): one per event,
    // rising in commit order, which need not be the order the sequences were taken in.
    const ids = everything.events.filter((event) => event.type === 'history').map((event) => Number(event.id));
    expect(ids).toHaveLength(historyOf(everything).length);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);

    const definitionHistory = await api().get(`${BASE}/compositions/${compositionId}/history`).auth(USER, PASSWORD);
    expect(historyOf(definitionOnly)).toEqual(definitionHistory.body.events);
    expect(historyOf(definitionOnly).every((event) => event.subjectId === compositionId)).toBe(true);
  }, 120_000);

  it('refuses a subjectId that is not a list of UUIDs with 400 naming the parameter', async () => {
    const refused = await api().get(`${BASE}/events?subjectId=not-an-id`).auth(USER, PASSWORD);

    expect(refused.status).toBe(400);
    expect(refused.body.errorDetails).toContain('subjectId: must be a UUID');
  });
});
