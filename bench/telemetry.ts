/**
 * "Telemetry on the hot path": what the OpenTelemetry instrumentation costs a task lifecycle (a
 * 2025-11-25 `tools/call` with `params.task`, then `tasks/result`, between a real SDK client and
 * our server over the in-memory transport, for a tool that answers at once).
 *
 * - With no SDK registered (every library that embeds this one and never sets up OpenTelemetry):
 *   the instrumentation cannot be switched off in the same code, so its part is measured directly:
 *   the very wrappers a lifecycle goes through (the transport's span wrapper for both requests, the
 *   trace context taken at create, the run's span with its events), timed in a loop with the API's
 *   no-ops. The baseline is the lifecycle without that part; target ≤ 1.03×.
 * - With the SDK registered (a tracer provider with a batch span processor and an exporter, a meter
 *   provider with a reader): lifecycles with it against lifecycles without it, alternating in the
 *   same process. Reported, no target.
 *
 * @module
 */
import { performance } from 'node:perf_hooks';
import { context } from '@opentelemetry/api';
import { tracing } from '@opentelemetry/sdk-node';
import type { TaskContext } from '../machines/index.js';
import { traceTransport } from '../adapters/wire/traced-transport.js';
import { carrierOf } from '../runtime/telemetry/tracing.js';
import { TaskSpan } from '../runtime/telemetry/task-span.js';
import { registerOtelSdk, TestReader } from '../test/unit/telemetry/in-memory-otel.js';
import { ours, type Side } from './lib/mcp-sides.js';
import { alternate, median, type Benchmark, type BenchRow } from './lib/report.js';

const WARMUP_CALLS = 20;

/** Lifecycles per second over a fresh connection, warmed up first. */
async function sample(side: Side, n: number): Promise<number> {
  const pair = await side();
  try {
    for (let i = 0; i < WARMUP_CALLS; i++) await pair.call();
    globalThis.gc?.();
    const start = performance.now();
    for (let i = 0; i < n; i++) {
      const text = await pair.call();
      if (text !== 'ok') throw new Error(`a measured call answered '${text}' instead of 'ok'`);
    }
    return n / ((performance.now() - start) / 1000);
  } finally {
    await pair.close();
  }
}

const noop = (): void => undefined;
const sent = Promise.resolve();

/**
 * µs per lifecycle spent in the instrumentation, as the lifecycle calls it: two requests through
 * the transport wrapper (arrival, response), the trace context taken at create, the run's span
 * started, told three snapshots, ended.
 */
function instrumentationMicros(lifecycles: number): number {
  const transport = { onmessage: noop as (m: never) => void, send: (() => sent) as (m: never) => Promise<void> };
  traceTransport(transport);
  const onmessage = transport.onmessage as (m: unknown) => void;
  const send = transport.send as (m: unknown) => Promise<void>;
  const c = { taskId: 't', owner: { session: null, principal: null }, dialect: '2025-11-25', method: 'tools/call', label: 'echo', keepAlive: 60_000, pollFrequency: 1000, createdAt: 0, updatedAt: 0, statusMessage: null, error: null, pendingInputs: [], resultRef: null } as unknown as TaskContext;
  const start = performance.now();
  for (let i = 0; i < lifecycles; i++) {
    onmessage({ jsonrpc: '2.0', id: 2 * i, method: 'tools/call', params: { name: 'echo', arguments: {}, task: { ttl: 60_000 } } });
    const span = new TaskSpan({ context: c, status: 'submitted', trace: carrierOf(), attempt: 1, node: null, resumedFrom: null });
    context.with(span.context, noop);
    span.observe('working', c);
    void send({ jsonrpc: '2.0', id: 2 * i, result: { task: { taskId: 't', status: 'working' } } });
    onmessage({ jsonrpc: '2.0', id: 2 * i + 1, method: 'tasks/result', params: { taskId: 't' } });
    span.observe('completed', c);
    span.observe('completed', c);
    context.with(span.context, noop);
    span.end('completed', c);
    void send({ jsonrpc: '2.0', id: 2 * i + 1, result: { content: [{ type: 'text', text: 'ok' }] } });
  }
  return ((performance.now() - start) * 1000) / lifecycles;
}

/** Runs `fn` with an SDK registered: spans batched to an exporter that drops them, metrics aggregated by a reader nobody reads. */
async function withSdk<T>(fn: () => Promise<T>): Promise<T> {
  const exporter: tracing.SpanExporter = { export: (_spans, done) => done({ code: 0 }), shutdown: async () => undefined };
  const stop = registerOtelSdk(new tracing.BatchSpanProcessor(exporter), new TestReader());
  try {
    return await fn();
  } finally {
    await stop();
  }
}

const micros = (perSecond: number): number => 1e6 / perSecond;

/**
 * Measures the instrumentation's share of a task lifecycle, without and with an SDK.
 *
 * @example
 * ```ts
 * for (const table of await run({ quick: true })) console.log(renderTable(table));
 * ```
 */
export const run: Benchmark = async ({ quick }) => {
  const rounds = quick ? 5 : 9;
  const n = quick ? 300 : 1500;
  const loop = quick ? 20_000 : 100_000;
  const side = ours('2025');
  await sample(side, quick ? 500 : 2000);
  instrumentationMicros(loop);
  const lifecycle: number[] = [];
  const wrappers: number[] = [];
  for (let i = 0; i < rounds; i++) {
    lifecycle.push(micros(await sample(side, n)));
    wrappers.push(instrumentationMicros(loop));
  }
  const total = median(lifecycle);
  const part = median(wrappers);
  const withoutSdk: BenchRow = { name: 'task lifecycle, no SDK registered (baseline: without the instrumentation)', ours: total, baseline: total - part, unit: 'µs/call', higherIsBetter: false, target: '≤ 1.03×', met: total <= 1.03 * (total - part) };
  const part2: BenchRow = { name: 'of which the instrumentation, no SDK (measured in a loop)', ours: part, baseline: null, unit: 'µs/call', higherIsBetter: false };
  const sdk = await alternate(rounds, () => withSdk(() => sample(side, n)), () => sample(side, n));
  const withSdkRow: BenchRow = { name: 'task lifecycle, SDK registered: batch span processor + exporter, meter provider (baseline: no SDK)', ours: micros(sdk.ours), baseline: micros(sdk.baseline), unit: 'µs/call', higherIsBetter: false };
  return [
    {
      title: 'Telemetry on the hot path: a task lifecycle with the OpenTelemetry API',
      baselineName: 'baseline',
      method:
        `A 2025-11-25 task lifecycle (tools/call with params.task → CreateTaskResult, then tasks/result) between a real SDK 1.x Client and createTaskServer over InMemoryTransport, tool answering 'ok' at once; ${n} sequential lifecycles per sample, median of ${rounds}. ` +
        `No SDK: the instrumentation a lifecycle runs (transport span wrapper for both requests, trace context at create, the run span with three snapshots) timed over ${loop} lifecycles in a loop, alternating with the lifecycle samples; baseline = lifecycle − that part. ` +
        'SDK: NodeTracerProvider (async-local context, W3C propagator) with a BatchSpanProcessor to an exporter that drops the spans, and a MeterProvider with an idle reader, registered around every other sample.',
      rows: [withoutSdk, part2, withSdkRow],
    },
  ];
};
