import { ROOT_CONTEXT, context, propagation, trace } from '@opentelemetry/api';
import type { Context, Span, SpanContext } from '@opentelemetry/api';

/**
 * W3C trace context in record headers (`traceparent`, `tracestate`), as ONAP's runtime and participants carry it on
 * Kafka. With tracing off no propagator is registered and both functions do nothing; a header that is absent or
 * malformed leaves the context as it was (the W3C propagator ignores what it cannot parse).
 */

/** The context `headers` continue, on top of `base` (the active context by default). */
export function contextFromHeaders(
  headers: Readonly<Record<string, string>> | undefined,
  base: Context = context.active(),
): Context {
  return headers === undefined ? base : propagation.extract(base, headers);
}

/** The headers that carry `of` (a context, or a span's own context) to another process; empty when there is none. */
export function traceHeaders(of: Context | Span = context.active()): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(isSpan(of) ? trace.setSpan(context.active(), of) : of, carrier);
  return carrier;
}

/** The span context `headers` carry when they carry a valid one (for span links). */
export function spanContextFromHeaders(headers: Readonly<Record<string, string>> | undefined): SpanContext | undefined {
  const found = trace.getSpanContext(contextFromHeaders(headers, ROOT_CONTEXT));
  return found !== undefined && found.isRemote === true && trace.isSpanContextValid(found) ? found : undefined;
}

function isSpan(of: Context | Span): of is Span {
  return typeof (of as Partial<Span>).spanContext === 'function';
}
