import { createDataSource, migrate } from '@acm/persistence';
import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { RuntimeConfig } from '../config/runtime.config';
import type { EmbeddedOrigin, EmbeddedPostgres } from './embedded-postgres';
import { startEmbeddedPostgres } from './embedded-postgres';

/** DI token for the runtime's Database. */
export const DATABASE = Symbol('DATABASE');

/** The connected, migrated database, and how to close it (including an embedded server). */
export interface Database {
  readonly dataSource: DataSource;
  readonly embedded: boolean;
  close(): Promise<void>;
}

/**
 * Connections the runtime opens to the embedded PostgreSQL. PGlite is one backend: the socket server
 * interleaves the extended-protocol messages (Parse/Bind/Execute) of concurrent client connections, so
 * two connections answer each other's statements. One connection serialises every query and
 * transaction, which is correct for any number of concurrent requests.
 */
export const EMBEDDED_POOL_SIZE = 1;

/**
 * How long a query waits for the embedded database's one connection. The pool's wait for a free connection and
 * its wait for a new one share one bound; with one connection the first is a queue behind every other statement,
 * which 200 concurrent deploys on a busy machine make longer than the 5 s that detect an unreachable server. The
 * server here runs in this process, so a long wait is load, not an outage.
 */
export const EMBEDDED_CONNECT_TIMEOUT_MS = 60_000;

/** How the start-up line tells where a database came from. */
const ORIGINS: Readonly<Record<EmbeddedOrigin, string>> = {
  existing: '',
  snapshot: " (new, from the build's snapshot)",
  initdb: ' (new, made by initdb)',
};

/**
 * Connects to DATABASE_URL, or uses the embedded PostgreSQL under DATA_DIR (`starting`, when the caller started it
 * already, else one started here); then runs pending migrations.
 */
export async function openDatabase(
  config: RuntimeConfig,
  schema?: string,
  starting?: Promise<EmbeddedPostgres>,
): Promise<Database> {
  const logger = new Logger('Database');
  let embedded: EmbeddedPostgres | null = null;
  let url = config.databaseUrl;
  if (url === null) {
    embedded = await (starting ?? startEmbeddedPostgres(config.dataDir));
    url = embedded.url;
    logger.log(
      `Embedded PostgreSQL (PGlite) in ${config.dataDir}${ORIGINS[embedded.origin]}; set DATABASE_URL to use a PostgreSQL server`,
    );
    if (embedded.snapshotProblem !== undefined) {
      logger.warn(
        `The build's snapshot of a new database was not used (${embedded.snapshotProblem}); PGlite's initdb made it`,
      );
    }
  }
  const poolSize = embedded === null ? config.databasePoolSize : EMBEDDED_POOL_SIZE;
  // The embedded database runs in this process: a long wait on it is load, not a silent server, and PGlite (one
  // backend, no timer signals) has no statement timeout to apply.
  const statementTimeoutMs = embedded === null ? config.databaseStatementTimeoutMs : 0;
  const dataSource = createDataSource({
    url,
    poolSize,
    schema,
    statementTimeoutMs,
    ...(embedded === null
      ? {}
      : { connectTimeoutMs: EMBEDDED_CONNECT_TIMEOUT_MS, sharedSession: true, genericPlans: true }),
  });
  try {
    if (statementTimeoutMs > 0) {
      await migrateWithoutDeadline(url, schema);
      await dataSource.initialize();
    } else {
      await dataSource.initialize();
      await createSchemaAndMigrate(dataSource, schema);
    }
  } catch (error) {
    if (dataSource.isInitialized) {
      await dataSource.destroy();
    }
    await embedded?.stop();
    throw error;
  }
  return {
    dataSource,
    embedded: embedded !== null,
    async close(): Promise<void> {
      await dataSource.destroy();
      await embedded?.stop();
    },
  };
}

async function createSchemaAndMigrate(dataSource: DataSource, schema: string | undefined): Promise<void> {
  if (schema !== undefined) {
    await dataSource.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  }
  await migrate(dataSource);
}

/**
 * Migrates through a connection of its own without the statement deadline: a migration on a large table, or the
 * wait for another replica's migration lock, may take minutes, and is bounded by the start-up's own probes instead.
 */
async function migrateWithoutDeadline(url: string, schema: string | undefined): Promise<void> {
  const migrator = createDataSource({ url, poolSize: 1, schema });
  await migrator.initialize();
  try {
    await createSchemaAndMigrate(migrator, schema);
  } finally {
    await migrator.destroy();
  }
}
