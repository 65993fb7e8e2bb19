import type { NextFunction, Request, Response } from 'express';
import { decodeBody, parseBody } from '@acm/input-guards';
import { HttpRefusal, sendErrorDetails } from './error.filter';

export const JSON_TYPES = ['application/json', 'text/json'];
export const YAML_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml'];

export function mediaTypeOf(request: Request): string | null {
  const header = request.headers['content-type'];
  return header ? (header.split(';')[0]?.trim().toLowerCase() ?? null) : null;
}

/**
 * Parses a body as JSON or YAML by Content-Type through the one guarded parser: a syntax error names the line and
 * column, and a body that expands too far, nests too deep or holds NUL or a lone surrogate is refused with its path.
 */
export function parseBodyText(text: string, mediaType: string | null): unknown {
  const format = mediaType !== null && YAML_TYPES.includes(mediaType) ? 'yaml' : 'json';
  const parsed = parseBody(text, format);
  if (!parsed.ok) {
    const { path, message } = parsed.refusal;
    const where = path === '' ? '' : `${path}: `;
    throw new HttpRefusal(400, `Request body is not valid ${format === 'yaml' ? 'YAML' : 'JSON'}: ${where}${message}`);
  }
  return parsed.value;
}

/**
 * Reads the whole body up to the limit, then parses it as JSON or YAML by Content-Type. A body over the
 * limit is refused with 413 as soon as the limit is crossed, without buffering the rest.
 */
export function bodyParser(maxBytes: number) {
  return (request: Request, response: Response, next: NextFunction): void => {
    const declared = Number(request.headers['content-length'] ?? '0');
    if (declared > maxBytes) {
      sendErrorDetails(
        response,
        413,
        `Request body of ${declared} bytes is larger than the limit of ${maxBytes} bytes (MAX_BODY_BYTES)`,
      );
      request.resume();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    request.on('data', (chunk: Buffer) => {
      if (refused) {
        return;
      }
      size += chunk.length;
      if (size > maxBytes) {
        refused = true;
        sendErrorDetails(response, 413, `Request body is larger than the limit of ${maxBytes} bytes (MAX_BODY_BYTES)`);
        return;
      }
      chunks.push(chunk);
    });
    request.on('error', (error) => {
      if (!refused) {
        refused = true;
        next(error);
      }
    });
    request.on('end', () => {
      if (refused) {
        return;
      }
      const decoded = decodeBody(Buffer.concat(chunks));
      if (!decoded.ok) {
        sendErrorDetails(response, 400, 'Request body is not valid UTF-8');
        return;
      }
      const text = decoded.text;
      if (text.trim() === '') {
        request.body = undefined;
        next();
        return;
      }
      const mediaType = mediaTypeOf(request);
      if (mediaType !== null && !JSON_TYPES.includes(mediaType) && !YAML_TYPES.includes(mediaType)) {
        sendErrorDetails(
          response,
          415,
          `Content-Type ${mediaType} is not supported: send application/json or application/yaml`,
        );
        return;
      }
      try {
        request.body = parseBodyText(text, mediaType);
      } catch (error) {
        if (error instanceof HttpRefusal) {
          sendErrorDetails(response, error.status, error.message);
          return;
        }
        throw error;
      }
      next();
    });
  };
}
