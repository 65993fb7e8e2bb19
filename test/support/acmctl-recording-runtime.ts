import { mkdtempSync, rmSync } from 'node:fs';
import type { IncomingMessage, Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildProgram } from '../../apps/acmctl/src/program';

/** One request the fake runtime received. */
export interface ReceivedRequest {
  method: string;
  url: string;
  body: string;
}

/**
 * A runtime stand-in for acmctl's command specs: records every request and answers each with `answer` as JSON; `run`
 * drives acmctl against it with a home folder of its own.
 */
export class RecordingRuntime {
  readonly received: ReceivedRequest[] = [];
  answer: unknown = {};
  dir = '';
  private server: Server | null = null;
  private url = '';

  constructor(private readonly folderPrefix: string) {}

  async start(): Promise<void> {
    this.server = createServer((request: IncomingMessage, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        this.received.push({
          method: request.method ?? '',
          url: request.url ?? '',
          body: Buffer.concat(chunks).toString('utf8'),
        });
        response.setHeader('Content-Type', 'application/json');
        response.end(JSON.stringify(this.answer));
      });
    });
    const server = this.server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    this.dir = mkdtempSync(join(tmpdir(), this.folderPrefix));
  }

  async stop(): Promise<void> {
    rmSync(this.dir, { recursive: true, force: true });
    const server = this.server;
    await new Promise<void>((resolve) => (server === null ? resolve() : server.close(() => resolve())));
  }

  /** Forgets what was received so far. */
  reset(): void {
    this.received.length = 0;
  }

  /** acmctl with these arguments: what it printed, and what it threw (null: nothing). */
  async run(args: string[]): Promise<{ printed: string; error: unknown }> {
    const printed: string[] = [];
    const program = buildProgram({
      env: { ACM_URL: this.url, HOME: this.dir },
      isTerminal: false,
      out: (text) => printed.push(text),
    });
    try {
      await program.parseAsync(['node', 'acmctl', ...args]);
      return { printed: printed.join('\n'), error: null };
    } catch (error) {
      return { printed: printed.join('\n'), error };
    }
  }
}
