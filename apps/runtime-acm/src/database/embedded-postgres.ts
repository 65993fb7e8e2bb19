import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { unpackSnapshot } from './snapshot-archive';

/** How a start came by its database: found under DATA_DIR, written from the build's snapshot, or made by initdb. */
export type EmbeddedOrigin = 'existing' | 'snapshot' | 'initdb';

/** A PostgreSQL running inside this process, served over a local socket to the ordinary `pg` driver. */
export interface EmbeddedPostgres {
  readonly url: string;
  readonly origin: EmbeddedOrigin;
  /**
   * Why a new database did not come from the snapshot (none, it failed a check, or PostgreSQL refused it), so that
   * initdb made it; undefined otherwise, and when no snapshot was asked for.
   */
  readonly snapshotProblem?: string;
  stop(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  /**
   * The snapshot directory (snapshot-archive.ts) a new database is written from instead of running initdb; null for
   * none. Default: the one `npm run build` writes, BUILT_SNAPSHOT_DIRECTORY.
   */
  readonly snapshot?: string | null;
}

/**
 * Where `npm run build` writes the snapshot, seen from the compiled runtime (dist/apps/runtime-acm/src/database/ →
 * dist/pglite-snapshot). From the sources (the tests' in-process runtime) it points outside dist, where there is
 * none: a snapshot of an older build could hold a migration the sources have changed since.
 */
export const BUILT_SNAPSHOT_DIRECTORY = join(__dirname, '../../../../pglite-snapshot');

/**
 * A client connection the pool dropped may still be closing on the server while its replacement
 * connects; the runtime never uses more than one at a time (see EMBEDDED_POOL_SIZE).
 */
const MAX_SOCKET_CONNECTIONS = 2;

/** What the thread below tells the runtime's thread. */
type WorkerReport =
  | { readonly kind: 'listening'; readonly address: string }
  | { readonly kind: 'failed'; readonly stage?: 'unpack'; readonly error: string }
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
  if (workerData.unpack !== null) {
    try {
      require(workerData.unpack.module).unpackSnapshot(workerData.unpack.snapshot, workerData.directory);
    } catch (error) {
      parentPort.postMessage({ kind: 'failed', stage: 'unpack', error: String(error && error.message || error) });
      return;
    }
  }
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
 *
 * A new database (an empty directory) is written from the build's snapshot, migrated already, when there is one
 * that passes its checks and PostgreSQL starts on; else PGlite's initdb makes it, seconds of WebAssembly. The marker
 * file beside the directory exists only while a new database is being made: a start that finds it knows the one
 * before stopped half-way, and makes the database again instead of resuming on half a data directory.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  options: EmbeddedPostgresOptions = {},
): Promise<EmbeddedPostgres> {
  const directory = resolve(dataDir, 'pglite');
  const marker = `${directory}.creating`;
  mkdirSync(directory, { recursive: true });
  if (!existsSync(marker) && readdirSync(directory).length > 0) {
    return { ...(await serve(directory, null)), origin: 'existing' };
  }
  writeFileSync(marker, `a new database is being made in ${directory}\n`);
  clear(directory);
  const snapshot = options.snapshot === undefined ? BUILT_SNAPSHOT_DIRECTORY : options.snapshot;
  let snapshotProblem: string | undefined;
  if (snapshot !== null) {
    try {
      // In the thread, off the runtime's, which is busy loading its modules meanwhile; run from the sources, where
      // no compiled module exists for the thread to load, here.
      const compiled = existsSync(COMPILED_ARCHIVE_MODULE);
      if (!compiled) {
        unpackSnapshot(snapshot, directory);
      }
      const served = await serve(directory, compiled ? { module: COMPILED_ARCHIVE_MODULE, snapshot } : null);
      rmSync(marker);
      return { ...served, origin: 'snapshot' };
    } catch (error) {
      snapshotProblem = error instanceof Error ? error.message : String(error);
      clear(directory);
    }
  }
  const served = await serve(directory, null);
  rmSync(marker);
  return { ...served, origin: 'initdb', ...(snapshotProblem === undefined ? {} : { snapshotProblem }) };
}

function clear(directory: string): void {
  for (const name of readdirSync(directory)) {
    rmSync(join(directory, name), { recursive: true, force: true });
  }
}

/** snapshot-archive.ts compiled, which the thread loads when the runtime runs from dist. */
const COMPILED_ARCHIVE_MODULE = join(__dirname, 'snapshot-archive.js');

/**
 * PGlite on `directory`, listening; it runs initdb there when the directory holds no database. With `unpack`, the
 * thread first writes the snapshot into the directory (unpackSnapshot of the compiled module given).
 */
async function serve(
  directory: string,
  unpack: { readonly module: string; readonly snapshot: string } | null,
): Promise<Omit<EmbeddedPostgres, 'origin'>> {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      directory,
      unpack,
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
        fail(
          new Error(
            report.stage === 'unpack' ? report.error : `the embedded PostgreSQL did not start: ${report.error}`,
          ),
        );
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
