import type { Connection } from './connection';
import { AcmctlError, EXIT } from './exit-codes';

export const API_PATH = '/onap/policy/clamp/acm/v2';

export interface ApiResponse {
  readonly status: number;
  readonly body: unknown;
}

/** The runtime's REST API over Node's fetch; every failure becomes an {@link AcmctlError} with its exit code. */
export class AcmClient {
  constructor(readonly connection: Connection) {}

  /** A bearer token when one is given (OpenID Connect), else ONAP's HTTP Basic. */
  private get authorization(): string {
    const { user, password, token } = this.connection;
    return token === undefined ? `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` : `Bearer ${token}`;
  }

  async request(method: string, path: string, body?: unknown, accept = 'application/json'): Promise<ApiResponse> {
    const url = `${this.connection.url}${API_PATH}${path}`;
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: {
          Authorization: this.authorization,
          Accept: accept,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      throw new AcmctlError(
        EXIT.UNREACHABLE,
        `cannot reach the runtime at ${this.connection.url}: ${networkReason(error)}`,
      );
    }
    const text = await response.text();
    const parsed = parseBody(text, response.headers.get('content-type'));
    if (response.ok) {
      return { status: response.status, body: parsed };
    }
    throw refusal(method, path, response.status, parsed);
  }

  /**
   * A GET whose answer is read as it arrives, as text chunks (an NDJSON export): a refusal fails before the first
   * chunk, with the exit code `request` would give it.
   */
  async stream(path: string, accept: string): Promise<AsyncIterable<string>> {
    const url = `${this.connection.url}${API_PATH}${path}`;
    let response: Response;
    try {
      response = await fetch(url, { headers: { Authorization: this.authorization, Accept: accept } });
    } catch (error) {
      throw new AcmctlError(
        EXIT.UNREACHABLE,
        `cannot reach the runtime at ${this.connection.url}: ${networkReason(error)}`,
      );
    }
    if (!response.ok || response.body === null) {
      const text = await response.text();
      throw refusal('GET', path, response.status, parseBody(text, response.headers.get('content-type')));
    }
    return textChunks(response.body);
  }

  async get(path: string): Promise<unknown> {
    return (await this.request('GET', path)).body;
  }

  /** A GET that answers null on 404, for waits that end when the subject is gone. */
  async getIfPresent(path: string): Promise<unknown> {
    try {
      return await this.get(path);
    } catch (error) {
      if (error instanceof AcmctlError && error.exitCode === EXIT.REFUSED && /\b404\b/.test(error.message)) {
        return null;
      }
      throw error;
    }
  }
}

async function* textChunks(body: ReadableStream<Uint8Array>): AsyncIterable<string> {
  const decoder = new TextDecoder();
  try {
    for await (const chunk of body) {
      yield decoder.decode(chunk, { stream: true });
    }
  } catch (error) {
    throw new AcmctlError(EXIT.UNREACHABLE, `the runtime's answer was cut off: ${networkReason(error)}`);
  }
  yield decoder.decode();
}

function parseBody(text: string, contentType: string | null): unknown {
  if (text === '') {
    return null;
  }
  if (contentType?.includes('json')) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

/** fetch hides the cause (ECONNREFUSED, ENOTFOUND, ...) one level down. */
function networkReason(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as Error & { cause?: unknown }).cause;
    if (cause instanceof Error) {
      const code = (cause as Error & { code?: string }).code;
      return code ? `${code} (${cause.message})` : cause.message;
    }
    return error.message;
  }
  return String(error);
}

/** The runtime's `errorDetails` (ONAP's error body), or the raw body when it sent something else. */
export function errorDetails(body: unknown): string {
  if (typeof body === 'object' && body !== null && 'errorDetails' in body) {
    return String(body.errorDetails);
  }
  return typeof body === 'string' ? body : JSON.stringify(body);
}

function refusal(method: string, path: string, status: number, body: unknown): AcmctlError {
  const heading = `${method} ${API_PATH}${path} answered ${status}`;
  const message = `${heading}\n${errorDetails(body)
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n')}`;
  if (status === 401 || status === 403) {
    return new AcmctlError(EXIT.UNAUTHORIZED, message);
  }
  return new AcmctlError(status >= 500 ? EXIT.SERVER_ERROR : EXIT.REFUSED, message);
}
