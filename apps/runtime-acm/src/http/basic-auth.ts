import { createHmac, randomBytes } from 'node:crypto';
import { basicCredentialsMatch, basicCredentialsOf, verifyPassword } from '@acm/input-guards';
import type { BasicUsers } from '../config/users-file-setting';
import type { NextFunction, Request, Response } from 'express';
import { basicUser } from '../observability/request-log';
import type { Principal } from '../security/principal';
import { setPrincipal } from '../security/principal';
import type { BearerVerifier } from '../security/bearer-tokens';
import { IdentityProviderUnavailable } from '../security/bearer-tokens';
import { sendErrorDetails } from './error.filter';

/** A refused request, handed to `onRefused` after the 401 is sent (the audit ledger records it). */
export interface RefusedRequest {
  readonly status: 401;
  readonly reason: string;
  /** The Basic user name or the token's subject, when the request gave one; never a password or a token. */
  readonly user: string | null;
}

export interface AuthenticationOptions {
  /** Called for every 401, after the answer is sent. */
  readonly onRefused?: (request: Request, response: Response, refusal: RefusedRequest) => void;
  /** Bearer tokens of an OpenID Connect provider, accepted besides Basic; null: Basic only. */
  readonly bearer?: BearerVerifier | null;
}

const BEARER = /^bearer\s+(\S+)\s*$/i;

/**
 * A POST of a signal or of a group's scaling call with a token in its URL (a signed URL): the route checks the token
 * itself.
 */
export function isSignedSignal(request: Request): boolean {
  return (
    request.method === 'POST' &&
    /\/(elements\/[^/]+\/signal|groups\/[^/]+\/scale)$/.test(request.path) &&
    typeof request.query['token'] === 'string'
  );
}

/**
 * HTTP Basic on every request, as ONAP does when BASIC_AUTH is true, except the paths in `open` (the probes, which
 * reveal nothing, so an orchestrator needs no credentials); the refusal is JSON like every error.
 */
export function basicAuth(
  user: string,
  password: string,
  open: ReadonlySet<string> = new Set(),
  signed: (request: Request) => boolean = () => false,
  users: BasicUsers | null = null,
  options: AuthenticationOptions = {},
) {
  const expected = { user, password };
  const verify = users === null ? null : usersVerifier(users);
  const bearer = options.bearer ?? null;
  const refuse = (request: Request, response: Response, header: string | undefined, reason?: string): void => {
    const refusal = refusalOf(request, response, header, reason);
    sendErrorDetails(response, 401, refusal.reason);
    options.onRefused?.(request, response, refusal);
  };
  const grant = (response: Response, next: NextFunction, principal: Principal): void => {
    setPrincipal(response, principal);
    next();
  };
  return (request: Request, response: Response, next: NextFunction): void => {
    const header = request.headers.authorization;
    if ((request.method === 'GET' || request.method === 'HEAD') && open.has(request.path)) {
      next();
      return;
    }
    // A signed URL carries its own credentials (the token); the route checks it before it reads anything.
    if (header === undefined && signed(request)) {
      next();
      return;
    }
    const token = bearer === null ? undefined : BEARER.exec(header ?? '')?.[1];
    if (bearer !== null && token !== undefined) {
      bearer.verify(token).then(
        (verdict) =>
          verdict.ok
            ? grant(response, next, verdict.principal)
            : refuse(request, response, header, `Unauthorized: ${verdict.reason}`),
        (error: unknown) =>
          error instanceof IdentityProviderUnavailable
            ? sendErrorDetails(response, 503, `Service unavailable: the OpenID Connect provider: ${error.message}`)
            : next(error),
      );
      return;
    }
    const given = basicUser(header);
    if (verify !== null) {
      verify(header).then(
        (granted) =>
          granted && given !== undefined
            ? grant(response, next, { user: given, groups: [], scheme: 'basic' })
            : refuse(request, response, header),
        (error: unknown) => next(error),
      );
      return;
    }
    if (basicCredentialsMatch(header, expected)) {
      grant(response, next, { user, groups: [], scheme: 'basic' });
      return;
    }
    refuse(request, response, header);
  };

  function refusalOf(
    request: Request,
    response: Response,
    header: string | undefined,
    reason: string | undefined,
  ): RefusedRequest {
    // A refused bearer token is challenged as RFC 6750 says, without Basic: a browser that sent one (the console
    // signed in through the provider) must not open its password dialog, it signs in again.
    const refusedToken = bearer !== null && BEARER.test(header ?? '');
    response.setHeader(
      'WWW-Authenticate',
      bearer === null
        ? 'Basic realm="acm-runtime"'
        : refusedToken
          ? 'Bearer realm="acm-runtime", error="invalid_token"'
          : 'Basic realm="acm-runtime", Bearer realm="acm-runtime"',
    );
    const missing =
      bearer === null ? 'HTTP Basic credentials are required' : 'HTTP Basic or a bearer token is required';
    return {
      status: 401,
      reason: reason ?? (header ? 'Unauthorized: wrong user name or password' : `Unauthorized: ${missing}`),
      user: basicUser(header) ?? null,
    };
  }
}

/** Headers granted lately, by an HMAC under a key of this process: scrypt (about 0.1 s of CPU) runs once per header. */
const GRANTED_CACHE_SIZE = 1000;

/**
 * Checks a header against the users of RUNTIME_USERS_FILE. An unknown user costs a scrypt like a known one, so the
 * time does not tell which names exist.
 */
function usersVerifier(users: BasicUsers): (header: string | undefined) => Promise<boolean> {
  const cacheKey = randomBytes(32);
  const granted = new Set<string>();
  const decoy = users.values().next().value;
  return async (header) => {
    const given = basicCredentialsOf(header);
    if (given === null || decoy === undefined) {
      return false;
    }
    const digest = createHmac('sha256', cacheKey)
      .update(header ?? '')
      .digest('base64');
    if (granted.has(digest)) {
      return true;
    }
    const hash = users.get(given.user);
    const matches = await verifyPassword(given.password, hash ?? decoy);
    if (!matches || hash === undefined) {
      return false;
    }
    if (granted.size >= GRANTED_CACHE_SIZE) {
      granted.clear();
    }
    granted.add(digest);
    return true;
  };
}
