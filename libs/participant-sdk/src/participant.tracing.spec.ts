import { DEFAULT_TOPICS } from '@acm/contracts';
import type { IncomingRecord } from '@acm/messaging';
import { recordSpans } from '@acm/messaging/testing';
import { deployOrder } from '@acm/participant-sdk/testing';
import { trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';

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

const PROCESS = `${DEFAULT_TOPICS.operation} process`;
const PUBLISH = `${DEFAULT_TOPICS.operation} publish`;

/** The finished span named `name` that `matches`, once it ended (a publish span ends after its record is handed over). */
async function finished(name: string, matches: (span: ReadableSpan) => boolean): Promise<ReadableSpan> {
  for (let turn = 0; turn < 1000; turn += 1) {
    const found = spans.spans().find((span) => span.name === name && matches(span));
    if (found !== undefined) {
      return found;
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(
    `no span ${name}: ${spans
      .spans()
      .map((span) => span.name)
      .join(', ')}`,
  );
}

const deployProcessed = (span: ReadableSpan): boolean =>
  span.attributes['acm.message_type'] === 'AUTOMATION_COMPOSITION_DEPLOY';

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

    // phase (runtime) → "<topic> process" → "element deploy" → "<topic> publish" → the ACK's traceparent.
    const processed = await finished(PROCESS, deployProcessed);
    expect(processed.spanContext().traceId).toBe(TRACE_ID);
    expect(processed.parentSpanContext?.spanId).toBe(PHASE_SPAN);
    expect(processed.attributes).toMatchObject({
      'messaging.system': 'kafka',
      'messaging.destination.name': DEFAULT_TOPICS.operation,
      'messaging.operation': 'process',
      'messaging.operation.type': 'process',
    });
    const span = spans.one('element deploy');
    expect(span.spanContext().traceId).toBe(TRACE_ID);
    expect(span.parentSpanContext?.spanId).toBe(processed.spanContext().spanId);
    expect(span.attributes).toMatchObject({ 'acm.instance_id': INSTANCE, 'acm.element_id': E0, 'acm.result': true });
    expect(activeInHandler).toBe(span.spanContext().spanId);
    const published = await finished(PUBLISH, (each) => each.parentSpanContext?.spanId === span.spanContext().spanId);
    expect(published.attributes).toMatchObject({
      'messaging.system': 'kafka',
      'messaging.destination.name': DEFAULT_TOPICS.operation,
      'messaging.operation': 'publish',
      'acm.message_type': 'AUTOMATION_COMPOSITION_STATECHANGE_ACK',
    });
    expect(ack.headers).toEqual({
      traceparent: `00-${TRACE_ID}-${published.spanContext().spanId}-01`,
      tracestate: 'acm=1111111111111111',
    });
  });

  it('starts a trace of its own at the handler for an order without a header (an ONAP runtime)', async () => {
    const h = await harness(mockHandler());
    await primed(h);

    const ack = await deployWith(h, {});

    const processed = await finished(PROCESS, deployProcessed);
    expect(processed.parentSpanContext).toBeUndefined();
    const span = spans.one('element deploy');
    expect(span.parentSpanContext?.spanId).toBe(processed.spanContext().spanId);
    const published = await finished(PUBLISH, (each) => each.parentSpanContext?.spanId === span.spanContext().spanId);
    expect(ack.headers['traceparent']).toBe(`00-${span.spanContext().traceId}-${published.spanContext().spanId}-01`);
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
      const processed = await finished(PROCESS, deployProcessed);
      expect(processed.parentSpanContext).toBeUndefined();
      expect(spans.one('element deploy').spanContext().traceId).not.toBe(TRACE_ID);
    },
  );
});
