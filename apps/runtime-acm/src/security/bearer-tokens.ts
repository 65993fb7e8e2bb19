import { createRemoteJWKSet, errors, jwtVerify } from 'jose';
import type { JWTPayload, JWTVerifyGetKey } from 'jose';
import type { OidcSettings } from '../config/oidc-setting';
import type { Principal } from './principal';

export type BearerVerdict =
  { readonly ok: true; readonly principal: Principal } | { readonly ok: false; readonly reason: string };

/** Verifies a bearer token; rejects (throws) only when the provider cannot be reached, never for a bad token. */
export interface BearerVerifier {
  verify(token: string): Promise<BearerVerdict>;
}

/** The provider's answer could not be had: the request is answered 503, not 401 (the token may be fine). */
export class IdentityProviderUnavailable extends Error {}

/** Asymmetric algorithms only: a JWKS of public keys never verifies an HMAC, so a shared-secret token is refused. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

const DISCOVERY_TIMEOUT_MS = 5_000;

/**
 * Bearer tokens of an OpenID Connect provider, as JWTs: the provider's keys are found by discovery
 * (`<issuer>/.well-known/openid-configuration`, its `jwks_uri`) on the first token, then cached by jose's remote
 * JWKS, which fetches them again when a token names a key it does not know (a rotation), at most once per
 * `jwksCooldownS`. The token itself never appears in a reason.
 */
export class OidcBearerVerifier implements BearerVerifier {
  private keys: Promise<JWTVerifyGetKey> | null = null;

  constructor(
    private readonly settings: OidcSettings,
    private readonly fetchJson: (url: string) => Promise<unknown> = fetchJsonWithTimeout,
    /** The time expiry is judged at (epoch milliseconds). */
    private readonly now: () => number = Date.now,
  ) {}

  async verify(token: string): Promise<BearerVerdict> {
    const keys = await this.discoveredKeys();
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer: this.settings.issuer,
        audience: this.settings.audience,
        clockTolerance: this.settings.clockSkewS,
        algorithms: ALGORITHMS,
        currentDate: new Date(this.now()),
      }));
    } catch (error) {
      return { ok: false, reason: reasonOf(error) };
    }
    const user = userOf(payload);
    if (user === null) {
      return { ok: false, reason: 'the token names no subject (sub)' };
    }
    return { ok: true, principal: { user, groups: groupsOf(payload[this.settings.groupsClaim]), scheme: 'bearer' } };
  }

  private discoveredKeys(): Promise<JWTVerifyGetKey> {
    if (this.keys === null) {
      this.keys = this.discover();
      // A failed discovery is tried again by the next token, not remembered.
      this.keys.catch(() => {
        this.keys = null;
      });
    }
    return this.keys;
  }

  private async discover(): Promise<JWTVerifyGetKey> {
    const issuer = this.settings.issuer;
    const url = `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
    const document = await this.fetchJson(url);
    const fields = (typeof document === 'object' && document !== null ? document : {}) as Record<string, unknown>;
    if (fields['issuer'] !== issuer) {
      throw new IdentityProviderUnavailable(`the discovery document at ${url} names another issuer than OIDC_ISSUER`);
    }
    const jwksUri = fields['jwks_uri'];
    if (typeof jwksUri !== 'string') {
      throw new IdentityProviderUnavailable(`the discovery document at ${url} has no jwks_uri`);
    }
    return createRemoteJWKSet(new URL(jwksUri), {
      cooldownDuration: this.settings.jwksCooldownS * 1000,
      timeoutDuration: DISCOVERY_TIMEOUT_MS,
    });
  }
}

async function fetchJsonWithTimeout(url: string): Promise<unknown> {
  let response: globalThis.Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(DISCOVERY_TIMEOUT_MS), redirect: 'error' });
  } catch (error) {
    throw new IdentityProviderUnavailable(`${url} could not be read: ${(error as Error).message}`);
  }
  if (!response.ok) {
    throw new IdentityProviderUnavailable(`${url} answered ${response.status}`);
  }
  try {
    return await response.json();
  } catch {
    throw new IdentityProviderUnavailable(`${url} did not answer JSON`);
  }
}

/** Which check failed, in words; never the token or a claim's value. */
function reasonOf(error: unknown): string {
  if (error instanceof errors.JWTExpired) {
    return 'the token has expired (exp)';
  }
  if (error instanceof errors.JWTClaimValidationFailed) {
    switch (error.claim) {
      case 'iss':
        return 'the token has a wrong issuer (iss is not OIDC_ISSUER)';
      case 'aud':
        return 'the token has a wrong audience (aud does not name OIDC_AUDIENCE)';
      case 'nbf':
      case 'iat':
        return `the token is not valid yet (${error.claim})`;
      default:
        return `the token's claim ${error.claim} is invalid`;
    }
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) {
    return 'the token has a wrong signature';
  }
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) {
    return 'the token has a wrong signature (no key of the issuer matches it)';
  }
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) {
    return 'the token is signed with an algorithm the runtime does not accept';
  }
  if (error instanceof errors.JWKSTimeout) {
    throw new IdentityProviderUnavailable("the issuer's keys (jwks_uri) could not be read in time");
  }
  if (error instanceof errors.JOSEError && error.code !== 'ERR_JOSE_GENERIC') {
    return 'the token is not a valid JWT';
  }
  if (error instanceof errors.JOSEError || error instanceof TypeError || error instanceof IdentityProviderUnavailable) {
    throw new IdentityProviderUnavailable(`the issuer's keys could not be read: ${error.message}`);
  }
  return 'the token is not a valid JWT';
}

/** The actor's name: the token's preferred_username, else its subject. */
function userOf(payload: JWTPayload): string | null {
  const preferred = payload['preferred_username'];
  if (typeof preferred === 'string' && preferred !== '') {
    return preferred;
  }
  return typeof payload.sub === 'string' && payload.sub !== '' ? payload.sub : null;
}

function groupsOf(claim: unknown): readonly string[] {
  if (typeof claim === 'string') {
    return [claim];
  }
  return Array.isArray(claim) ? claim.filter((group): group is string => typeof group === 'string') : [];
}
