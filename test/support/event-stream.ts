import type { ClientRequest, IncomingMessage } from 'node:http';
import { get } from 'node:http';
import { BASE, PASSWORD, USER } from './runtime-harness';

/** One server-sent event as an EventSource parses it. */
export interface StreamedEvent {
  readonly type: string;
  readonly id?: string;
  readonly data: Record<string, unknown>;
}

/** A `GET /v2/events` subscription read as an EventSource would, optionally resuming after a Last-Event-ID. */
export class EventStream {
  readonly events: StreamedEvent[] = [];
  private buffer = '';
  private request: ClientRequest | null = null;
  private response: IncomingMessage | null = null;

  /** Opens the stream; `query` is the search part (e.g. `?subjectId=...`), `lastEventId` resumes after that event. */
  static open(baseUrl: string, options: { lastEventId?: string; query?: string } = {}): Promise<EventStream> {
    const { lastEventId, query = '' } = options;
    const stream = new EventStream();
    const url = new URL(`${BASE}/events${query}`, baseUrl);
    return new Promise((resolve, reject) => {
      stream.request = get(
        {
          host: url.hostname,
          port: url.port,
          path: `${url.pathname}${url.search}`,
          auth: `${USER}:${PASSWORD}`,
          headers: lastEventId === undefined ? {} : { 'Last-Event-ID': lastEventId },
        },
        (response: IncomingMessage) => {
          stream.response = response;
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => stream.read(chunk));
          response.on('error', () => undefined);
          resolve(stream);
        },
      );
      stream.request.once('error', reject);
    });
  }

  /** The history events streamed (the "history" events, without "ready"). */
  get history(): StreamedEvent[] {
    return this.events.filter((event) => event.type === 'history');
  }

  get contentType(): string | undefined {
    return this.response?.headers['content-type'];
  }

  get ready(): boolean {
    return this.events.some((event) => event.type === 'ready');
  }

  close(): void {
    this.request?.destroy();
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
}
