/**
 * A real HTTP server for the participant's tests: JSON and plain answers, a failing route, a redirect, a route that
 * answers only when released (slow), a flaky one (503 until its count runs out), `/get…` and `/post…` answering 200
 * like httpbin.org (which ONAP's example definition calls), and a record of everything received, in order.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedCall {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

export class RestTestServer {
  readonly calls: ReceivedCall[] = [];
  /** How many more times `/flaky` answers 503 before it answers 200. */
  flakyFailures = 0;
  private readonly hanging: ServerResponse[] = [];
  private server: Server | undefined;

  async start(): Promise<string> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        this.calls.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
        this.answer(request, response, body);
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private answer(request: IncomingMessage, response: ServerResponse, body: string): void {
    const path = (request.url ?? '').split('?')[0] ?? '';
    const json = (status: number, value: unknown): void => {
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    };
    if (path.startsWith('/api/items')) {
      json(request.method === 'POST' ? 201 : 200, { id: 'item-7', received: body, nested: { list: ['a', 'b'] } });
    } else if (path === '/plain') {
      response.writeHead(200, { 'content-type': 'text/plain' }).end('pong');
    } else if (path === '/fail') {
      response.writeHead(500, { 'content-type': 'text/plain' }).end('boom');
    } else if (path === '/redirect') {
      response.writeHead(302, { location: '/plain' }).end();
    } else if (path === '/slow') {
      this.hanging.push(response);
    } else if (path === '/flaky') {
      if (this.flakyFailures > 0) {
        this.flakyFailures -= 1;
        response.writeHead(503).end('busy');
      } else {
        json(200, { ready: true });
      }
    } else if (path.startsWith('/get') || path.startsWith('/post')) {
      json(200, { url: request.url, data: body });
    } else {
      response.writeHead(404).end('no such route');
    }
  }

  async stop(): Promise<void> {
    for (const response of this.hanging.splice(0)) {
      response.destroy();
    }
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}
