import { uriLabel } from '../observability/route-label';
import type { NextFunction, Request, Response } from 'express';
import { Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The runtime's Prometheus registry: process metrics plus ONAP's http_server_requests_seconds. */
export class RuntimeMetrics {
  readonly registry = new Registry();
  readonly httpRequests: Histogram<'method' | 'uri' | 'status' | 'outcome'>;

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    this.httpRequests = new Histogram({
      name: 'http_server_requests_seconds',
      help: 'REST request duration, by method, route template and status',
      labelNames: ['method', 'uri', 'status', 'outcome'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [this.registry],
    });
  }

  /**
   * Times every request, labelled as Spring Boot labels ONAP's: `uri` is the route template relative to the context
   * path with `{name}` placeholders, so ONAP's dashboards and queries find the same series.
   */
  middleware(contextPath: string) {
    return (request: Request, response: Response, next: NextFunction): void => {
      const end = this.httpRequests.startTimer();
      response.on('finish', () => {
        const route = (request.route as { path?: unknown } | undefined)?.path;
        const status = response.statusCode;
        end({
          method: request.method,
          uri: uriLabel(typeof route === 'string' ? route : undefined, status, contextPath),
          status: String(status),
          outcome: outcomeLabel(status),
        });
      });
      next();
    };
  }
}

/** Spring's outcome: SUCCESS for 2xx, else the status series (INFORMATIONAL, REDIRECTION, CLIENT_ERROR, SERVER_ERROR). */
export function outcomeLabel(status: number): string {
  if (status >= 200 && status < 300) {
    return 'SUCCESS';
  }
  if (status >= 100 && status < 200) {
    return 'INFORMATIONAL';
  }
  if (status >= 300 && status < 400) {
    return 'REDIRECTION';
  }
  if (status >= 400 && status < 500) {
    return 'CLIENT_ERROR';
  }
  return status >= 500 && status < 600 ? 'SERVER_ERROR' : 'UNKNOWN';
}
