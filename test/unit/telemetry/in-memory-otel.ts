// An OpenTelemetry SDK registered for one test: spans kept in memory, metrics read on demand, the
// W3C propagator and the async-local context manager a real deployment has. Unregistered after,
// so the next test starts with the API's no-ops again.
import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { node, tracing } from '@opentelemetry/sdk-node';
import { MeterProvider, MetricReader, type ResourceMetrics } from '@opentelemetry/sdk-metrics';

export interface InMemoryOtel {
  readonly spans: () => tracing.ReadableSpan[];
  readonly span: (name: string) => tracing.ReadableSpan;
  readonly metrics: () => Promise<ResourceMetrics>;
  readonly stop: () => Promise<void>;
}

/**
 * Registers an SDK globally (tracer provider with `spanProcessor`, async-local context, W3C
 * propagator; meter provider with `reader`); the result unregisters it (the bench uses it too).
 */
export function registerOtelSdk(spanProcessor: tracing.SpanProcessor, reader: MetricReader): () => Promise<void> {
  const provider = new node.NodeTracerProvider({ spanProcessors: [spanProcessor] });
  provider.register();
  const meters = new MeterProvider({ readers: [reader] });
  metrics.setGlobalMeterProvider(meters);
  return async () => {
    await provider.shutdown();
    await meters.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
    metrics.disable();
  };
}

/** A metric reader read by hand (or never). */
export class TestReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

/** Registers the SDK globally, spans kept in memory; `stop()` unregisters it. */
export function startInMemoryOtel(): InMemoryOtel {
  const exporter = new tracing.InMemorySpanExporter();
  const reader = new TestReader();
  const stop = registerOtelSdk(new tracing.SimpleSpanProcessor(exporter), reader);
  const spans = (): tracing.ReadableSpan[] => exporter.getFinishedSpans();
  return {
    spans,
    span: (name) => {
      const found = spans().find((s) => s.name === name);
      if (!found) throw new Error(`no span '${name}' among ${spans().map((s) => s.name).join(', ')}`);
      return found;
    },
    metrics: async () => (await reader.collect()).resourceMetrics,
    stop,
  };
}

/** A W3C traceparent for a trace and span id of the test's choosing (sampled). */
export const traceparentOf = (traceId: string, spanId: string): string => `00-${traceId}-${spanId}-01`;
