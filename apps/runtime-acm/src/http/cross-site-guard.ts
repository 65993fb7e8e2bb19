import type { NextFunction, Request, Response } from 'express';
import { sendErrorDetails } from './error.filter';
import { JSON_TYPES, YAML_TYPES, mediaTypeOf } from './body-parsing';

/**
 * The header that lets a client send a POST with no body and no Content-Type (pause, resume, cancel, rollback...).
 * Its value is not checked: what matters is that a page may set it only after a CORS preflight, which the runtime
 * grants to the origins of CORS_ORIGINS alone.
 */
export const REQUEST_HEADER = 'X-ACM-Request';

/** What a browser may send to another origin without a preflight: only these methods can be forged cross-site. */
const SIMPLE_METHODS = new Set(['GET', 'HEAD', 'POST']);
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Fetch metadata a browser sets (no page can) for a request its own origin, or its user, started. */
const OWN_FETCH_SITES = new Set(['same-origin', 'none']);

const SEND_JSON_OR_YAML = 'send application/json or application/yaml';

function hasBody(request: Request): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Whether a body-less POST without Content-Type comes from no other site. Browsers add `Sec-Fetch-Site` (and always
 * `Origin` on a POST) to what a page sends, and no page can set or remove either; a client that is not a browser
 * (curl, Postman, ONAP's suites, acmctl) sends neither. The same rule as Go's http.CrossOriginProtection.
 */
function notCrossSite(request: Request, trustedOrigins: ReadonlySet<string>): boolean {
  const origin = request.headers.origin;
  if (origin !== undefined && trustedOrigins.has(origin)) {
    return true;
  }
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined) {
    return OWN_FETCH_SITES.has(site);
  }
  return origin === undefined;
}

/**
 * Makes every state-changing request one that a page of another site cannot send with the user's cached credentials.
 * A browser sends a request to another origin without asking first (a CORS preflight) only when it is a GET, HEAD or
 * POST whose Content-Type is text/plain, multipart/form-data or application/x-www-form-urlencoded (or absent). So:
 * - a POST, PUT, PATCH or DELETE with a Content-Type must declare JSON or YAML, body or not (415 otherwise);
 * - one with a body must have a Content-Type (415);
 * - a PUT, PATCH or DELETE with neither passes: a browser preflights those methods;
 * - a POST with neither passes when it carries X-ACM-Request, or shows no sign of another site's page (415).
 * Preflights get no permission unless CORS_ORIGINS lists the origin (bootstrap.ts), so none of this can be sent
 * cross-site otherwise.
 */
export function crossSiteGuard(trustedOrigins: ReadonlySet<string>) {
  return (request: Request, response: Response, next: NextFunction): void => {
    if (SAFE_METHODS.has(request.method)) {
      next();
      return;
    }
    const mediaType = mediaTypeOf(request);
    if (mediaType !== null) {
      if (JSON_TYPES.includes(mediaType) || YAML_TYPES.includes(mediaType)) {
        next();
        return;
      }
      sendErrorDetails(response, 415, `Content-Type ${mediaType} is not supported: ${SEND_JSON_OR_YAML}`);
      return;
    }
    if (hasBody(request)) {
      sendErrorDetails(response, 415, `A request body needs a Content-Type: ${SEND_JSON_OR_YAML}`);
      return;
    }
    if (
      !SIMPLE_METHODS.has(request.method) ||
      request.headers[REQUEST_HEADER.toLowerCase()] !== undefined ||
      notCrossSite(request, trustedOrigins)
    ) {
      next();
      return;
    }
    sendErrorDetails(
      response,
      415,
      `A ${request.method} from a web page needs Content-Type application/json or application/yaml, or the header ` +
        `${REQUEST_HEADER}: 1 (a page of another site can send neither unless CORS_ORIGINS lists it)`,
    );
  };
}
