import { timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { sendErrorDetails } from './error.filter';

function equalText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** HTTP Basic on every request, as ONAP does when BASIC_AUTH is true; the refusal is JSON like every error. */
export function basicAuth(user: string, password: string) {
  return (request: Request, response: Response, next: NextFunction): void => {
    const header = request.headers.authorization ?? '';
    const [scheme, encoded] = header.split(' ');
    if (scheme?.toLowerCase() === 'basic' && encoded) {
      const decoded = Buffer.from(encoded, 'base64').toString('utf8');
      const separator = decoded.indexOf(':');
      if (
        separator > 0 &&
        equalText(decoded.slice(0, separator), user) &&
        equalText(decoded.slice(separator + 1), password)
      ) {
        next();
        return;
      }
    }
    response.setHeader('WWW-Authenticate', 'Basic realm="acm-runtime"');
    sendErrorDetails(
      response,
      401,
      header ? 'Unauthorized: wrong user name or password' : 'Unauthorized: HTTP Basic credentials are required',
    );
  };
}
