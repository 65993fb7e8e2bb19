import { context, propagation, trace } from '@opentelemetry/api';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTracing } from './start-tracing';
import type { TracingSettings } from './tracing-config';

interface Export {
  readonly contentType: string | undefined;
  readonly body: Buffer;
}

/** An OTLP/HTTP endpoint that keeps what it is sent. */
async function collector(): Promise<{ url: string; exports: Export[]; server: Server }> {
  const exports: Export[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      exports.push({ contentType: request.headers['content-type'], body: Buffer.concat(chunks) });
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`, exports, server };
}

const settings = (otlpUrl: string, otlpProtocol: TracingSettings['otlpProtocol']): TracingSettings => ({
  serviceName: `svc-${otlpProtocol.replace('/', '-')}`,
  exporter: 'otlp',
  otlpUrl,
  otlpProtocol,
  sampler: 'parentbased_always_on',
  samplerRatio: 1,
  propagators: ['tracecontext'],
  scheduleDelayMs: 10,
});

describe(startTracing.name, () => {
  afterEach(() => {
    trace.disable();
    context.disable();
    propagation.disable();
  });

  // The export itself is shown by test/e2e/tracing.e2e-spec.ts in real processes: under Jest's CommonJS mode the
  // exporter's own lazy import() of its HTTP agent fails, so here nothing is exported (sampler always_off).
  it.each(['http/protobuf', 'http/json'] as const)(
    'registers the provider, its exporter (%s) and the W3C propagator',
    async (protocol) => {
      const tracing = await startTracing({
        ...settings('http://127.0.0.1:9/v1/traces', protocol),
        sampler: 'always_off',
      });
      const span = trace.getTracer('spec').startSpan('work');
      const headers: Record<string, string> = {};
      propagation.inject(trace.setSpan(context.active(), span), headers);
      span.end();
      await tracing.shutdown();

      expect(trace.isSpanContextValid(span.spanContext())).toBe(true);
      expect(span.isRecording()).toBe(false);
      expect(headers['traceparent']).toBe(`00-${span.spanContext().traceId}-${span.spanContext().spanId}-00`);
    },
  );

  it('records nothing with the always_off sampler', async () => {
    const { url, exports, server } = await collector();
    const tracing = await startTracing({ ...settings(url, 'http/json'), sampler: 'always_off' });
    trace.getTracer('spec').startSpan('work').end();
    await tracing.shutdown();
    server.close();
    expect(exports).toEqual([]);
  });
});
