import { readFileSync } from 'node:fs';
import { forbiddenCharacterIn, parsePasswordHash } from '@acm/input-guards';
import type { ScryptHash } from '@acm/input-guards';

/** User name → the scrypt hash of that user's password. */
export type BasicUsers = ReadonlyMap<string, ScryptHash>;

const MAX_NAME_LENGTH = 128;

/**
 * Reads `RUNTIME_USERS_FILE`: one `name:hash` line per user (the hash as `npm run hash-password` writes it); blank
 * lines and lines starting with `#` are skipped. Unset or empty: null (ONAP's one user, RUNTIME_USER and
 * RUNTIME_PASSWORD). Every problem names the file and the line, never the line's text (a hash is as good as secret).
 */
export function readUsersFile(
  setting: string | undefined,
  readFile: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): { users: BasicUsers | null; problems: string[] } {
  const path = setting?.trim() ?? '';
  if (path === '') {
    return { users: null, problems: [] };
  }
  const where = `RUNTIME_USERS_FILE (${path})`;
  let text: string;
  try {
    text = readFile(path);
  } catch (error) {
    return { users: null, problems: [`${where}: not readable (${(error as NodeJS.ErrnoException).code ?? 'error'})`] };
  }
  const problems: string[] = [];
  const users = new Map<string, ScryptHash>();
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) {
      return;
    }
    const at = `${where} line ${index + 1}`;
    const separator = line.indexOf(':');
    const name = separator > 0 ? line.slice(0, separator) : '';
    if (name === '' || name.length > MAX_NAME_LENGTH || /\s/.test(name) || forbiddenCharacterIn(name) !== undefined) {
      problems.push(`${at}: must be <name>:<hash>, the name 1 to ${MAX_NAME_LENGTH} characters without spaces`);
      return;
    }
    if (users.has(name)) {
      problems.push(`${at}: user "${name}" is already defined above`);
      return;
    }
    const hash = parsePasswordHash(line.slice(separator + 1));
    if (typeof hash === 'string') {
      problems.push(`${at}: ${hash}`);
      return;
    }
    users.set(name, hash);
  });
  if (problems.length === 0 && users.size === 0) {
    problems.push(`${where}: defines no user`);
  }
  return { users: problems.length === 0 ? users : null, problems };
}
