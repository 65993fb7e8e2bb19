import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The file, in DATA_DIR, that names the process holding the directory. */
export const LOCK_FILE = 'runtime.pid';

/** A second runtime found the data directory held by a live process: it must not open the database. */
export class DataDirectoryBusy extends Error {
  override readonly name = 'DataDirectoryBusy';

  constructor(
    readonly directory: string,
    readonly holder: number,
  ) {
    super(
      `DATA_DIR ${directory} is in use by the runtime with pid ${holder} (${join(directory, LOCK_FILE)}): ` +
        'one runtime per embedded data directory. Stop that runtime, or set DATA_DIR to another directory ' +
        '(or DATABASE_URL to a PostgreSQL server, which several runtimes may share). ' +
        `If no process ${holder} runs, delete the file and start again.`,
    );
  }
}

export interface DataDirectoryLock {
  readonly file: string;
  /** Gives the directory up; does nothing when the file no longer names this process. */
  release(): void;
}

/** Whether a process runs with this pid: signal 0 checks without sending anything (EPERM: it runs as another user). */
export function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes DATA_DIR for this process, as PostgreSQL's postmaster.pid does: the lock file is created only if absent
 * (atomically), and a file naming a process that no longer runs (a runtime killed without its stop) is stale and
 * replaced. A live holder is refused before anything is written.
 */
export function lockDataDirectory(
  dataDir: string,
  pid: number = process.pid,
  runs: (pid: number) => boolean = processRuns,
): DataDirectoryLock {
  const directory = resolve(dataDir);
  const file = join(directory, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const holder = readHolder(file);
    if (holder !== null && holder !== 0 && holder !== pid && runs(holder)) {
      throw new DataDirectoryBusy(directory, holder);
    }
    if (holder !== null) {
      // Stale, unreadable (a start that died while writing it) or this very process's: replaced below.
      rmSync(file, { force: true });
    }
    mkdirSync(directory, { recursive: true });
    try {
      writeFileSync(file, `${pid}\n`, { flag: 'wx' });
      return {
        file,
        release: () => {
          if (readHolder(file) === pid) {
            rmSync(file, { force: true });
          }
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw error;
      }
      // Another start created it between the read and the write: read who, once more.
    }
  }
  throw new DataDirectoryBusy(directory, readHolder(file) ?? 0);
}

/** The pid the lock file names: null when there is no file, 0 when it names no process. */
function readHolder(file: string): number | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  const pid = Number.parseInt(text.trim(), 10);
  return Number.isInteger(pid) && pid > 0 ? pid : 0;
}
