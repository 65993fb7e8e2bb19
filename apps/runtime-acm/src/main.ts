import 'reflect-metadata';
import type { Server } from 'node:http';
import { loadRuntimeConfig } from './config/runtime.config';
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
  // The embedded PostgreSQL starts first: PGlite reads its files and compiles its WebAssembly in the background
  // while Node loads Nest, TypeORM and the rest of the runtime below, instead of after them (each takes about a
  // second of a start on 2 cores). openDatabase awaits it and reports its failure.
  const embeddedPostgres = config.databaseUrl === null ? startEmbeddedPostgres(config.dataDir) : undefined;
  embeddedPostgres?.catch(() => undefined);
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
    app.close().then(
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
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
