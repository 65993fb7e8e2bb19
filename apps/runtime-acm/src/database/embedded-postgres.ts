import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { Worker } from 'node:worker_threads';

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

/** What the thread below tells the runtime's thread. */
type WorkerReport =
  | { readonly kind: 'listening'; readonly address: string }
  | { readonly kind: 'failed'; readonly error: string }
  | { readonly kind: 'stopped'; readonly error?: string };

/**
 * The thread that runs PGlite and its socket server. Plain JavaScript evaluated as the worker's entry, so it runs the
 * same from the compiled tree and from the TypeScript sources under test; the packages are resolved by the caller.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { PGlite } = require(workerData.pglite);
const { PGLiteSocketServer } = require(workerData.socket);
(async () => {
  const db = await PGlite.create(workerData.directory);
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: workerData.maxConnections });
  await server.start();
  parentPort.on('message', (message) => {
    if (message !== 'stop') return;
    server.stop().then(() => db.close()).then(
      () => parentPort.postMessage({ kind: 'stopped' }),
      (error) => parentPort.postMessage({ kind: 'stopped', error: String(error && error.stack || error) }),
    );
  });
  parentPort.postMessage({ kind: 'listening', address: server.getServerConn() });
})().catch((error) => parentPort.postMessage({ kind: 'failed', error: String(error && error.stack || error) }));
`;

/**
 * Starts PGlite on `dataDir` in a thread of its own and serves it on an OS-assigned loopback port. PGlite is a
 * single backend: its clients must not run statements concurrently (the runtime opens one connection). On its own
 * thread, PostgreSQL's work (its start-up, then every statement) runs on another core than the runtime's JavaScript
 * instead of taking turns with it on one; the runtime reaches it over the socket either way.
 */
export async function startEmbeddedPostgres(dataDir: string): Promise<EmbeddedPostgres> {
  const directory = resolve(dataDir, 'pglite');
  mkdirSync(directory, { recursive: true });
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      directory,
      maxConnections: MAX_SOCKET_CONNECTIONS,
      pglite: require.resolve('@electric-sql/pglite'),
      socket: require.resolve('@electric-sql/pglite-socket'),
    },
  });
  const exited = new Promise<number>((done) => worker.once('exit', done));
  const address = await new Promise<string>((done, fail) => {
    const onError = (error: Error): void => fail(error);
    const onExit = (code: number): void => fail(new Error(`the embedded PostgreSQL thread exited (${code})`));
    worker.on('message', (report: WorkerReport) => {
      if (report.kind === 'listening') {
        done(report.address);
      } else if (report.kind === 'failed') {
        fail(new Error(`the embedded PostgreSQL did not start: ${report.error}`));
      }
    });
    worker.once('error', onError);
    worker.once('exit', onExit);
  }).catch(async (error: unknown) => {
    await worker.terminate();
    throw error;
  });
  let stopping: Promise<void> | undefined;
  return {
    url: `postgres://postgres:postgres@${address}/postgres?sslmode=disable`,
    stop(): Promise<void> {
      stopping ??= (async () => {
        const stopped = new Promise<WorkerReport | null>((done) => {
          worker.on('message', (report: WorkerReport) => {
            if (report.kind === 'stopped') {
              done(report);
            }
          });
          void exited.then(() => done(null));
        });
        worker.postMessage('stop');
        const report = await stopped;
        await worker.terminate();
        if (report?.kind === 'stopped' && report.error !== undefined) {
          throw new Error(`the embedded PostgreSQL did not stop cleanly: ${report.error}`);
        }
      })();
      return stopping;
    },
  };
}
