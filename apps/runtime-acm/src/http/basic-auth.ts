import { basicCredentialsMatch } from '@acm/input-guards';
import type { NextFunction, Request, Response } from 'express';
import { sendErrorDetails } from './error.filter';

/** A POST of a signal with a token in its URL (a signed signal URL): the signal route checks the token itself. */
export function isSignedSignal(request: Request): boolean {
  return (
    request.method === 'POST' &&
    /\/elements\/[^/]+\/signal$/.test(request.path) &&
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
) {
  const expected = { user, password };
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
    if (basicCredentialsMatch(header, expected)) {
      next();
      return;
    }
    response.setHeader('WWW-Authenticate', 'Basic realm="acm-runtime"');
    sendErrorDetails(
      response,
      401,
      header ? 'Unauthorized: wrong user name or password' : 'Unauthorized: HTTP Basic credentials are required',
    );
  };
}
