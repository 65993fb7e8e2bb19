import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashPassword } from '@acm/input-guards';
import { loadRuntimeConfig } from './runtime.config';
import { readUsersFile } from './users-file-setting';

const CHEAP = { logN: 14, r: 8, p: 1 };

describe('RUNTIME_USERS_FILE', () => {
  let hash: string;

  beforeAll(async () => {
    hash = await hashPassword('pw', CHEAP);
  });

  const read = (text: string) => readUsersFile('/etc/acm/users', () => text);

  it('is ONAP single user when unset', () => {
    expect(readUsersFile(undefined)).toEqual({ users: null, problems: [] });
    expect(readUsersFile('  ')).toEqual({ users: null, problems: [] });
  });

  it('reads name:hash lines, skipping blank lines and comments', () => {
    const { users, problems } = read(`# operators\n\nalice:${hash}\r\nci-bot:${hash}\n`);
    expect(problems).toEqual([]);
    expect([...(users?.keys() ?? [])]).toEqual(['alice', 'ci-bot']);
  });

  it('names the file and the line of each problem, never the hash', () => {
    const { users, problems } = read(`alice:${hash}\nbob ${hash}\nalice:${hash}\ncarol:${hash.slice(0, -10)}\n:x`);
    expect(users).toBeNull();
    expect(problems).toEqual([
      'RUNTIME_USERS_FILE (/etc/acm/users) line 2: must be <name>:<hash>, the name 1 to 128 characters without spaces',
      'RUNTIME_USERS_FILE (/etc/acm/users) line 3: user "alice" is already defined above',
      'RUNTIME_USERS_FILE (/etc/acm/users) line 4: the salt must be 16 to 64 bytes and the key 32 to 64 bytes',
      'RUNTIME_USERS_FILE (/etc/acm/users) line 5: must be <name>:<hash>, the name 1 to 128 characters without spaces',
    ]);
    expect(problems.join('\n')).not.toContain(hash.slice(30));
  });

  it('refuses an unreadable or empty file', () => {
    const missing = readUsersFile('/nowhere', () => {
      throw Object.assign(new Error('ENOENT: no such file'), { code: 'ENOENT' });
    });
    expect(missing.problems).toEqual(['RUNTIME_USERS_FILE (/nowhere): not readable (ENOENT)']);
    expect(read('# nobody\n').problems).toEqual(['RUNTIME_USERS_FILE (/etc/acm/users): defines no user']);
  });
});

describe('a bad RUNTIME_USERS_FILE', () => {
  it('stops the configuration from loading, naming the file and the line', () => {
    const folder = mkdtempSync(join(tmpdir(), 'acm-users-'));
    const file = join(folder, 'users');
    writeFileSync(file, 'alice:not-a-hash\n');
    try {
      expect(() => loadRuntimeConfig({ RUNTIME_USERS_FILE: file })).toThrow(
        `RUNTIME_USERS_FILE (${file}) line 1: the hash must be $scrypt$`,
      );
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
