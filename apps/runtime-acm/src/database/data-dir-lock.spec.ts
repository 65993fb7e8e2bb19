import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataDirectoryBusy, LOCK_FILE, lockDataDirectory, processRuns } from './data-dir-lock';

describe(lockDataDirectory.name, () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'data-dir-lock-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  const running = (pids: number[]) => (pid: number) => pids.includes(pid);

  it('writes its pid in DATA_DIR and removes the file on release', () => {
    const lock = lockDataDirectory(dataDir, 4242, running([]));
    expect(readFileSync(join(dataDir, LOCK_FILE), 'utf8')).toBe('4242\n');
    lock.release();
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
  });

  it('refuses a second runtime while the first runs, naming the directory and its pid, and writes nothing', () => {
    lockDataDirectory(dataDir, 4242, running([]));
    const before = readdirSync(dataDir).map((name) => [name, readFileSync(join(dataDir, name), 'utf8')]);
    let refusal: unknown;
    try {
      lockDataDirectory(dataDir, 5353, running([4242]));
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(DataDirectoryBusy);
    expect((refusal as Error).message).toContain(`DATA_DIR ${dataDir} is in use by the runtime with pid 4242`);
    expect(readdirSync(dataDir).map((name) => [name, readFileSync(join(dataDir, name), 'utf8')])).toEqual(before);
  });

  it('takes over a lock file whose process no longer runs, or that names no process', () => {
    writeFileSync(join(dataDir, LOCK_FILE), '4242\n');
    lockDataDirectory(dataDir, 5353, running([]));
    expect(readFileSync(join(dataDir, LOCK_FILE), 'utf8')).toBe('5353\n');
    writeFileSync(join(dataDir, LOCK_FILE), '');
    lockDataDirectory(dataDir, 6464, running([5353]));
    expect(readFileSync(join(dataDir, LOCK_FILE), 'utf8')).toBe('6464\n');
  });

  it('leaves a lock another runtime took since alone on release', () => {
    const lock = lockDataDirectory(dataDir, 4242, running([]));
    writeFileSync(join(dataDir, LOCK_FILE), '5353\n');
    lock.release();
    expect(readFileSync(join(dataDir, LOCK_FILE), 'utf8')).toBe('5353\n');
  });

  it('creates a DATA_DIR that does not exist yet', () => {
    const nested = join(dataDir, 'a', 'b');
    lockDataDirectory(nested, 4242, running([]));
    expect(existsSync(join(nested, LOCK_FILE))).toBe(true);
  });
});

describe(processRuns.name, () => {
  it('knows this process runs, and a pid past the kernel limit does not', () => {
    expect(processRuns(process.pid)).toBe(true);
    expect(processRuns(2 ** 22 + 1)).toBe(false);
  });
});
