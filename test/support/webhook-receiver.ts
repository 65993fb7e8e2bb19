import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders, Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a receiver got: its headers and raw body, and what it answered. */
export interface ReceivedCall {
  readonly headers: IncomingHttpHeaders;
  readonly raw: string;
  readonly body: Record<string, unknown>;
  readonly answered: number | 'no answer';
}

/** What the receiver does with the next request: answer a status, or hold it past the sender's timeout. */
export type ReceiverBehaviour = { readonly status: number } | { readonly holdMs: number };

/**
 * A real HTTP webhook receiver on 127.0.0.1 for tests: records every call, answers as `behave` says (by default 200),
 * and checks a signature the way a subscriber should (HMAC-SHA256 of the raw body, constant-time compare).
 */
export class WebhookReceiver {
  readonly calls: ReceivedCall[] = [];
  behave: (callIndex: number) => ReceiverBehaviour = () => ({ status: 200 });
  private server: Server | null = null;
  private readonly held = new Set<() => void>();

  async start(): Promise<string> {
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const behaviour = this.behave(this.calls.length);
        const body = raw === '' ? {} : (JSON.parse(raw) as Record<string, unknown>);
        if ('holdMs' in behaviour) {
          this.calls.push({ headers: request.headers, raw, body, answered: 'no answer' });
          const timer = setTimeout(() => response.writeHead(200).end(), behaviour.holdMs);
          this.held.add(() => clearTimeout(timer));
          return;
        }
        this.calls.push({ headers: request.headers, raw, body, answered: behaviour.status });
        response.writeHead(behaviour.status).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  }

  /** The calls answered 2xx: what the subscriber accepted. */
  get accepted(): ReceivedCall[] {
    return this.calls.filter((call) => typeof call.answered === 'number' && call.answered < 300);
  }

  async stop(): Promise<void> {
    this.held.forEach((release) => release());
    const server = this.server;
    this.server = null;
    if (server !== null) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }
}

/** The check a subscriber runs: `X-Acm-Signature: sha256=<hex>` over the raw body with the shared secret. */
export function signatureValid(call: ReceivedCall, secret: string): boolean {
  const header = call.headers['x-acm-signature'];
  if (typeof header !== 'string' || !header.startsWith('sha256=')) {
    return false;
  }
  const expected = createHmac('sha256', secret).update(call.raw, 'utf8').digest();
  const given = Buffer.from(header.slice('sha256='.length), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
