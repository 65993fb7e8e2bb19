import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { AcmctlError, EXIT } from './exit-codes';

/** Where and as whom acmctl talks to the runtime. */
export interface Connection {
  readonly url: string;
  readonly user: string;
  readonly password: string;
  /** A bearer token of the runtime's OpenID Connect provider, sent instead of the Basic credentials when given. */
  readonly token?: string;
}

/** ONAP's defaults, as the runtime's (README "Configuration"). */
export const DEFAULT_CONNECTION: Connection = {
  url: 'http://localhost:6969',
  user: 'runtimeUser',
  password: 'zb!XztG34',
};

export interface ConnectionFlags {
  url?: string;
  user?: string;
  password?: string;
  token?: string;
}

/** The profile file: `$ACMCTL_CONFIG`, else `$XDG_CONFIG_HOME/acmctl/profile.json`, else `~/.config/acmctl/...`. */
export function profilePath(env: NodeJS.ProcessEnv): string {
  const explicit = env['ACMCTL_CONFIG'];
  if (explicit) {
    return explicit;
  }
  const configHome = env['XDG_CONFIG_HOME'] || join(env['HOME'] || homedir(), '.config');
  return join(configHome, 'acmctl', 'profile.json');
}

function readProfile(path: string): Partial<Connection> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return {};
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new Error('not a JSON object');
    }
    const record = parsed as Record<string, unknown>;
    const field = (name: keyof Connection): string | undefined =>
      typeof record[name] === 'string' ? record[name] : undefined;
    return { url: field('url'), user: field('user'), password: field('password'), token: field('token') };
  } catch (error) {
    throw new AcmctlError(
      EXIT.USAGE,
      `profile ${path}: ${error instanceof Error ? error.message : String(error)}; run "acmctl login" to rewrite it`,
    );
  }
}

/**
 * Flags win over the environment (`ACM_URL`, `ACM_USER`, `ACM_PASSWORD`, `ACM_TOKEN`), which wins over the profile
 * file.
 */
export function resolveConnection(flags: ConnectionFlags, env: NodeJS.ProcessEnv): Connection {
  const profile = readProfile(profilePath(env));
  const pick = (name: 'url' | 'user' | 'password', variable: string): string =>
    flags[name] || env[variable] || profile[name] || DEFAULT_CONNECTION[name];
  const token = flags.token || env['ACM_TOKEN'] || profile.token;
  const url = pick('url', 'ACM_URL').replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]+/.test(url)) {
    throw new AcmctlError(EXIT.USAGE, `url: must be http://host:port or https://host:port, got "${url}"`);
  }
  return {
    url,
    user: pick('user', 'ACM_USER'),
    password: pick('password', 'ACM_PASSWORD'),
    ...(token ? { token } : {}),
  };
}

/** Writes the profile readable by its owner only, since it holds a password (or a token). */
export function writeProfile(path: string, connection: Pick<Connection, 'url'> & Partial<Connection>): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, `${JSON.stringify(connection, null, 2)}\n`, { mode: 0o600 });
}
