import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { loadRuntimeConfig } from '../config/runtime.config';
import type { Database } from './database';
import { openDatabase } from './database';
import type { EmbeddedPostgres } from './embedded-postgres';
import { startEmbeddedPostgres } from './embedded-postgres';
import { appliedMigrations, writeEmbeddedSnapshot } from './embedded-snapshot';
import type { SnapshotManifest } from './snapshot-archive';
import { SNAPSHOT_ARCHIVE, SNAPSHOT_MANIFEST, packDirectory, unpackSnapshot, writeSnapshot } from './snapshot-archive';

// Every fallback is a PGlite initdb, tens of seconds on a loaded 2-core machine.
jest.setTimeout(240_000);

/** Everything of the schema a migration can make, in a stable order: two databases are alike when these are equal. */
async function describeSchema(database: Database): Promise<unknown> {
  const query = (sql: string): Promise<unknown[]> => database.dataSource.query<unknown[]>(sql);
  return {
    columns: await query(
      `SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns
       WHERE table_schema = 'public' ORDER BY table_name, column_name`,
    ),
    indexes: await query(
      `SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY 2`,
    ),
    constraints: await query(
      `SELECT conrelid::regclass::text AS relation, conname, pg_get_constraintdef(oid) AS definition FROM pg_constraint
       WHERE connamespace = 'public'::regnamespace ORDER BY 1, 2`,
    ),
    // Their ids come from a sequence, which an undone migration advances: order and names are what counts.
    migrations: await query('SELECT timestamp, name FROM acm_migrations ORDER BY id'),
  };
}

