import { excerpt, forbiddenCharacterIn, shortText } from '@acm/input-guards';
import type { NextFunction, Request, Response } from 'express';
import { sendErrorDetails } from './error.filter';

function decodes(text: string): boolean {
  try {
    decodeURIComponent(text.replace(/\+/g, ' '));
    return true;
  } catch {
    return false;
  }
}

/**
 * Refuses a URL whose path segments or query parameters are not percent-encoded UTF-8 (`%ff`, a lone `%`), naming
 * the part. Left alone, the router and the query parser would either fail with a bare status or silently keep the
 * raw text, so a filter like `?name=%ff` would quietly match nothing. Every query parameter, read by its route or
 * not, also follows the rule of stored text (no NUL, no lone surrogate): one rule for every route, so a route that
 * ignores a parameter answers a `%00` in it as the route that reads it does.
 */
export function urlCheck(request: Request, response: Response, next: NextFunction): void {
  const url = request.originalUrl;
  const queryStart = url.indexOf('?');
  const path = queryStart < 0 ? url : url.slice(0, queryStart);
  const badSegment = path.split('/').find((segment) => !decodes(segment));
  if (badSegment !== undefined) {
    sendErrorDetails(response, 400, `Request path segment ${excerpt(badSegment)} is not valid percent-encoded UTF-8`);
    return;
  }
  const query = queryStart < 0 ? '' : url.slice(queryStart + 1);
  for (const pair of query.split('&')) {
    const separator = pair.indexOf('=');
    const name = separator < 0 ? pair : pair.slice(0, separator);
    if (!decodes(pair.replace('=', ''))) {
      const shown = decodes(name) ? decodeURIComponent(name) : name;
      sendErrorDetails(response, 400, `${shown}: query parameter is not valid percent-encoded UTF-8`);
      return;
    }
    const decodedName = decodeURIComponent(name.replace(/\+/g, ' '));
    const value = separator < 0 ? '' : decodeURIComponent(pair.slice(separator + 1).replace(/\+/g, ' '));
    const problem = forbiddenCharacterIn(decodedName) ?? forbiddenCharacterIn(value);
    if (problem !== undefined) {
      sendErrorDetails(response, 400, `${shortText(decodedName)}: ${problem}`);
      return;
    }
  }
  next();
}
