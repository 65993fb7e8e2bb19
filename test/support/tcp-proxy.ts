import { Socket, createServer } from 'node:net';
import type { AddressInfo, Server } from 'node:net';

/** One proxied connection: the client's socket and the one to the server. */
interface Link {
  readonly client: Socket;
  readonly upstream: Socket;
}

/**
 * A TCP forwarder in front of a real server (here PostgreSQL) that a test can break in the ways a network breaks,
 * to show what a client does without stopping a shared service:
 * - `cutOff` (until `restore`): existing connections are destroyed and new ones closed as soon as they arrive, as
 *   when the server restarts;
 * - `blackhole` (until `heal`): nothing is forwarded and nothing is closed, as when packets are dropped: what either
 *   side sends meanwhile, and a close, is held and delivered in order on `heal`, as TCP retransmits it once the path
 *   is back;
 * - `delay`: every chunk, and every close, is forwarded that many milliseconds late;
 * - `reset`: every connection is reset (RST) at once, new ones are forwarded as before.
 */
export class TcpProxy {
  private readonly links = new Set<Link>();
  private server: Server | undefined;
  private cut = false;
  /** While blackholed, what was to be forwarded, in the order it arrived; null when not blackholed. */
  private held: Array<() => void> | null = null;
  private latencyMs = 0;
  /** Connections refused since the last `cutOff`. */
  refused = 0;
  /** Connections accepted since the proxy started. */
  accepted = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  /** Listens on a free local port and returns it. */
  async start(): Promise<number> {
    const server = createServer((client) => this.accept(client));
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  }

  cutOff(): void {
    this.cut = true;
    this.refused = 0;
    for (const link of this.links) {
      link.client.destroy();
      link.upstream.destroy();
    }
    this.links.clear();
  }

  restore(): void {
    this.cut = false;
  }

  /** Stops forwarding without closing anything. */
  blackhole(): void {
    this.held ??= [];
  }

  /** Delivers what the blackhole held, in order, and forwards again. */
  heal(): void {
    const held = this.held ?? [];
    this.held = null;
    for (const deliver of held) {
      deliver();
    }
  }

  /** Forwards everything `ms` late (0: at once). */
  delay(ms: number): void {
    this.latencyMs = ms;
  }

  /** Resets every open connection. */
  reset(): void {
    for (const link of this.links) {
      link.client.resetAndDestroy();
      link.upstream.resetAndDestroy();
    }
    this.links.clear();
  }

  /** Open connections. */
  get connections(): number {
    return this.links.size;
  }

  async close(): Promise<void> {
    this.held = null;
    this.cutOff();
    const server = this.server;
    if (server !== undefined) {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  private accept(client: Socket): void {
    if (this.cut) {
      this.refused += 1;
      client.destroy();
      return;
    }
    this.accepted += 1;
    const upstream = new Socket();
    const link: Link = { client, upstream };
    this.links.add(link);
    upstream.connect(this.targetPort, this.targetHost);
    this.pass(client, upstream, link);
    this.pass(upstream, client, link);
  }

  /** Forwards what `from` sends to `to`, and its end, through whatever the network does now. */
  private pass(from: Socket, to: Socket, link: Link): void {
    from.on('data', (chunk: Buffer) => this.forward(() => to.write(chunk)));
    from.on('error', () => undefined);
    from.on('close', () =>
      this.forward(() => {
        this.links.delete(link);
        to.destroy();
      }),
    );
  }

  private forward(deliver: () => void): void {
    if (this.latencyMs > 0) {
      setTimeout(() => this.deliverOrHold(deliver), this.latencyMs);
    } else {
      this.deliverOrHold(deliver);
    }
  }

  private deliverOrHold(deliver: () => void): void {
    if (this.held !== null) {
      this.held.push(deliver);
    } else {
      deliver();
    }
  }
}
