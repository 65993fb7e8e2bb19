import { randomUUID } from 'node:crypto';
import { excerpt } from '@acm/input-guards';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { ONAP_API_VERSION } from '../config/product-version';

/** ONAP's request ids are UUIDs (36 characters); this leaves room for other tracing ids, and no more. */
export const MAX_REQUEST_ID_LENGTH = 128;
const REQUEST_ID = new RegExp(`^[\\x21-\\x7e]{1,${MAX_REQUEST_ID_LENGTH}}$`);

/**
 * ONAP's response headers: API version, and the caller's X-ONAP-RequestID (or a fresh one) for tracing. The id is
 * echoed and written on every log line of the request, so one that breaks the rule (1 to 128 visible ASCII
 * characters) is replaced by a fresh UUID, said once in the log: refusing it would fail a request for its tracing id.
 */
export function requestHeaders(logger: Logger) {
  const log = logger.child({ context: 'Http' });
  return (request: Request, response: Response, next: NextFunction): void => {
    const given = request.headers['x-onap-requestid'];
    const usable = typeof given === 'string' && REQUEST_ID.test(given);
    const requestId = usable ? given : randomUUID();
    if (!usable && typeof given === 'string' && given.trim() !== '') {
      log.warn(
        { requestId, given: excerpt(given) },
        `X-ONAP-RequestID of ${given.length} characters replaced by ${requestId}: it must be 1 to ` +
          `${MAX_REQUEST_ID_LENGTH} visible ASCII characters`,
      );
    }
    response.setHeader('X-LatestVersion', ONAP_API_VERSION);
    response.setHeader('X-MinorVersion', '0');
    response.setHeader('X-PatchVersion', '0');
    response.setHeader('X-ONAP-RequestID', requestId);
    next();
  };
}
