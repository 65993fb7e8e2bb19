import type { IncomingRecord } from '@acm/messaging';
import { recordSpans } from '@acm/messaging/testing';
import { trace } from '@opentelemetry/api';
import { inTraceOfRecords } from './inbound-traces';

const spans = recordSpans();
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

const record = (value: string, headers: Record<string, string> = {}): IncomingRecord => ({
  topic: 'policy-acruntime-participant',
  partition: 0,
  offset: '0',
  key: null,
  value,
  timestamp: '0',
  headers,
});
const parent = (spanId: string) => ({ traceparent: `00-${TRACE_ID}-${spanId}-01` });
const ours = (value: string) => value.includes('ACK');

describe(inTraceOfRecords.name, () => {
  beforeEach(() => spans.reset());

  it('applies a batch in a child span of its first traced ACK, linked to the others', async () => {
    let active: string | undefined;
    await inTraceOfRecords(
      [record('STATUS'), record('ACK-1', parent('00f067aa0ba902b7')), record('ACK-2', parent('00f067aa0ba902b8'))],
      (each) => ours(each.value),
      () => {
        active = trace.getActiveSpan()?.spanContext().spanId;
        return Promise.resolve();
      },
    );
    const span = spans.one('apply participant messages');
    expect(span.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
    expect(span.links.map((link) => link.context.spanId)).toEqual(['00f067aa0ba902b8']);
    expect(span.attributes['messaging.batch.message_count']).toBe(3);
    expect(active).toBe(span.spanContext().spanId);
  });

  it('opens no span for a batch without a traceparent (ONAP participants), nor for the runtime’s own orders', async () => {
    await inTraceOfRecords(
      [record('ACK')],
      (each) => ours(each.value),
      () => Promise.resolve(),
    );
    await inTraceOfRecords(
      [record('DEPLOY', parent('00f067aa0ba902b7'))],
      (each) => ours(each.value),
      () => Promise.resolve(),
    );
    await inTraceOfRecords(
      [record('ACK', { traceparent: 'garbage' })],
      (each) => ours(each.value),
      () => Promise.resolve(),
    );
    expect(spans.spans()).toEqual([]);
  });

  it('marks the span failed when applying fails, and rethrows', async () => {
    await expect(
      inTraceOfRecords(
        [record('ACK', parent('00f067aa0ba902b7'))],
        (each) => ours(each.value),
        () => Promise.reject(new Error('deadlock detected')),
      ),
    ).rejects.toThrow('deadlock detected');
    expect(spans.one('apply participant messages').status).toEqual({ code: 2, message: 'deadlock detected' });
  });
});
