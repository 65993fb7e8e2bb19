/** The console's sign-in through the OpenID Connect provider (OIDC_CONSOLE_*); null in the config when unset. */
export interface ConsoleLoginSettings {
  /** OIDC_ISSUER: where the console sends the user to sign in. */
  readonly issuer: string;
  /** OIDC_CONSOLE_CLIENT_ID: the provider's public client (authorization code with PKCE, no secret) of the console. */
  readonly clientId: string;
  /** OIDC_CONSOLE_SCOPES: the scopes the console asks for, space-separated. */
  readonly scopes: string;
}

const CLIENT_ID = /^[\x21-\x7e]{1,255}$/;
const SCOPE = /^[\x21\x23-\x5b\x5d-\x7e]{1,128}$/;
export const DEFAULT_CONSOLE_SCOPES = 'openid profile';

/**
 * Reads OIDC_CONSOLE_CLIENT_ID and OIDC_CONSOLE_SCOPES; every problem names its setting. `issuer` is OIDC_ISSUER as
 * read (null when unset or wrong: the console then needs OIDC_ISSUER first).
 */
export function readConsoleLoginSettings(
  env: Readonly<Record<string, string | undefined>>,
  issuer: string | null,
): { settings: ConsoleLoginSettings | null; problems: string[] } {
  const clientId = env['OIDC_CONSOLE_CLIENT_ID']?.trim() ?? '';
  const scopesText = env['OIDC_CONSOLE_SCOPES']?.trim() ?? '';
  const problems: string[] = [];
  if (clientId === '') {
    if (scopesText !== '') {
      problems.push(
        'OIDC_CONSOLE_SCOPES: needs OIDC_CONSOLE_CLIENT_ID (the console signs in without it only by Basic)',
      );
    }
    return { settings: null, problems };
  }
  if (env['OIDC_ISSUER']?.trim() === undefined || env['OIDC_ISSUER'].trim() === '') {
    problems.push('OIDC_CONSOLE_CLIENT_ID: needs OIDC_ISSUER (the provider the console signs in with)');
  }
  if (!CLIENT_ID.test(clientId)) {
    problems.push(`OIDC_CONSOLE_CLIENT_ID: must be printable ASCII without spaces, at most 255, got "${clientId}"`);
  }
  const scopes = (scopesText || DEFAULT_CONSOLE_SCOPES).split(/\s+/);
  const wrong = scopes.find((scope) => !SCOPE.test(scope));
  if (wrong !== undefined) {
    problems.push(`OIDC_CONSOLE_SCOPES: ${JSON.stringify(wrong)} is not a scope (printable ASCII without " or \\)`);
  } else if (!scopes.includes('openid')) {
    problems.push('OIDC_CONSOLE_SCOPES: must include openid');
  }
  if (problems.length > 0 || issuer === null) {
    return { settings: null, problems };
  }
  return { settings: { issuer, clientId, scopes: scopes.join(' ') }, problems };
}
