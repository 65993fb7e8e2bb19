import { basicCredentialsMatch } from '@acm/input-guards';
import type { NextFunction, Request, Response } from 'express';
import { sendErrorDetails } from './error.filter';

/**
 * HTTP Basic on every request, as ONAP does when BASIC_AUTH is true, except the paths in `open` (the probes, which
 * reveal nothing, so an orchestrator needs no credentials); the refusal is JSON like every error.
 */
export function basicAuth(user: string, password: string, open: ReadonlySet<string> = new Set()) {
  const expected = { user, password };
  return (request: Request, response: Response, next: NextFunction): void => {
    const header = request.headers.authorization;
    if ((request.method === 'GET' || request.method === 'HEAD') && open.has(request.path)) {
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
