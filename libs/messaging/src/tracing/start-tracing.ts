import type { TracingSettings } from './tracing-config';

/** The running SDK: flushes and stops it (a process calls it last, so the spans of its final work are exported). */
export interface Tracing {
  shutdown(): Promise<void>;
}

/**
 * Registers the OpenTelemetry SDK as the global tracer provider, context manager (AsyncLocalStorage) and
 * propagator. The SDK and the exporter are loaded here, with `import()`, and only when tracing is on: a process
 * with tracing off loads `@opentelemetry/api` alone, whose no-op tracer costs nothing. No instrumentation hooks
 * `require`: the spans are the ones the code starts.
 */
export async function startTracing(settings: TracingSettings): Promise<Tracing> {
  const [node, base, resources, semconv, core] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/semantic-conventions'),
    import('@opentelemetry/core'),
  ]);
  const exporter =
    settings.exporter === 'console'
      ? new base.ConsoleSpanExporter()
      : settings.otlpProtocol === 'http/json'
        ? new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter({ url: settings.otlpUrl })
        : new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter({ url: settings.otlpUrl });
  const ratio = new base.TraceIdRatioBasedSampler(settings.samplerRatio);
  const sampler = {
    always_on: new base.AlwaysOnSampler(),
    always_off: new base.AlwaysOffSampler(),
    traceidratio: ratio,
    parentbased_always_on: new base.ParentBasedSampler({ root: new base.AlwaysOnSampler() }),
    parentbased_always_off: new base.ParentBasedSampler({ root: new base.AlwaysOffSampler() }),
    parentbased_traceidratio: new base.ParentBasedSampler({ root: ratio }),
  }[settings.sampler];
  const provider = new node.NodeTracerProvider({
    resource: resources.resourceFromAttributes({ [semconv.ATTR_SERVICE_NAME]: settings.serviceName }),
    sampler,
    spanProcessors: [new base.BatchSpanProcessor(exporter, { scheduledDelayMillis: settings.scheduleDelayMs })],
  });
  const propagators = settings.propagators.map((name) =>
    name === 'tracecontext' ? new core.W3CTraceContextPropagator() : new core.W3CBaggagePropagator(),
  );
  provider.register({
    propagator: propagators.length === 0 ? null : new core.CompositePropagator({ propagators }),
  });
  return { shutdown: () => provider.shutdown() };
}
