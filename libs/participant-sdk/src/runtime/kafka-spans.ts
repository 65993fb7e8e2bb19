/**
 * The participant's Kafka spans, named and tagged as OpenTelemetry's messaging conventions (and so ONAP's
 * participants, through the Kafka client instrumentation) name them: `<topic> process` for an order handled,
 * `<topic> publish` for an ACK sent, with `messaging.system=kafka`, `messaging.destination.name` and the operation.
 * With tracing off the API's tracer is a no-op and these spans cost nothing.
 */
import { contextFromHeaders, traceHeaders } from '@acm/messaging';
import type { IncomingRecord } from '@acm/messaging';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import type { Attributes } from '@opentelemetry/api';

function tracer() {
  return trace.getTracer('acm-participant-sdk');
}

/** The attributes of a Kafka span; `messaging.operation` is the older name of `messaging.operation.type`. */
export function kafkaAttributes(topic: string, operation: 'process' | 'publish', messageType: string): Attributes {
  return {
    'messaging.system': 'kafka',
    'messaging.destination.name': topic,
    'messaging.operation': operation,
    'messaging.operation.type': operation,
    'messaging.operation.name': operation,
    'acm.message_type': messageType,
  };
}

/**
 * Runs the handling of an order in a CONSUMER span `<topic> process`, a child of the record's `traceparent` (the
 * runtime's phase span) when it carries one, so element handlers started from it are its children.
 */
export async function inProcessSpan<T>(
  record: IncomingRecord,
  messageType: string,
  work: () => Promise<T>,
): Promise<T> {
  const parent = contextFromHeaders(record.headers);
  const span = tracer().startSpan(
    `${record.topic} process`,
    {
      kind: SpanKind.CONSUMER,
      attributes: {
        ...kafkaAttributes(record.topic, 'process', messageType),
        'messaging.destination.partition.id': String(record.partition),
        'messaging.kafka.offset': record.offset,
      },
    },
    parent,
  );
  try {
    return await context.with(trace.setSpan(parent, span), work);
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
    throw error;
  } finally {
    span.end();
  }
}

/**
 * Sends a record in a PRODUCER span `<topic> publish`, a child of the context `headers` carry (an element handler's
 * span); the record then carries the publish span's context, so the runtime's applying of it continues from there.
 * A record without trace headers is sent as it is, in no span.
 */
export async function inPublishSpan(
  topic: string,
  messageType: string,
  headers: Record<string, string>,
  send: (headers: Record<string, string>) => Promise<void>,
): Promise<void> {
  if (Object.keys(headers).length === 0) {
    return send(headers);
  }
  const span = tracer().startSpan(
    `${topic} publish`,
    { kind: SpanKind.PRODUCER, attributes: kafkaAttributes(topic, 'publish', messageType) },
    contextFromHeaders(headers, ROOT_CONTEXT),
  );
  try {
    await send({ ...headers, ...traceHeaders(span) });
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
    throw error;
  } finally {
    span.end();
  }
}
