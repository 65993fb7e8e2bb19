/**
 * The HTTP plumbing of the simulator's control API: bodies read with a size limit (JSON or YAML), answers
 * as JSON, errors as `{"errorDetails"}` with their status, and the field readers whose messages name the
 * field. No route lives here.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import type { PropertyMap } from '@acm/contracts';
import { basicCredentialsMatch, decodeBody, excerpt, parseBody } from '@acm/input-guards';

const MAX_BODY_BYTES = 1024 * 1024;

/**
 * A request as the control API reads it: Express adds `originalUrl` and, after a body parser, `body`
 * (then used instead of the already consumed stream).
 */
export type ControlRequest = IncomingMessage & { originalUrl?: string; body?: unknown };

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export function authorized(request: IncomingMessage, auth: { user: string; password: string }): boolean {
  return basicCredentialsMatch(request.headers.authorization, auth);
}

export function send(response: ServerResponse, status: number, body?: unknown): void {
  if (body === undefined) {
    response.statusCode = status;
    response.setHeader('Content-Length', '0');
    response.end();
    return;
  }
  const json = JSON.stringify(body, (_key, value: unknown) => (value === null ? undefined : value));
  // Error bodies end with a newline, as the runtime's do, so a curl user's prompt starts on a line of its own.
  const text = isObject(body) && 'errorDetails' in body ? `${json}\n` : json;
  response.statusCode = status;
  response.setHeader('Content-Type', 'application/json');
  response.setHeader('Content-Length', Buffer.byteLength(text));
  response.end(text);
}

export async function readBody(request: ControlRequest): Promise<unknown> {
  if (request.body !== undefined && !(Buffer.isBuffer(request.body) || typeof request.body === 'string')) {
    return request.body;
  }
  if (request.body !== undefined && request.readableEnded) {
    return parseText(String(request.body), request);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > MAX_BODY_BYTES) {
      throw new HttpError(413, `Request body larger than ${MAX_BODY_BYTES} bytes`);
    }
    chunks.push(buffer);
  }
  const decoded = decodeBody(Buffer.concat(chunks));
  if (!decoded.ok) {
    throw new HttpError(400, 'Request body is not valid UTF-8');
  }
  return parseText(decoded.text, request);
}

export function parseText(text: string, request: IncomingMessage): unknown {
  if (text.trim() === '') {
    throw new HttpError(400, 'Request body is required');
  }
  const type = (request.headers['content-type'] ?? 'application/json').toLowerCase();
  const format = type.includes('yaml') ? 'yaml' : 'json';
  const parsed = parseBody(text, format);
  if (!parsed.ok) {
    const { path, message } = parsed.refusal;
    throw new HttpError(
      400,
      `Request body is not valid ${format === 'yaml' ? 'YAML' : 'JSON'}: ${path === '' ? '' : `${path}: `}${message}`,
    );
  }
  return parsed.value;
}

/** A path segment as text; `%ff` and the like are refused with 400 rather than failing the request. */
export function decodedSegment(name: string, segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new HttpError(400, `${name}: ${excerpt(segment)} is not valid percent-encoded UTF-8`);
  }
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function requiredString(body: Record<string, unknown>, field: string): string {
  const value = body[field];
  if (typeof value !== 'string' || value === '') {
    throw new HttpError(400, `${field}: is required`);
  }
  return value;
}

export function optionalString(body: Record<string, unknown>, field: string): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) {
    return undefined;
  }
  if (typeof value !== 'string') {
    throw new HttpError(400, `${field}: must be a string`);
  }
  return value;
}

export function optionalMap(body: Record<string, unknown>, field: string): PropertyMap | undefined {
  const value = body[field];
  if (value === undefined || value === null) {
    return undefined;
  }
  if (!isObject(value)) {
    throw new HttpError(400, `${field}: must be an object`);
  }
  return value;
}
