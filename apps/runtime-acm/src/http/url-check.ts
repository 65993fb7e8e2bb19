import { excerpt } from '@acm/input-guards';
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
 * raw text, so a filter like `?name=%ff` would quietly match nothing.
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
  }
  next();
}
