import 'reflect-metadata';
import type { Server } from 'node:http';
import { loadRuntimeConfig } from './config/runtime.config';
import { DataDirectoryBusy, lockDataDirectory } from './database/data-dir-lock';
import { startEmbeddedPostgres } from './database/embedded-postgres';

/**
 * SIGTERM/SIGINT: in-flight requests and handlers finish, then everything closes in order. A request still
 * open after HTTP_GRACE_MS has its connection closed; should the sequence itself hang (a wedged database),
 * the process exits anyway at SHUTDOWN_DEADLINE_MS, within the usual 10 s of an orchestrator's grace.
 */
const HTTP_GRACE_MS = 3_000;
const SHUTDOWN_DEADLINE_MS = 8_000;

async function main(): Promise<void> {
  const config = loadRuntimeConfig();
  // One runtime per embedded data directory, before anything opens it: a second start stops here, having written
  // nothing (PGlite has no lock of its own, and two runtimes on one directory corrupt each other's state).
  const dataDirLock = config.databaseUrl === null ? lockDataDirectory(config.dataDir) : null;
  process.once('exit', () => dataDirLock?.release());
  // The embedded PostgreSQL starts first: PGlite reads its files and compiles its WebAssembly in the background
  // while Node loads Nest, TypeORM and the rest of the runtime below, instead of after them (each takes about a
  // second of a start on 2 cores). openDatabase awaits it and reports its failure.
  const embeddedPostgres = config.databaseUrl === null ? startEmbeddedPostgres(config.dataDir) : undefined;
  embeddedPostgres?.catch(() => undefined);
  // Before the application exists, so every span it starts has a provider; with tracing off the SDK is never loaded.
  const tracing = config.tracing === null ? null : await (await import('@acm/messaging')).startTracing(config.tracing);
  const { Logger } = await import('@nestjs/common');
  const { createRuntimeApp, CONTEXT_PATH } = await import('./bootstrap');
  const { app } = await createRuntimeApp(config, embeddedPostgres === undefined ? {} : { embeddedPostgres });
  await app.listen(config.port, config.host);
  const base = `http://localhost:${config.port}/${CONTEXT_PATH}`;
  const logger = new Logger('Runtime');
  logger.log(
    `ACM runtime listening: ${base}/v2 — Swagger UI ${base}/swagger-ui (started in ${(performance.now() / 1000).toFixed(1)} s)`,
  );

  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) {
      return;
    }
    stopping = true;
    logger.log(`${signal} received: stopping`);
    const server = app.getHttpServer() as Server;
    setTimeout(() => server.closeAllConnections(), HTTP_GRACE_MS).unref();
    setTimeout(() => {
      logger.error(`Shutdown did not finish within ${SHUTDOWN_DEADLINE_MS} ms; exiting now`);
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS).unref();
    server.closeIdleConnections();
    app
      .close()
      // Last, so the spans of the final requests and ACKs are exported.
      .then(() => tracing?.shutdown())
      .then(
        () => {
          logger.log('Stopped');
          process.exit(0);
        },
        (error: unknown) => {
          logger.error(`Shutdown failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
          process.exit(1);
        },
      );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error: unknown) => {
  // A busy data directory is the user's situation, not a bug: its message alone says what to do.
  console.error(
    error instanceof DataDirectoryBusy
      ? error.message
      : error instanceof Error
        ? (error.stack ?? error.message)
        : error,
  );
  process.exit(1);
});
