/** The OpenID Connect settings of the runtime (OIDC_*); null in the config when OIDC_ISSUER is unset. */
export interface OidcSettings {
  /** OIDC_ISSUER: the issuer's URL, exactly as its tokens' `iss` claim and its discovery document say it. */
  readonly issuer: string;
  /** OIDC_AUDIENCE: the audience a token must name in `aud`. */
  readonly audience: string;
  /** OIDC_GROUPS_CLAIM: the claim holding the caller's groups (a list of strings, or one string). */
  readonly groupsClaim: string;
  /** OIDC_CLOCK_SKEW_S: seconds of clock difference tolerated on `exp`, `nbf` and `iat`. */
  readonly clockSkewS: number;
  /** OIDC_JWKS_COOLDOWN_S: seconds between two fetches of the keys for a key the issuer did not publish before. */
  readonly jwksCooldownS: number;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
const CLAIM = /^[A-Za-z0-9_.:/-]{1,128}$/;
const OTHERS = ['OIDC_AUDIENCE', 'OIDC_GROUPS_CLAIM', 'OIDC_CLOCK_SKEW_S', 'OIDC_JWKS_COOLDOWN_S'] as const;

/** Reads the OIDC_* settings; every problem names its setting. */
export function readOidcSettings(env: Readonly<Record<string, string | undefined>>): {
  settings: OidcSettings | null;
  problems: string[];
} {
  const value = (name: string): string => env[name]?.trim() ?? '';
  const problems: string[] = [];
  const issuer = value('OIDC_ISSUER');
  if (issuer === '') {
    for (const name of OTHERS) {
      if (value(name) !== '') {
        problems.push(`${name}: needs OIDC_ISSUER (bearer tokens are off without it)`);
      }
    }
    return { settings: null, problems };
  }
  let url: URL | null = null;
  try {
    url = new URL(issuer);
  } catch {
    problems.push(`OIDC_ISSUER: must be a URL, got "${issuer}"`);
  }
  if (url !== null) {
    const secure = url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.has(url.hostname));
    if (!secure || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
      problems.push(
        'OIDC_ISSUER: must be an https URL without query, fragment or credentials (http only on localhost)',
      );
    }
  }
  const audience = value('OIDC_AUDIENCE');
  if (audience === '') {
    problems.push('OIDC_AUDIENCE: required with OIDC_ISSUER (the audience tokens must name)');
  }
  const groupsClaim = value('OIDC_GROUPS_CLAIM') || 'groups';
  if (!CLAIM.test(groupsClaim)) {
    problems.push(`OIDC_GROUPS_CLAIM: must be a claim name (letters, digits, _ . : / -), got "${groupsClaim}"`);
  }
  const seconds = (name: string, fallback: number, max: number): number => {
    const text = value(name);
    if (text === '') {
      return fallback;
    }
    const parsed = Number(text);
    if (!/^\d+$/.test(text) || parsed > max) {
      problems.push(`${name}: must be an integer from 0 to ${max} (seconds), got "${text}"`);
      return fallback;
    }
    return parsed;
  };
  const clockSkewS = seconds('OIDC_CLOCK_SKEW_S', 30, 300);
  const jwksCooldownS = seconds('OIDC_JWKS_COOLDOWN_S', 30, 3600);
  if (problems.length > 0) {
    return { settings: null, problems };
  }
  return { settings: { issuer, audience, groupsClaim, clockSkewS, jwksCooldownS }, problems };
}
