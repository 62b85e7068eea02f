/**
 * The OpenTelemetry seam of the whole project, tracing side: the tracer, the trace context as a
 * plain record (`params._meta` on the wire, a task's record across NATS), and the trace fields of
 * a log line. Only `@opentelemetry/api` is imported: with no SDK registered every call here is a
 * no-op costing a few hundred nanoseconds.
 *
 * Nothing is taken from the API at import time. A tracer or meter fetched before the SDK is
 * registered would be a no-op for ever (the metrics API has no proxy; the trace API's proxy keeps
 * the first provider it found), so each is fetched at use and kept only while the global provider
 * it came from is still the registered one.
 *
 * @module
 */
import { context, createNoopMeter, isSpanContextValid, metrics, propagation, trace, type Context, type Meter, type MeterProvider, type TextMapGetter, type TextMapSetter, type Tracer, type TracerProvider } from '@opentelemetry/api';

/** The instrumentation scope every span and metric of this project is reported under. */
export const INSTRUMENTATION_SCOPE = 'mcp-task-actors';

/**
 * A trace context as plain strings, as the W3C Trace Context and Baggage headers write it: the
 * shape SEP-414 puts in `params._meta`, and the one a task's record keeps.
 *
 * @example
 * ```ts
 * const traceContext: TraceCarrier = { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' };
 * await runtime.create({ taskId, owner, dialect: '2025-11-25', method: 'tools/call', handler: 'report', traceContext });
 * ```
 */
export interface TraceCarrier {
  /** W3C `traceparent`: version, trace id, parent span id, flags. */
  readonly traceparent?: string;
  /** W3C `tracestate`: vendor entries, passed on as they came. */
  readonly tracestate?: string;
  /** W3C `baggage`, when the propagators carry it. */
  readonly baggage?: string;
}

const getter: TextMapGetter<Readonly<Record<string, unknown>>> = {
  keys: (carrier) => Object.keys(carrier),
  // Only strings: `_meta` is the requester's, and a number or object there is no header value.
  get: (carrier, key) => {
    const value = carrier[key];
    return typeof value === 'string' ? value : undefined;
  },
};

const setter: TextMapSetter<Record<string, unknown>> = {
  set: (carrier, key, value) => {
    carrier[key] = value;
  },
};

/**
 * The context a carrier names (its span as the remote parent, its baggage), over `base`; `base`
 * itself when the carrier names none or no propagator is registered.
 *
 * @param carrier - `params._meta`, a stored {@link TraceCarrier}, or anything with string fields
 * @example
 * ```ts
 * const parent = extractTraceContext(request.params._meta);
 * tracer().startSpan('tools/call sleep', { kind: SpanKind.SERVER }, parent);
 * ```
 */
export function extractTraceContext(carrier: TraceCarrier | Readonly<Record<string, unknown>> | undefined, base: Context = context.active()): Context {
  return carrier === undefined ? base : propagation.extract(base, carrier as Readonly<Record<string, unknown>>, getter);
}

/**
 * Writes the trace context of `ctx` (the active one by default) into `target` with the registered
 * propagators (`traceparent`, `tracestate`, `baggage` under W3C). Writes nothing without an SDK.
 *
 * @example
 * ```ts
 * const meta = { ...params._meta };
 * injectTraceContext(meta);
 * ```
 */
export function injectTraceContext(target: Record<string, unknown>, ctx: Context = context.active()): void {
  propagation.inject(ctx, target, setter);
}

/**
 * The trace context of `ctx` (the active one by default) as a {@link TraceCarrier}, or `undefined`
 * when there is none to carry (no SDK, or no span in it).
 *
 * @example
 * ```ts
 * const trace = carrierOf(); // { traceparent: '00-4bf9…-00f0…-01' } inside a span
 * ```
 */
export function carrierOf(ctx: Context = context.active()): TraceCarrier | undefined {
  // No recording span, nothing worth carrying: the common case without an SDK costs one lookup.
  if (trace.getSpan(ctx) === undefined) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier, setter);
  return storableTrace(carrier);
}

