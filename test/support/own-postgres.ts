import { execFileSync } from 'node:child_process';
import { appendFileSync, chmodSync, chownSync, mkdtempSync, rmSync } from 'node:fs';
import { mountTmpfs, unmountTmpfs } from './tmpfs';
import { join } from 'node:path';

const PG_BIN = '/usr/lib/postgresql/15/bin';

/**
 * A PostgreSQL cluster of one scenario's own (initdb into a temporary directory, its own port), for scenarios that
 * stop the database: the shared test server is never touched. As root, the server runs as the `postgres` user, like
 * scripts/services-up.sh does it.
 */
export class OwnPostgres {
  private readonly dir: string;
  private readonly data: string;
  private readonly asRoot = process.getuid?.() === 0;

  /**
   * With `tmpfsBytes`, the cluster's directory is a tmpfs of that size (root only), so a scenario can fill the
   * server's disk; `directory` is where to put a filler file.
   */
  constructor(
    readonly port: number,
    private readonly options: { readonly tmpfsBytes?: number } = {},
  ) {
    this.dir = mkdtempSync('/tmp/acm-fault-pg-');
    this.data = join(this.dir, 'data');
  }

  get directory(): string {
    return this.dir;
  }

  get url(): string {
    return `postgres://acm@127.0.0.1:${this.port}/postgres`;
  }

  init(): void {
    if (this.options.tmpfsBytes !== undefined) {
      mountTmpfs(this.dir, this.options.tmpfsBytes);
    }
    chmodSync(this.dir, 0o700);
    if (this.asRoot) {
      const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
      const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
      chownSync(this.dir, uid, gid);
    }
    this.run('initdb', ['-D', this.data, '-U', 'acm', '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8']);
    appendFileSync(
      join(this.data, 'postgresql.conf'),
      [
        '',
        "listen_addresses = '127.0.0.1'",
        "unix_socket_directories = ''",
        // The scenarios stop the server with "immediate" (no OS crash), so fsync can stay off: what a commit wrote
        // is in the OS page cache. A commit must still have written its WAL before it returns, or an immediate
        // stop loses transactions the runtime was told had committed.
        'fsync = off',
        'synchronous_commit = on',
        'full_page_writes = off',
        'logging_collector = off',
        '',
      ].join('\n'),
    );
  }

  start(): void {
    this.run('pg_ctl', [
      '-D',
      this.data,
      '-l',
      join(this.dir, 'postgres.log'),
      '-o',
      `-p ${this.port}`,
      '-w',
      '-t',
      '60',
      'start',
    ]);
  }

  /** `immediate` is a crash: no checkpoint, every client connection cut at once. */
  stop(mode: 'immediate' | 'fast' = 'immediate'): void {
    this.run('pg_ctl', ['-D', this.data, '-m', mode, '-w', '-t', '60', 'stop']);
  }

  destroy(): void {
    try {
      this.stop('fast');
    } catch {
      // already stopped
    }
    if (this.options.tmpfsBytes !== undefined) {
      unmountTmpfs(this.dir);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  private run(tool: string, args: string[]): void {
    const command = join(PG_BIN, tool);
    if (this.asRoot) {
      execFileSync('runuser', ['-u', 'postgres', '--', command, ...args], { cwd: '/', stdio: 'pipe' });
    } else {
      execFileSync(command, args, { stdio: 'pipe' });
    }
  }
}
