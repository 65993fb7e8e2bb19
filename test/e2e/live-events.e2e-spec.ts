import type { IncomingMessage } from 'node:http';
import { get } from 'node:http';
import request from 'supertest';
import type { EmbeddedRuntime } from '../support/readme-walk';
import { startEmbeddedRuntime } from '../support/readme-walk';
import { BASE, PASSWORD, USER, readRepoFile } from '../support/runtime-harness';
import { eventually } from '../support/scripted-participant';

interface StreamedEvent {
  readonly type: string;
  readonly id?: string;
  readonly data: Record<string, unknown>;
}

/** A subscription to GET /v2/events, parsed as an EventSource would parse it. */
class EventStream {
  readonly events: StreamedEvent[] = [];
  private response?: IncomingMessage;
  private buffer = '';

  static open(port: number, query = ''): Promise<EventStream> {
    const stream = new EventStream();
    return new Promise((resolve, reject) => {
      const call = get(
        { host: '127.0.0.1', port, path: `${BASE}/events${query}`, auth: `${USER}:${PASSWORD}` },
        (response) => {
          stream.response = response;
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => stream.read(chunk));
          resolve(stream);
        },
      );
      call.once('error', reject);
    });
  }

  get contentType(): string | undefined {
    return this.response?.headers['content-type'];
  }

  private read(chunk: string): void {
    this.buffer += chunk;
    let end: number;
    while ((end = this.buffer.indexOf('\n\n')) >= 0) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const fields = new Map<string, string>();
      for (const line of block.split('\n')) {
        const colon = line.indexOf(':');
        if (colon > 0) {
          fields.set(line.slice(0, colon), line.slice(colon + 1).trimStart());
        }
      }
      if (fields.has('data')) {
        this.events.push({
          type: fields.get('event') ?? 'message',
          id: fields.get('id'),
          data: JSON.parse(fields.get('data')!) as Record<string, unknown>,
        });
      }
    }
  }

  history(): Array<Record<string, unknown>> {
    return this.events.filter((event) => event.type === 'history').map((event) => event.data);
  }

  close(): void {
    this.response?.destroy();
  }
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
    const stream = await EventStream.open(runtime.port, query);
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
      definitionOnly.history().some((event) => event.event === 'COMPLETED') ? true : undefined,
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
        everything.history().some((event) => event.subjectId === instanceId && event.event === 'COMPLETED')
          ? true
          : undefined,
      3000,
    );

    const history = await api().get(`${instancePath}/history`).auth(USER, PASSWORD);
    const streamed = everything.history().filter((event) => event.subjectId === instanceId);
    expect(streamed).toEqual(history.body.events);
    expect(streamed.map((event) => event.event)).toEqual([
      'ORDERED',
      ...[0, 1, 2].flatMap(() => ['PHASE_STARTED', 'ELEMENT_RESULT', 'ELEMENT_RESULT', 'PHASE_COMPLETED']),
      'COMPLETED',
    ]);
    // The id of each message is the event's sequence (what an EventSource would send back as Last-Event-ID).
    const ids = everything.events.filter((event) => event.type === 'history').map((event) => Number(event.id));
    expect(ids).toEqual(everything.history().map((event) => event.sequence));
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);

    const definitionHistory = await api().get(`${BASE}/compositions/${compositionId}/history`).auth(USER, PASSWORD);
    expect(definitionOnly.history()).toEqual(definitionHistory.body.events);
    expect(definitionOnly.history().every((event) => event.subjectId === compositionId)).toBe(true);
  }, 120_000);

  it('refuses a subjectId that is not a list of UUIDs with 400 naming the parameter', async () => {
    const refused = await api().get(`${BASE}/events?subjectId=not-an-id`).auth(USER, PASSWORD);

    expect(refused.status).toBe(400);
    expect(refused.body.errorDetails).toContain('subjectId: must be a UUID');
  });
});
