/**
 * Waits for operations to finish through the runtime's own REST API, for runtimes whose database the harness
 * cannot read (the embedded default keeps PGlite inside the runtime's process). It listens to one
 * `GET /v2/events` stream instead of polling `GET .../instances/{id}` per instance: the stream is pushed from
 * memory by the runtime as each transaction commits (committed-only, no query of its own), so one idle
 * connection replaces hundreds of polls a second that would each take the runtime's single PGlite connection.
 * Timing never comes from here: durations are the runtime's own records.
 */
import { request } from 'node:http';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { API } from './stack';

/** History events that end an operation, and the state the watcher reports for each. */
const FINAL_EVENTS: Readonly<Record<string, string>> = {
  COMPLETED: 'COMPLETED',
  FAILED: 'FAILED',
  CANCELLED: 'CANCELLED',
  TIMEOUT: 'TIMEOUT',
};

interface Waiter {
  resolve: (state: string) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

export interface StreamEvent {
  subjectId: string;
  operationId: string | null;
  event: string;
  detail: Record<string, unknown>;
  at: string;
}

/** Splits a text/event-stream into events; returns the `data` of each `history` event and the unparsed rest. */
export function parseEventStream(buffer: string): { events: Array<{ type: string; data: string }>; rest: string } {
  const events: Array<{ type: string; data: string }> = [];
  let rest = buffer;
  for (let end = rest.indexOf('\n\n'); end >= 0; end = rest.indexOf('\n\n')) {
    const block = rest.slice(0, end);
    rest = rest.slice(end + 2);
    let type = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('event:')) {
        type = line.slice('event:'.length).trim();
      } else if (line.startsWith('data:')) {
        data.push(line.slice('data:'.length).trimStart());
      }
    }
    if (data.length > 0) {
      events.push({ type, data: data.join('\n') });
    }
  }
  return { events, rest };
}

export class EventStreamWatcher {
  private readonly waiting = new Map<string, Waiter>();
  /** Subjects whose operation finished before anyone asked (an order's 202 can arrive after its completion). */
  private readonly finishedEarly = new Map<string, string>();
  private req: ClientRequest | null = null;
  private response: IncomingMessage | null = null;
  private stopped = false;
  /** Every history event seen, when the caller wants them (B1's phase breakdown reads history instead). */
  onEvent: ((event: StreamEvent) => void) | null = null;

  constructor(
    private readonly baseUrl: string,
    private readonly authorization: string,
  ) {}

  /** Opens the stream and resolves once the runtime said "ready" (subscribed: nothing committed after is missed). */
  start(): Promise<void> {
    const url = new URL(`${API}/events`, this.baseUrl);
    return new Promise((resolve, reject) => {
      let ready = false;
      const req = request(
        {
          hostname: url.hostname,
          port: url.port,
          path: url.pathname,
          headers: { Authorization: this.authorization, Accept: 'text/event-stream' },
        },
        (response) => {
          if (response.statusCode !== 200) {
            reject(new Error(`GET ${url.pathname}: HTTP ${String(response.statusCode)}`));
            response.resume();
            return;
          }
          this.response = response;
          response.setEncoding('utf8');
          let buffer = '';
          response.on('data', (chunk: string) => {
            const parsed = parseEventStream(buffer + chunk);
            buffer = parsed.rest;
            for (const event of parsed.events) {
              if (event.type === 'ready' && !ready) {
                ready = true;
                resolve();
              } else if (event.type === 'history') {
                this.handle(JSON.parse(event.data) as StreamEvent);
              }
            }
          });
          response.once('close', () => this.failAll(new Error('the event stream closed')));
        },
      );
      req.once('error', (error) => {
        if (!ready) {
          reject(error);
        }
        this.failAll(error);
      });
      req.end();
      this.req = req;
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.response?.destroy();
    this.req?.destroy();
    this.failAll(new Error('watcher stopped'));
    await Promise.resolve();
  }

  /** Resolves with the final state of the subject's operation (COMPLETED, FAILED, ...); rejects after `timeoutMs`. */
  finished(subjectId: string, timeoutMs = 120_000): Promise<string> {
    const early = this.finishedEarly.get(subjectId);
    if (early !== undefined) {
      this.finishedEarly.delete(subjectId);
      return Promise.resolve(early);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(subjectId);
        reject(new Error(`the operation of ${subjectId} did not finish in ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiting.set(subjectId, { resolve, reject, timer });
    });
  }

  private handle(event: StreamEvent): void {
    this.onEvent?.(event);
    const state = FINAL_EVENTS[event.event];
    if (state === undefined) {
      return;
    }
    const waiter = this.waiting.get(event.subjectId);
    if (waiter === undefined) {
      this.finishedEarly.set(event.subjectId, state);
      return;
    }
    clearTimeout(waiter.timer);
    this.waiting.delete(event.subjectId);
    waiter.resolve(state);
  }

  private failAll(error: Error): void {
    for (const [id, waiter] of this.waiting) {
      clearTimeout(waiter.timer);
      waiter.reject(new Error(`${id}: ${this.stopped ? 'watcher stopped' : error.message}`));
    }
    this.waiting.clear();
  }
}
