import type { ClientRequest, IncomingMessage, Server } from 'node:http';
import { get } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RuntimeHarness } from './support/runtime-harness';
import { BASE, PASSWORD, USER, startRuntime } from './support/runtime-harness';
import { eventually } from './support/scripted-participant';

interface Opened {
  readonly status: number;
  readonly retryAfter: string | undefined;
  /** The first chunk of a stream (its "ready" event), or the whole refusal body. */
  readonly text: string;
  readonly request: ClientRequest;
}

/**
 * GET /v2/events from a given local address (127.0.0.x are all this machine, so each is another client), answered
 * once the stream sent its first event or the refusal its whole body.
 */
function openStream(port: number, localAddress: string): Promise<Opened> {
  return new Promise((resolve, reject) => {
    const request = get(
      { host: '127.0.0.1', port, localAddress, path: `${BASE}/events`, auth: `${USER}:${PASSWORD}`, agent: false },
      (response: IncomingMessage) => {
        let text = '';
        const answer = (): void =>
          resolve({
            status: response.statusCode ?? 0,
            retryAfter: response.headers['retry-after'],
            text,
            request,
          });
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
          if (response.statusCode === 200) {
            answer();
          }
        });
        response.on('end', answer);
      },
    );
    request.on('error', reject);
  });
}

describe('caps on open event streams (MAX_EVENT_STREAMS, MAX_EVENT_STREAMS_PER_CLIENT)', () => {
  let runtime: RuntimeHarness;
  let port: number;
  const open: ClientRequest[] = [];

  beforeAll(async () => {
    runtime = await startRuntime({ MAX_EVENT_STREAMS: '3', MAX_EVENT_STREAMS_PER_CLIENT: '2' });
    const server = runtime.app.getHttpServer() as Server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    open.forEach((request) => request.destroy());
    await runtime.close();
  });

  async function opened(localAddress: string): Promise<Opened> {
    const stream = await openStream(port, localAddress);
    open.push(stream.request);
    return stream;
  }

  it('refuses a client beyond its cap and the runtime beyond its own with 429 and Retry-After, until one closes', async () => {
    const first = await opened('127.0.0.1');
    const second = await opened('127.0.0.1');
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(first.text).toContain('event: ready');

    const third = await opened('127.0.0.1');
    expect([third.status, third.retryAfter, JSON.parse(third.text)]).toEqual([
      429,
      '30',
      { errorDetails: 'Too many event streams: this client has 2 open (MAX_EVENT_STREAMS_PER_CLIENT)' },
    ]);

    const other = await opened('127.0.0.2');
    expect(other.status).toBe(200);
    const beyond = await opened('127.0.0.3');
    expect([beyond.status, JSON.parse(beyond.text)]).toEqual([
      429,
      { errorDetails: 'Too many event streams: this runtime has 3 open (MAX_EVENT_STREAMS)' },
    ]);

    // A closed stream gives its slot back: the same client gets one again.
    first.request.destroy();
    const again = await eventually('a slot to be free again', async () => {
      const attempt = await opened('127.0.0.3');
      return attempt.status === 200 ? attempt : undefined;
    });
    expect(again.text).toContain('event: ready');
  });

  it('refuses a Last-Event-ID that is no event id with 400 naming the header', async () => {
    const response = await runtime.http.get(`${BASE}/events`).set('Last-Event-ID', 'yesterday').expect(400);
    expect(response.body).toEqual({
      errorDetails: 'Last-Event-ID: must be the id of an event this stream sent (a whole number)',
    });
  });
});
