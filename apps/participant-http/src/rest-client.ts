/**
 * Sends one REST call of a sequence with node:http(s): no redirect is followed (a 3xx is the call's status, as with
 * ONAP's WebClient), the call ends at its deadline or when the element's signal aborts, and the answer's body is
 * kept up to {@link MAX_BODY_BYTES} for messages and capture.
 */
import { request as httpRequest } from 'node:http';
import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';

import type { RestCall } from './config-request';

/** What is kept of an answer's body. */
export const MAX_BODY_BYTES = 1024 * 1024;

export interface TlsMaterial {
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
}

export interface CallAnswer {
  readonly status: number;
  readonly body: string;
  readonly contentType: string;
}

/** A call that got no answer: refused, reset, timed out, aborted. `code` is Node's error code when there is one. */
export class CallError extends Error {
  override readonly name = 'CallError';

  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

/** The call's URL: the base, the path with its `{params}` encoded, and the query parameters. */
export function callUrl(base: URL, call: RestCall): URL {
  const path = call.path.replace(/\{([^}]*)\}/g, (_, name: string) => encodeURIComponent(call.pathParams[name] ?? ''));
  const [pathPart = '', queryPart] = path.split('?', 2);
  const url = new URL(base.href);
  const basePath = url.pathname.endsWith('/') ? url.pathname.slice(0, -1) : url.pathname;
  const relative = pathPart.startsWith('/') ? pathPart.slice(1) : pathPart;
  url.pathname = relative === '' ? url.pathname : `${basePath}/${relative}`;
  url.search = queryPart ?? '';
  for (const [name, value] of Object.entries(call.queryParams)) {
    url.searchParams.append(name, value);
  }
  return url;
}

/** The URL as it may be shown: no user or password, every query value masked. */
export function shownUrl(url: URL): string {
  const shown = new URL(url.href);
  shown.username = '';
  shown.password = '';
  for (const name of [...new Set(shown.searchParams.keys())]) {
    shown.searchParams.set(name, '***');
  }
  return shown.href;
}

function readBody(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    response.on('data', (chunk: Buffer) => {
      if (size < MAX_BODY_BYTES) {
        chunks.push(chunk.subarray(0, MAX_BODY_BYTES - size));
      }
      size += chunk.length;
    });
    response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    response.on('error', reject);
  });
}

export interface SendOptions {
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly tls?: TlsMaterial;
  readonly signal?: AbortSignal;
}

/** Sends the call and resolves with its answer, whatever the status; rejects with a {@link CallError}. */
export function send(url: URL, call: RestCall, options: SendOptions): Promise<CallAnswer> {
  return new Promise((resolve, reject) => {
    const headers: OutgoingHttpHeaders = { ...options.headers };
    const body = call.body === undefined ? undefined : Buffer.from(call.body, 'utf8');
    if (body !== undefined) {
      headers['content-length'] = body.length;
    }
    const requestOf = url.protocol === 'https:' ? httpsRequest : httpRequest;
    let settled = false;
    const finish = (outcome: () => void): void => {
      if (!settled) {
        settled = true;
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        outcome();
      }
    };
    const outgoing = requestOf(
      url,
      { method: call.method, headers, ...(url.protocol === 'https:' ? (options.tls ?? {}) : {}) },
      (response) => {
        readBody(response).then(
          (text) =>
            finish(() =>
              resolve({
                status: response.statusCode ?? 0,
                body: text,
                contentType: String(response.headers['content-type'] ?? ''),
              }),
            ),
          (error: unknown) => finish(() => reject(toCallError(error))),
        );
      },
    );
    const timer = setTimeout(() => {
      outgoing.destroy(new CallError(`no answer within ${options.timeoutMs} ms`, 'ETIMEDOUT'));
    }, options.timeoutMs);
    const onAbort = (): void => {
      outgoing.destroy(new CallError('the operation was cancelled', 'ABORT_ERR'));
    };
    if (options.signal?.aborted === true) {
      onAbort();
    } else {
      options.signal?.addEventListener('abort', onAbort, { once: true });
    }
    outgoing.on('error', (error) => finish(() => reject(toCallError(error))));
    outgoing.end(body);
  });
}

function toCallError(error: unknown): CallError {
  if (error instanceof CallError) {
    return error;
  }
  const code = (error as { code?: unknown } | null)?.code;
  // Read by shape: an error of Node's own sockets is not always an instance of this realm's Error.
  const message = (error as { message?: unknown } | null)?.message;
  return new CallError(
    typeof message === 'string' ? message : String(error),
    typeof code === 'string' ? code : undefined,
  );
}
