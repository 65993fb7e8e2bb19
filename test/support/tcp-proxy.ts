import { Socket, createServer } from 'node:net';
import type { AddressInfo, Server } from 'node:net';

/**
 * A TCP forwarder in front of a real server (here PostgreSQL) that a test can cut and restore, to
 * show what a client does during an outage without stopping a shared service. While cut, existing
 * connections are destroyed and new ones are closed as soon as they arrive (a client sees its
 * connection terminated, as when the server restarts).
 */
export class TcpProxy {
  private readonly sockets = new Set<Socket>();
  private server: Server | undefined;
  private cut = false;
  /** Connections refused since the last `cutOff`. */
  refused = 0;

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
    for (const socket of this.sockets) {
      socket.destroy();
    }
    this.sockets.clear();
  }

  restore(): void {
    this.cut = false;
  }

  async close(): Promise<void> {
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
    const upstream = new Socket();
    this.track(client, upstream);
    upstream.connect(this.targetPort, this.targetHost);
    client.pipe(upstream);
    upstream.pipe(client);
  }

  private track(...pair: Socket[]): void {
    for (const socket of pair) {
      this.sockets.add(socket);
      socket.on('error', () => pair.forEach((each) => each.destroy()));
      socket.on('close', () => {
        this.sockets.delete(socket);
        pair.forEach((each) => each.destroy());
      });
    }
  }
}
