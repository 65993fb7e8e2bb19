/**
 * A small HTTP/1.1 client (node:http, keep-alive) for the runtime's REST API. Each call returns its
 * status, parsed body and client-side duration, measured from the request's start to the last byte.
 */
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';

export interface HttpResult<T = unknown> {
  status: number;
  body: T;
  ms: number;
}

export interface RequestRecord {
  label: string;
  status: number;
  ms: number;
}

const REQUEST_TIMEOUT_MS = 60_000;

export class HttpClient {
  private readonly agent: Agent;
  private readonly authorization: string;
  /** When set, every request is appended here (the S3P benchmark counts them). */
  records: RequestRecord[] | null = null;

  constructor(
    private readonly baseUrl: string,
    user: string,
    password: string,
    maxSockets = 64,
  ) {
    this.agent = new Agent({ keepAlive: true, maxSockets });
    this.authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  }

  get<T = unknown>(path: string, label = 'GET'): Promise<HttpResult<T>> {
    return this.send<T>('GET', path, undefined, undefined, label);
  }

  delete<T = unknown>(path: string, label = 'DELETE'): Promise<HttpResult<T>> {
    return this.send<T>('DELETE', path, undefined, undefined, label);
  }

  put<T = unknown>(path: string, body: unknown, label = 'PUT'): Promise<HttpResult<T>> {
    return this.send<T>('PUT', path, JSON.stringify(body), 'application/json', label);
  }

  post<T = unknown>(path: string, body: string, contentType: string, label = 'POST'): Promise<HttpResult<T>> {
    return this.send<T>('POST', path, body, contentType, label);
  }

  close(): void {
    this.agent.destroy();
  }

  private send<T>(
    method: string,
    path: string,
    body: string | undefined,
    contentType: string | undefined,
    label: string,
  ): Promise<HttpResult<T>> {
    const url = new URL(path, this.baseUrl);
    const headers: Record<string, string> = { Authorization: this.authorization, Accept: 'application/json' };
    if (body !== undefined) {
      headers['Content-Type'] = contentType ?? 'application/json';
      headers['Content-Length'] = String(Buffer.byteLength(body));
    }
    return new Promise<HttpResult<T>>((resolve, reject) => {
      const start = performance.now();
      const req = request(
        { hostname: url.hostname, port: url.port, path: url.pathname + url.search, method, headers, agent: this.agent },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const ms = performance.now() - start;
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown = text;
            if (text !== '' && (res.headers['content-type'] ?? '').includes('json')) {
              try {
                parsed = JSON.parse(text);
              } catch {
                parsed = text;
              }
            }
            const status = res.statusCode ?? 0;
            this.records?.push({ label, status, ms });
            resolve({ status, body: parsed as T, ms });
          });
        },
      );
      req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error(`${method} ${path}: no answer in 60 s`)));
      req.on('error', (error) => {
        this.records?.push({ label, status: 0, ms: performance.now() - start });
        reject(error);
      });
      req.end(body);
    });
  }
}
