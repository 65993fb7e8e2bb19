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

  /** Times every request; the route template (not the raw URL) keeps the label set small. */
  middleware() {
    return (request: Request, response: Response, next: NextFunction): void => {
      const end = this.httpRequests.startTimer();
      response.on('finish', () => {
        const route = (request.route as { path?: string } | undefined)?.path;
        const status = response.statusCode;
        end({
          method: request.method,
          uri: route ?? 'UNKNOWN',
          status: String(status),
          outcome: status < 400 ? 'SUCCESS' : status < 500 ? 'CLIENT_ERROR' : 'SERVER_ERROR',
        });
      });
      next();
    };
  }
}
