import { ROOT_CONTEXT, context, trace } from '@opentelemetry/api';
import { recordSpans } from '../testing';
import { contextFromHeaders, spanContextFromHeaders, traceHeaders } from './trace-headers';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN_ID = '00f067aa0ba902b7';

describe('W3C trace headers', () => {
  recordSpans();

  it('carries a span to the headers and back as its remote parent, tracestate included', () => {
    const span = trace.getTracer('spec').startSpan('work');
    const headers = context.with(trace.setSpan(ROOT_CONTEXT, span), () => traceHeaders());
    expect(headers).toEqual({ traceparent: `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01` });
    expect(traceHeaders(span)).toEqual(headers);
    span.end();

    const received = spanContextFromHeaders({ ...headers, tracestate: 'acm=1111111111111111' });
    expect(received).toMatchObject({
      traceId: span.spanContext().traceId,
      spanId: span.spanContext().spanId,
      isRemote: true,
    });
    expect(received?.traceState?.get('acm')).toBe('1111111111111111');
  });

  it('continues an incoming traceparent in a child span', () => {
    const parent = contextFromHeaders({ traceparent: `00-${TRACE_ID}-${SPAN_ID}-01` }, ROOT_CONTEXT);
    const child = trace.getTracer('spec').startSpan('child', {}, parent);
    expect(child.spanContext().traceId).toBe(TRACE_ID);
    expect(traceHeaders(child)['traceparent']).toBe(`00-${TRACE_ID}-${child.spanContext().spanId}-01`);
    child.end();
  });

  it('gives no headers outside a span, and no context for absent headers', () => {
    expect(traceHeaders(ROOT_CONTEXT)).toEqual({});
    expect(contextFromHeaders(undefined, ROOT_CONTEXT)).toBe(ROOT_CONTEXT);
    expect(spanContextFromHeaders({})).toBeUndefined();
    expect(spanContextFromHeaders(undefined)).toBeUndefined();
  });

  it.each([
    'garbage',
    `00-${'0'.repeat(32)}-${SPAN_ID}-01`,
    `00-${TRACE_ID}-${'0'.repeat(16)}-01`,
    `00-${TRACE_ID}-${SPAN_ID}`,
    `00-${TRACE_ID.toUpperCase()}x-${SPAN_ID}-01`,
    `ff-${TRACE_ID}-${SPAN_ID}-01`,
  ])('ignores the malformed traceparent %j', (traceparent) => {
    expect(spanContextFromHeaders({ traceparent })).toBeUndefined();
    expect(trace.getSpanContext(contextFromHeaders({ traceparent }, ROOT_CONTEXT))).toBeUndefined();
  });
});
