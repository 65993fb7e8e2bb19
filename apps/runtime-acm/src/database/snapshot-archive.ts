import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, normalize, sep } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';

/**
 * The snapshot of a new embedded database (see embedded-snapshot.ts for how the build makes it): the files of a
 * PGlite data directory after a clean shutdown, which PostgreSQL resumes from like any cold copy of its directory.
 * One gzip archive and a manifest. The manifest is written last, by rename, so an interrupted write leaves a
 * snapshot without one, which a start does not use.
 */

export const SNAPSHOT_MANIFEST = 'manifest.json';
export const SNAPSHOT_ARCHIVE = 'pgdata.gz';
export const SNAPSHOT_FORMAT = 1;

/** What a snapshot says of itself; a start checks every field before it writes a byte of the archive. */
export interface SnapshotManifest {
  readonly format: number;
  /** The PGlite version that made it: only the same PostgreSQL build reads its data files. */
  readonly pglite: string;
  readonly archive: string;
  readonly bytes: number;
  readonly sha256: string;
  /** The migrations applied in it, oldest first (informative: TypeORM's own table decides what still runs). */
  readonly migrations: readonly string[];
}

/** The archive: MAGIC, the index's length (4 bytes, big-endian), the index (JSON), then each file's bytes in order. */
const MAGIC = Buffer.from('acm-pgdata 1\n');

interface ArchiveEntry {
  /** Relative to the data directory, with `/` separators. */
  readonly path: string;
  readonly mode: number;
  /** Absent for a directory. */
  readonly size?: number;
}

/** The installed PGlite's version (its package.json is not among the package's exports). */
export function pgliteVersion(): string {
  const entry = require.resolve('@electric-sql/pglite');
  const manifest = JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8')) as { version: string };
  return manifest.version;
}

/** Archives the data directory `root` (no server may run on it). */
export function packDirectory(root: string): Buffer {
  const entries: ArchiveEntry[] = [];
  const contents: Buffer[] = [];
  const walk = (relative: string): void => {
    for (const name of readdirSync(join(root, relative)).sort()) {
      const path = relative === '' ? name : `${relative}/${name}`;
      const stat = lstatSync(join(root, path));
      if (stat.isDirectory()) {
        entries.push({ path, mode: stat.mode & 0o777 });
        walk(path);
      } else if (stat.isFile()) {
        const data = readFileSync(join(root, path));
        entries.push({ path, mode: stat.mode & 0o777, size: data.length });
        contents.push(data);
      } else {
        throw new Error(`${join(root, path)}: neither a file nor a directory, which a snapshot cannot hold`);
      }
    }
  };
  walk('');
  const index = Buffer.from(JSON.stringify(entries));
  const length = Buffer.alloc(4);
  length.writeUInt32BE(index.length);
  return gzipSync(Buffer.concat([MAGIC, length, index, ...contents]));
}

/** Writes a snapshot of `archive` (packDirectory's) to `directory`. */
export function writeSnapshot(directory: string, archive: Buffer, migrations: readonly string[]): SnapshotManifest {
  const manifest: SnapshotManifest = {
    format: SNAPSHOT_FORMAT,
    pglite: pgliteVersion(),
    archive: SNAPSHOT_ARCHIVE,
    bytes: archive.length,
    sha256: createHash('sha256').update(archive).digest('hex'),
    migrations,
  };
  mkdirSync(directory, { recursive: true });
  rmSync(join(directory, SNAPSHOT_MANIFEST), { force: true });
  writeFileSync(join(directory, SNAPSHOT_ARCHIVE), archive);
  const pending = join(directory, `${SNAPSHOT_MANIFEST}.partial`);
  writeFileSync(pending, `${JSON.stringify(manifest, null, 2)}\n`);
  renameSync(pending, join(directory, SNAPSHOT_MANIFEST));
  return manifest;
}

/**
 * Writes the data directory of the snapshot in `snapshot` into the empty directory `target`, after checking it
 * (format, PGlite version, size, SHA-256; gunzip checks its CRC; every path stays inside `target`). Throws an Error
 * that says what is wrong; it may have written part of `target` by then. Synchronous: it runs on the embedded
 * database's thread (embedded-postgres.ts), which has nothing else to do until it is done.
 */
export function unpackSnapshot(snapshot: string, target: string): void {
  let manifest: SnapshotManifest;
  try {
    manifest = JSON.parse(readFileSync(join(snapshot, SNAPSHOT_MANIFEST), 'utf8')) as SnapshotManifest;
  } catch (error) {
    throw new Error(`no readable manifest in ${snapshot} (${describe(error)})`);
  }
  if (manifest.format !== SNAPSHOT_FORMAT) {
    throw new Error(`format ${String(manifest.format)}, not ${SNAPSHOT_FORMAT}`);
  }
  const version = pgliteVersion();
  if (manifest.pglite !== version) {
    throw new Error(`made by PGlite ${String(manifest.pglite)}, this is PGlite ${version}`);
  }
  const compressed = readFileSync(join(snapshot, SNAPSHOT_ARCHIVE));
  if (
    compressed.length !== manifest.bytes ||
    createHash('sha256').update(compressed).digest('hex') !== manifest.sha256
  ) {
    throw new Error(`${SNAPSHOT_ARCHIVE} is not the archive its manifest describes (size or SHA-256 differ)`);
  }
  const archive = gunzipSync(compressed);
  if (!archive.subarray(0, MAGIC.length).equals(MAGIC) || archive.length < MAGIC.length + 4) {
    throw new Error(`${SNAPSHOT_ARCHIVE} is not an archive of a data directory`);
  }
  const indexEnd = MAGIC.length + 4 + archive.readUInt32BE(MAGIC.length);
  const entries = parseIndex(archive.subarray(MAGIC.length + 4, indexEnd));
  const total = entries.reduce((sum, entry) => sum + (entry.size ?? 0), 0);
  if (indexEnd + total !== archive.length) {
    throw new Error(`${SNAPSHOT_ARCHIVE} holds ${archive.length - indexEnd} bytes of files, its index ${total}`);
  }
  let offset = indexEnd;
  for (const entry of entries) {
    const path = join(target, entry.path);
    if (entry.size === undefined) {
      mkdirSync(path, { mode: entry.mode });
    } else {
      writeFileSync(path, archive.subarray(offset, offset + entry.size), { mode: entry.mode });
      offset += entry.size;
    }
  }
}

function parseIndex(index: Buffer): ArchiveEntry[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(index.toString('utf8'));
  } catch (error) {
    throw new Error(`the index of ${SNAPSHOT_ARCHIVE} is not JSON (${describe(error)})`);
  }
  if (!Array.isArray(parsed) || !parsed.every(isEntry)) {
    throw new Error(
      `the index of ${SNAPSHOT_ARCHIVE} is not a list of files and directories inside the data directory`,
    );
  }
  return parsed;
}

function isEntry(value: unknown): value is ArchiveEntry {
  if (typeof value !== 'object' || value === null) {
    return false;
  }
  const { path, mode, size } = value as Record<string, unknown>;
  return (
    typeof path === 'string' &&
    path !== '' &&
    !isAbsolute(path) &&
    !normalize(path).split(sep).includes('..') &&
    typeof mode === 'number' &&
    (size === undefined || (Number.isSafeInteger(size) && (size as number) >= 0))
  );
}

/** An error's message; Node's own errors may come from another realm (a test runner's), so no instanceof. */
function describe(error: unknown): string {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : String(error);
}
