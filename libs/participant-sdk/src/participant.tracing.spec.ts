import { DEFAULT_TOPICS } from '@acm/contracts';
import type { IncomingRecord } from '@acm/messaging';
import { recordSpans } from '@acm/messaging/testing';
import { deployOrder } from '@acm/participant-sdk/testing';
import { trace } from '@opentelemetry/api';

import {
  base,
  closeHarnesses,
  E0,
  el0,
  el1,
  harness,
  INSTANCE,
  mockHandler,
  primed,
} from './testing/participant-spec-harness';
import type { Harness } from './testing/participant-spec-harness';

afterEach(closeHarnesses);

const spans = recordSpans();
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PHASE_SPAN = '00f067aa0ba902b7';

/** Sends a phase-0 deploy of E0 with `headers`, and resolves with the raw record of its ACK. */
async function deployWith(h: Harness, headers: Record<string, string>): Promise<IncomingRecord> {
  const acks: IncomingRecord[] = [];
  await h.bus.subscribe({
    topic: DEFAULT_TOPICS.operation,
    groupId: 'tracing-spec-reader',
    handler: (record) => {
      if (record.value.includes('AUTOMATION_COMPOSITION_STATECHANGE_ACK')) {
        acks.push(record);
      }
      return Promise.resolve();
    },
  });
  const order = deployOrder({ ...base, instanceId: INSTANCE, elements: [el0, el1], startPhase: 0 });
  await h.bus.publish(DEFAULT_TOPICS.operation, [{ key: null, value: JSON.stringify(order), headers }]);
  await h.runtime.waitFor('AUTOMATION_COMPOSITION_STATECHANGE_ACK', (ack) => ack.responseTo === order.messageId);
  for (;;) {
    const ack = acks.find((record) => record.value.includes(order.messageId));
    if (ack !== undefined) {
      return ack;
    }
    // The reader's group gets the record after the scripted runtime's: let the bus deliver it.
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('Participant: W3C trace context across Kafka', () => {
  beforeEach(() => spans.reset());

  it("runs each element handler in a child span of the order's traceparent and answers with the handler's context", async () => {
    const handler = mockHandler();
    let activeInHandler: string | undefined;
    handler.deploy.mockImplementation(() => {
      activeInHandler = trace.getActiveSpan()?.spanContext().spanId;
      return { ok: true };
    });
    const h = await harness(handler);
    await primed(h);

    const ack = await deployWith(h, {
      traceparent: `00-${TRACE_ID}-${PHASE_SPAN}-01`,
      tracestate: 'acm=1111111111111111',
    });

    const span = spans.one('element deploy');
    expect(span.spanContext().traceId).toBe(TRACE_ID);
    expect(span.parentSpanContext?.spanId).toBe(PHASE_SPAN);
    expect(span.attributes).toMatchObject({ 'acm.instance_id': INSTANCE, 'acm.element_id': E0, 'acm.result': true });
    expect(activeInHandler).toBe(span.spanContext().spanId);
    expect(ack.headers).toEqual({
      traceparent: `00-${TRACE_ID}-${span.spanContext().spanId}-01`,
      tracestate: 'acm=1111111111111111',
    });
  });

  it('starts a trace of its own at the handler for an order without a header (an ONAP runtime)', async () => {
    const h = await harness(mockHandler());
    await primed(h);

    const ack = await deployWith(h, {});

    const span = spans.one('element deploy');
    expect(span.parentSpanContext).toBeUndefined();
    expect(ack.headers['traceparent']).toBe(`00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`);
  });

  it.each([
    ['garbage', 'not a traceparent'],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-${PHASE_SPAN}-01`],
    ['a short span id', `00-${TRACE_ID}-00f067-01`],
    ['version ff', `ff-${TRACE_ID}-${PHASE_SPAN}-01`],
  ])(
    'ignores a malformed traceparent (%s): the handler runs as for an order without one',
    async (_what, traceparent) => {
      const handler = mockHandler();
      const h = await harness(handler);
      await primed(h);

      await deployWith(h, { traceparent });

      expect(handler.deploy).toHaveBeenCalledTimes(1);
      const span = spans.one('element deploy');
      expect(span.parentSpanContext).toBeUndefined();
      expect(span.spanContext().traceId).not.toBe(TRACE_ID);
    },
  );
});
