import { contextFromHeaders } from '@acm/messaging';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import type { Span } from '@opentelemetry/api';
import type { NextFunction, Request, Response } from 'express';
import { uriLabel } from './route-label';

const SPAN = Symbol('acm.http.span');

type Traced = Response & { [SPAN]?: Span };

/**
 * One SERVER span per request, named as ONAP's Spring runtime names it (`http put /v2/compositions/{compositionId}`),
 * the route in ONAP's `{param}` form also in the tags `uri` and `http.route`, with the status and the
 * X-ONAP-RequestID. Started as soon as the request id is settled, so refusals are traced; continues a `traceparent`
 * the client sent. Only mounted when tracing is on.
 */
export function startRequestSpan(contextPath: string) {
  return (request: Request, response: Response, next: NextFunction): void => {
    const span = trace.getTracer('acm-runtime').startSpan(
      `${request.method}`,
      {
        kind: SpanKind.SERVER,
        attributes: { 'http.request.method': request.method, 'url.path': request.path },
      },
      contextFromHeaders(headersOf(request), ROOT_CONTEXT),
    );
    (response as Traced)[SPAN] = span;
    response.on('finish', () => {
      const route = (request.route as { path?: unknown } | undefined)?.path;
      const status = response.statusCode;
      const template = uriLabel(typeof route === 'string' ? route : undefined, status, contextPath);
      // Named and tagged as ONAP's Spring runtime does ("http put /v2/compositions/{compositionId}", tag uri: the
      // http.server.requests observation), so ONAP's trace queries find it; the semantic attributes stay beside.
      span.updateName(springSpanName(request.method, template));
      span.setAttribute('uri', template);
      span.setAttribute('method', request.method);
      span.setAttribute('status', String(status));
      span.setAttribute('outcome', outcomeOf(status));
      span.setAttribute('http.route', template);
      span.setAttribute('http.response.status_code', status);
      const requestId = response.getHeader('X-ONAP-RequestID');
      if (typeof requestId === 'string') {
        span.setAttribute('http.request.header.x-onap-requestid', [requestId]);
      }
      if (status >= 500) {
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    });
    next();
  };
}

/** Spring's name of an HTTP server span: `http <method in lower case> <uri template>`. */
export function springSpanName(method: string, template: string): string {
  return `http ${method.toLowerCase()} ${template}`;
}

/** Spring's `outcome` tag: the status's class. */
export function outcomeOf(status: number): string {
  if (status < 100 || status >= 600) {
    return 'UNKNOWN';
  }
  if (status < 200) {
    return 'INFORMATIONAL';
  }
  if (status < 300) {
    return 'SUCCESS';
  }
  if (status < 400) {
    return 'REDIRECTION';
  }
  if (status < 500) {
    return 'CLIENT_ERROR';
  }
  return 'SERVER_ERROR';
}

/**
 * Makes the request's span the active one for everything its handler does (services, engine, store, log lines).
 * Mounted after the body is read: a stream's callbacks run outside the context the request started in.
 */
export function activateRequestSpan(request: Request, response: Response, next: NextFunction): void {
  const span = (response as Traced)[SPAN];
  if (span === undefined) {
    next();
    return;
  }
  context.with(trace.setSpan(context.active(), span), next);
}

/** The ids of the request's span for its log line (written on 'finish', outside the request's context). */
export function requestTraceIds(response: Response): { traceId?: string; spanId?: string } {
  const span = (response as Traced)[SPAN]?.spanContext();
  return span === undefined ? {} : { traceId: span.traceId, spanId: span.spanId };
}

function headersOf(request: Request): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of ['traceparent', 'tracestate']) {
    const value = request.headers[name];
    if (typeof value === 'string') {
      headers[name] = value;
    }
  }
  return headers;
}