/** W3C `traceparent` (version 00 and later versions' leading fields), lower-case hex. */
const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}(-.*)?$/;

/** The longest `tracestate` kept with a task: W3C asks propagators to pass on at least 512 characters. */
export const MAX_KEPT_TRACESTATE = 512;

/**
 * What of a trace context is kept with a task (in every record write on NATS, and passed to the
 * node that runs it): a well-formed `traceparent` and a `tracestate` of at most
 * {@link MAX_KEPT_TRACESTATE} characters; never baggage, which the requester writes and would
 * otherwise ride in every record and every outgoing call of the work. `undefined` without a
 * well-formed `traceparent` (nothing to join).
 *
 * @example
 * ```ts
 * storableTrace({ traceparent: 'garbage' }); // undefined
 * ```
 */
export function storableTrace(carrier: Readonly<Record<string, unknown>> | undefined): TraceCarrier | undefined {
  const traceparent = carrier?.['traceparent'];
  if (typeof traceparent !== 'string' || traceparent.length > 256 || !TRACEPARENT.test(traceparent)) return undefined;
  const tracestate = carrier?.['tracestate'];
  return typeof tracestate === 'string' && tracestate.length <= MAX_KEPT_TRACESTATE ? { traceparent, tracestate } : { traceparent };
}

/** One value made from the current global provider, made again when another is registered. */
function perProvider<P extends object, T>(current: () => P, make: (provider: P) => T): () => T {
  let provider: P | null = null;
  let value: T;
  return () => {
    const now = current();
    if (now !== provider) {
      provider = now;
      value = make(now);
    }
    return value;
  };
}

/**
 * The project's tracer from the registered provider (see the module note on why it is not kept).
 *
 * @example
 * ```ts
 * const span = tracer().startSpan('task tools/call sleep');
 * ```
 */
export const tracer: () => Tracer = perProvider<TracerProvider, Tracer>(
  () => trace.getTracerProvider(),
  (provider) => provider.getTracer(INSTRUMENTATION_SCOPE),
);

/**
 * An instrument made lazily from the registered meter provider, and made again when another
 * provider is registered: never at import time (see the module note). `null` while no meter
 * provider is registered, so that a caller builds no attributes for a no-op.
 *
 * @param make - creates the instrument from the project's meter
 * @example
 * ```ts
 * const duration = lazyInstrument((meter) => meter.createHistogram('mcp.server.operation.duration', { unit: 's' }));
 * duration()?.record(0.012, { 'mcp.method.name': 'tools/call' });
 * ```
 */
export function lazyInstrument<T>(make: (meter: Meter) => T): () => T | null {
  return perProvider<MeterProvider, T | null>(
    () => metrics.getMeterProvider(),
    (provider) => {
      const meter = provider.getMeter(INSTRUMENTATION_SCOPE);
      return isNoopMeter(meter) ? null : make(meter);
    },
  );
}

/** The prototype of the API's no-op meter: what every meter is while no SDK is registered. */
const NOOP_METER = Object.getPrototypeOf(createNoopMeter()) as object;

/**
 * Whether `meter` is the API's no-op one (no SDK registered): nothing it makes would measure
 * anything, so callers make nothing. The one test of it, for the task metrics and the request
 * histograms alike.
 *
 * @example
 * ```ts
 * const meter = metrics.getMeter('mcp-task-actors');
 * if (!isNoopMeter(meter)) meter.createCounter('x').add(1);
 * ```
 */
export function isNoopMeter(meter: Meter): boolean {
  return Object.getPrototypeOf(meter) === NOOP_METER;
}

/**
 * The trace fields of a log line written now: `trace_id` and `span_id` of the active span, or
 * nothing outside any span (no SDK, or outside any request or task).
 *
 * @example
 * ```ts
 * logger.info({ ...fields, ...traceLogFields() }, 'task run');
 * ```
 */
export function traceLogFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getActiveSpan();
  if (span === undefined) return {};
  const spanContext = span.spanContext();
  return isSpanContextValid(spanContext) ? { trace_id: spanContext.traceId, span_id: spanContext.spanId } : {};
}
