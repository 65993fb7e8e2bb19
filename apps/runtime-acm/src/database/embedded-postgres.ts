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
 * Starts PGlite on `dataDir` and serves it on an OS-assigned loopback port. PGlite handles one query
 * at a time; the socket server queues the pool's connections, which is why maxConnections matters
 * (with the default of 1 a second pool connection is dropped).
 */
export async function startEmbeddedPostgres(dataDir: string, maxConnections: number): Promise<EmbeddedPostgres> {
  const directory = resolve(dataDir, 'pglite');
  mkdirSync(directory, { recursive: true });
  const db = await PGlite.create(directory);
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections });
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