describe('a new embedded database from the snapshot of the build', () => {
  let work: string;
  let snapshot: string;
  let manifest: SnapshotManifest;
  const opened: Database[] = [];

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'acm-snapshot-'));
    snapshot = join(work, 'snapshot');
    manifest = await writeEmbeddedSnapshot(snapshot);
  });

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((database) => database.close()));
  });

  afterAll(() => {
    rmSync(work, { recursive: true, force: true });
  });

  function dataDir(name: string): string {
    const directory = join(work, name);
    mkdirSync(directory);
    return directory;
  }

  /** Starts the embedded database on `directory` as main does, and opens (migrates) it. */
  async function open(
    directory: string,
    from: string | null,
  ): Promise<{ database: Database; embedded: EmbeddedPostgres }> {
    const starting = startEmbeddedPostgres(directory, { snapshot: from });
    const database = await openDatabase(loadRuntimeConfig({ DATA_DIR: directory }), undefined, starting);
    opened.push(database);
    return { database, embedded: await starting };
  }

  async function close(database: Database): Promise<void> {
    opened.splice(opened.indexOf(database), 1);
    await database.close();
  }

  /** A copy of the snapshot with `archive` in place of its own, and a manifest that describes it truthfully. */
  function snapshotOf(name: string, archive: Buffer, changes: Partial<SnapshotManifest> = {}): string {
    const directory = join(work, name);
    const written = writeSnapshot(directory, archive, manifest.migrations);
    writeFileSync(join(directory, SNAPSHOT_MANIFEST), JSON.stringify({ ...written, ...changes }));
    return directory;
  }

  it('holds every migration, and a start from it ends with the schema and migrations table initdb gives', async () => {
    expect(manifest.migrations.length).toBeGreaterThan(0);
    const fromSnapshot = await open(dataDir('from-snapshot'), snapshot);
    expect(fromSnapshot.embedded.origin).toBe('snapshot');
    expect(fromSnapshot.embedded.snapshotProblem).toBeUndefined();
    expect(await appliedMigrations(fromSnapshot.database)).toEqual(manifest.migrations);

    // A corrupted snapshot is refused before anything is written: the start falls back to initdb and says why.
    const flipped = join(work, 'flipped');
    cpSync(snapshot, flipped, { recursive: true });
    const archive = readFileSync(join(flipped, SNAPSHOT_ARCHIVE));
    archive.writeUInt8(archive.readUInt8(archive.length >> 1) ^ 0xff, archive.length >> 1);
    writeFileSync(join(flipped, SNAPSHOT_ARCHIVE), archive);
    const fromInitdb = await open(dataDir('from-initdb'), flipped);
    expect(fromInitdb.embedded.origin).toBe('initdb');
    expect(fromInitdb.embedded.snapshotProblem).toMatch(/SHA-256/);

    expect(await describeSchema(fromSnapshot.database)).toEqual(await describeSchema(fromInitdb.database));
  });

  it('keeps what was committed across a restart, which resumes the database instead of writing the snapshot again', async () => {
    const directory = dataDir('restarted');
    const first = await open(directory, snapshot);
    await first.database.dataSource.query('CREATE TABLE kept (id int PRIMARY KEY, note text)');
    await first.database.dataSource.query("INSERT INTO kept VALUES (1, 'committed')");
    await close(first.database);
    expect(existsSync(join(directory, 'pglite.creating'))).toBe(false);

    const second = await open(directory, snapshot);
    expect(second.embedded.origin).toBe('existing');
    expect(await second.database.dataSource.query('SELECT note FROM kept')).toEqual([{ note: 'committed' }]);
  });

  it('runs at the first start the migrations an older snapshot lacks', async () => {
    // An older build's snapshot: the same database with its newest migration undone.
    const older = dataDir('older');
    const made = await open(older, snapshot);
    await made.database.dataSource.undoLastMigration({ transaction: 'all' });
    const olderMigrations = await appliedMigrations(made.database);
    await made.database.dataSource.query('CHECKPOINT');
    await close(made.database);
    expect(olderMigrations).toEqual(manifest.migrations.slice(0, -1));
    const olderSnapshot = join(work, 'older-snapshot');
    writeSnapshot(olderSnapshot, packDirectory(join(older, 'pglite')), olderMigrations);

    const fromOlder = await open(dataDir('from-older'), olderSnapshot);
    expect(fromOlder.embedded.origin).toBe('snapshot');
    expect(await appliedMigrations(fromOlder.database)).toEqual(manifest.migrations);
    const current = await open(dataDir('from-current'), snapshot);
    expect(await describeSchema(fromOlder.database)).toEqual(await describeSchema(current.database));
  });

  it('falls back to initdb when the snapshot passes its checks but PostgreSQL does not start on it', async () => {
    const unpacked = dataDir('unpacked');
    unpackSnapshot(snapshot, unpacked);
    writeFileSync(join(unpacked, 'PG_VERSION'), '99\n');
    const refused = snapshotOf('refused', packDirectory(unpacked));

    const { database, embedded } = await open(dataDir('refused-start'), refused);
    expect(embedded.origin).toBe('initdb');
    expect(embedded.snapshotProblem).toMatch(/did not start/);
    expect(await appliedMigrations(database)).toEqual(manifest.migrations);
  });

  it('makes the database again when the start that was making it stopped half-way', async () => {
    // What a start killed while writing leaves: some files, and the marker that says the database is unfinished.
    const directory = dataDir('interrupted');
    mkdirSync(join(directory, 'pglite', 'base'), { recursive: true });
    writeFileSync(join(directory, 'pglite', 'PG_VERSION'), '17\n');
    writeFileSync(join(directory, 'pglite.creating'), '');

    const { database, embedded } = await open(directory, snapshot);
    expect(embedded.origin).toBe('snapshot');
    expect(await appliedMigrations(database)).toEqual(manifest.migrations);
    expect(existsSync(join(directory, 'pglite.creating'))).toBe(false);
  });

  it('refuses, before writing anything, a snapshot that is missing, of another PGlite, or not a data directory', () => {
    const target = dataDir('untouched');
    const sealed = (archive: Buffer): Buffer => gzipSync(archive);
    const index = (entries: unknown): Buffer => {
      const json = Buffer.from(JSON.stringify(entries));
      const length = Buffer.alloc(4);
      length.writeUInt32BE(json.length);
      return Buffer.concat([Buffer.from('acm-pgdata 1\n'), length, json]);
    };
    const refusal = (snapshotDirectory: string): unknown => {
      try {
        unpackSnapshot(snapshotDirectory, target);
      } catch (error) {
        return (error as Error).message;
      }
      return 'accepted';
    };
    const archive = readFileSync(join(snapshot, SNAPSHOT_ARCHIVE));
    expect(refusal(join(work, 'nowhere'))).toMatch(/no readable manifest/);
    expect(refusal(snapshotOf('other-pglite', archive, { pglite: '0.0.1' }))).toMatch(/made by PGlite 0\.0\.1/);
    expect(refusal(snapshotOf('other-format', archive, { format: 2 }))).toMatch(/format 2/);
    expect(refusal(snapshotOf('not-gzip', Buffer.from('plain bytes')))).toMatch(/header/);
    expect(refusal(snapshotOf('not-archive', sealed(Buffer.from('{}'))))).toMatch(/not an archive/);
    expect(refusal(snapshotOf('escapes', sealed(index([{ path: '../outside', mode: 0o600, size: 0 }]))))).toMatch(
      /inside the data directory/,
    );
    expect(refusal(snapshotOf('short', sealed(index([{ path: 'PG_VERSION', mode: 0o600, size: 3 }]))))).toMatch(
      /0 bytes of files, its index 3/,
    );
    expect(existsSync(join(work, 'outside'))).toBe(false);
    expect(readdirSync(target)).toEqual([]);
  });
});
