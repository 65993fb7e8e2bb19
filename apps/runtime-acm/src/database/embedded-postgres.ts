import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';

/** A PostgreSQL running inside this process, served over a local socket to the ordinary `pg` driver. */
export interface EmbeddedPostgres {
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * A client connection the pool dropped may still be closing on the server while its replacement
 * connects; the runtime never uses more than one at a time (see EMBEDDED_POOL_SIZE).
 */
const MAX_SOCKET_CONNECTIONS = 2;

/**
 * Starts PGlite on `dataDir` and serves it on an OS-assigned loopback port. PGlite is a single backend:
 * its clients must not run statements concurrently (the runtime opens one connection).
 */
export async function startEmbeddedPostgres(dataDir: string): Promise<EmbeddedPostgres> {
  const directory = resolve(dataDir, 'pglite');
  mkdirSync(directory, { recursive: true });
  const db = await PGlite.create(directory);
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: MAX_SOCKET_CONNECTIONS });
  await server.start();
  const address = server.getServerConn();
  return {
    url: `postgres://postgres:postgres@${address}/postgres?sslmode=disable`,
    async stop(): Promise<void> {
      await server.stop();
      await db.close();
    },
  };
}
