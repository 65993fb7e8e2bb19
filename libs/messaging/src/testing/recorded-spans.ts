import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';

/** Spans finished in this test file's process, as `startTracing` would set the globals up, kept in memory. */
export interface RecordedSpans {
  /** The finished spans, in the order they ended. */
  spans(): ReadableSpan[];
  /** The one finished span named `name` (fails when there are none or several). */
  one(name: string): ReadableSpan;
  reset(): void;
}

let recorded: RecordedSpans | undefined;

/** Registers an in-memory tracer provider, the AsyncLocalStorage context manager and the W3C propagator, once. */
export function recordSpans(): RecordedSpans {
  if (recorded !== undefined) {
    return recorded;
  }
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  trace.setGlobalTracerProvider(provider);
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  recorded = {
    spans: () => exporter.getFinishedSpans(),
    one: (name) => {
      const found = exporter.getFinishedSpans().filter((span) => span.name === name);
      if (found.length !== 1) {
        throw new Error(
          `Expected one span "${name}", found ${found.length}: ${exporter
            .getFinishedSpans()
            .map((s) => s.name)
            .join(', ')}`,
        );
      }
      return found[0]!;
    },
    reset: () => exporter.reset(),
  };
  return recorded;
}
