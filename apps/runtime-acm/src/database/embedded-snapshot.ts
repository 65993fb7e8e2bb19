import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadRuntimeConfig } from '../config/runtime.config';
import type { Database } from './database';
import { openDatabase } from './database';
import { startEmbeddedPostgres } from './embedded-postgres';
import type { SnapshotManifest } from './snapshot-archive';
import { packDirectory, writeSnapshot } from './snapshot-archive';

/**
 * The snapshot of the embedded database as a new DATA_DIR gets it, taken by `npm run build`: PGlite's initdb (seconds
 * of CPU in WebAssembly) and every migration, done once at build time instead of at a user's first start. TypeORM
 * runs at each start the migrations its table lacks, so a start from an older snapshot still ends in today's schema.
 */

/** The names of the migrations applied in a database, oldest first. */
export async function appliedMigrations(database: Database): Promise<string[]> {
  const rows = await database.dataSource.query<Array<{ name: string }>>('SELECT name FROM acm_migrations ORDER BY id');
  return rows.map((row) => row.name);
}

/** Makes a new embedded database as a first start without a snapshot does, migrates it, and writes its snapshot. */
export async function writeEmbeddedSnapshot(directory: string): Promise<SnapshotManifest> {
  const work = mkdtempSync(join(tmpdir(), 'acm-pglite-snapshot-'));
  try {
    const config = loadRuntimeConfig({ DATA_DIR: work });
    const database = await openDatabase(config, undefined, startEmbeddedPostgres(work, { snapshot: null }));
    let migrations: string[];
    try {
      migrations = await appliedMigrations(database);
      // Everything in the data files, so a start from the snapshot has no WAL to replay.
      await database.dataSource.query('CHECKPOINT');
    } finally {
      await database.close();
    }
    return writeSnapshot(directory, packDirectory(join(work, 'pglite')), migrations);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
