import { spanContextFromHeaders } from '@acm/messaging';
import type { IncomingRecord } from '@acm/messaging';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import type { SpanContext } from '@opentelemetry/api';

/**
 * Runs the applying of a batch of participant records in one CONSUMER span when any of them carries a W3C
 * `traceparent` (an ACK of a traced element handler): a child of the first such record's context, linked to the
 * others'. Only records `forUs` count (the runtime reads its own orders on the shared topic too). A batch without one (ONAP participants, heartbeats, tracing off) runs exactly as before, in no span.
 */
export async function inTraceOfRecords<T>(
  records: readonly IncomingRecord[],
  forUs: (record: IncomingRecord) => boolean,
  work: () => Promise<T>,
): Promise<T> {
  const contexts = records
    .filter((record) => record.headers['traceparent'] !== undefined && forUs(record))
    .map((record) => spanContextFromHeaders(record.headers))
    .filter((found): found is SpanContext => found !== undefined);
  const [parent, ...others] = contexts;
  if (parent === undefined) {
    return work();
  }
  const span = trace.getTracer('acm-runtime').startSpan(
    'apply participant messages',
    {
      kind: SpanKind.CONSUMER,
      links: others.map((linked) => ({ context: linked })),
      attributes: {
        'messaging.system': 'kafka',
        'messaging.destination.name': records[0]?.topic ?? '',
        'messaging.batch.message_count': records.length,
      },
    },
    trace.setSpanContext(ROOT_CONTEXT, parent),
  );
  try {
    return await context.with(trace.setSpan(ROOT_CONTEXT, span), work);
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
    throw error;
  } finally {
    span.end();
  }
}
