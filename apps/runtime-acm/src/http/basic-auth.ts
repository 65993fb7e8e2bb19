import { createHmac, randomBytes } from 'node:crypto';
import { basicCredentialsMatch, basicCredentialsOf, verifyPassword } from '@acm/input-guards';
import type { BasicUsers } from '../config/users-file-setting';
import type { NextFunction, Request, Response } from 'express';
import { sendErrorDetails } from './error.filter';

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
) {
  const expected = { user, password };
  const verify = users === null ? null : usersVerifier(users);
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
    if (verify !== null) {
      verify(header).then(
        (granted) => (granted ? next() : refuse(response, header)),
        (error: unknown) => next(error),
      );
      return;
    }
    if (basicCredentialsMatch(header, expected)) {
      next();
      return;
    }
    refuse(response, header);
  };
}

function refuse(response: Response, header: string | undefined): void {
  response.setHeader('WWW-Authenticate', 'Basic realm="acm-runtime"');
  sendErrorDetails(
    response,
    401,
    header ? 'Unauthorized: wrong user name or password' : 'Unauthorized: HTTP Basic credentials are required',
  );
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
