import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

/** ONAP's response headers: API version, and the caller's X-ONAP-RequestID (or a fresh one) for tracing. */
export function requestHeaders(request: Request, response: Response, next: NextFunction): void {
  const given = request.headers['x-onap-requestid'];
  const requestId = typeof given === 'string' && given.trim() !== '' ? given : randomUUID();
  response.setHeader('X-LatestVersion', '1.0.0');
  response.setHeader('X-MinorVersion', '0');
  response.setHeader('X-PatchVersion', '0');
  response.setHeader('X-ONAP-RequestID', requestId);
  next();
}
