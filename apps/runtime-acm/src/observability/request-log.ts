import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { uriLabel } from './route-label';
import { requestTraceIds } from './http-traces';
import { principalOf } from '../security/principal';
import { withRequestContext } from './request-context';

/** The user name of an HTTP Basic header (never the password), or undefined. */
export function basicUser(header: string | undefined): string | undefined {
  const match = /^basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (match?.[1] === undefined) {
    return undefined;
  }
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon > 0 ? decoded.slice(0, colon) : undefined;
}

/**
 * One line per request once it is answered: method, route template (ONAP's `{param}` form), status, duration,
 * X-ONAP-RequestID and user. Mounted after the request id is settled, before authentication, so refusals are logged.
 */
export function requestLog(logger: Logger, contextPath: string) {
  const log = logger.child({ context: 'Http' });
  return (request: Request, response: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    response.on('finish', () => {
      const route = (request.route as { path?: unknown } | undefined)?.path;
      const status = response.statusCode;
      const fields = {
        method: request.method,
        route: uriLabel(typeof route === 'string' ? route : undefined, status, contextPath),
        status,
        durationMs: Number(process.hrtime.bigint() - started) / 1e6,
        requestId: response.getHeader('X-ONAP-RequestID'),
        user: principalOf(response)?.user ?? basicUser(request.headers.authorization),
        ...requestTraceIds(response),
      };
      const line = `${fields.method} ${request.path} ${status}`;
      if (status >= 500) {
        log.error(fields, line);
      } else if (fields.route.startsWith('/actuator/') || fields.route === '/metrics' || fields.route === '/health') {
        // Probes and scrapes come every few seconds: visible at LOG_LEVEL=debug only.
        log.debug(fields, line);
      } else {
        log.info(fields, line);
      }
    });
    next();
  };
}

/**
 * Makes the request's id and user the context of everything its handler does (engine, store, log lines). Mounted
 * after the body is read: a stream's callbacks run outside the context the request started in.
 */
export function requestContext(request: Request, response: Response, next: NextFunction): void {
  const requestId = response.getHeader('X-ONAP-RequestID');
  // The authenticated principal (Basic user or token subject); without authentication, the Basic header's name.
  const user = principalOf(response)?.user ?? basicUser(request.headers.authorization);
  withRequestContext(
    {
      ...(typeof requestId === 'string' ? { requestId } : {}),
      ...(user === undefined ? {} : { user }),
    },
    next,
  );
}
