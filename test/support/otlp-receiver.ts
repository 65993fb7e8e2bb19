import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as an OTLP/HTTP JSON export carries it, with the service that sent it. */
export interface ReceivedSpan {
  readonly service: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  readonly attributes: Record<string, unknown>;
}

interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
}

interface KeyValue {
  key: string;
  value: AnyValue;
}

interface ExportRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: Array<{
      spans?: Array<{ traceId: string; spanId: string; parentSpanId?: string; name: string; attributes?: KeyValue[] }>;
    }>;
  }>;
}

function valueOf(value: AnyValue): unknown {
  if (value.arrayValue !== undefined) {
    return (value.arrayValue.values ?? []).map(valueOf);
  }
  return (
    value.stringValue ??
    (value.intValue === undefined ? undefined : Number(value.intValue)) ??
    value.boolValue ??
    value.doubleValue
  );
}

function attributesOf(list: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((entry) => [entry.key, valueOf(entry.value)]));
}

/**
 * A tiny OTLP/HTTP receiver for `OTEL_EXPORTER_OTLP_PROTOCOL=http/json` (what a collector's otlphttp receiver
 * accepts at /v1/traces): the processes under test export their spans to it, the test reads them.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  private server: Server | null = null;

  async start(): Promise<string> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        if (request.method !== 'POST' || request.url !== '/v1/traces') {
          response.writeHead(404).end();
          return;
        }
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ExportRequest;
        for (const resourceSpans of body.resourceSpans ?? []) {
          const service = attributesOf(resourceSpans.resource?.attributes)['service.name'];
          for (const scope of resourceSpans.scopeSpans ?? []) {
            for (const span of scope.spans ?? []) {
              this.spans.push({
                service: typeof service === 'string' ? service : '',
                traceId: span.traceId,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId ?? '',
                name: span.name,
                attributes: attributesOf(span.attributes),
              });
            }
          }
        }
        response.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (server !== null) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }
}
