import { metrics } from '@opentelemetry/api';
import { DataPointType, MeterProvider, MetricReader, type MetricData } from '@opentelemetry/sdk-metrics';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryPushQueue } from '../../../runtime/push/memory-push-queue.js';
import { createTaskRuntime, TaskLimitError, type TaskRuntime } from '../../../runtime/index.js';
import { openTaskMetrics, TaskMetricName } from '../../../runtime/telemetry/metrics.js';

/** A reader the test collects from when it wants (the SDK's own base class, nothing exported). */
class TestReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

let provider: MeterProvider | null = null;

/** Registers an SDK meter provider globally, as `serve --metrics-port` does, and returns a way to read it. */
function registerSdk(): { read(name: string, attributes?: Record<string, string>): Promise<number> } {
  const reader = new TestReader();
  provider = new MeterProvider({ readers: [reader] });
  metrics.setGlobalMeterProvider(provider);
  return {
    /** The value (a sum, or a histogram's count) of `name`, over its points that have `attributes`. */
    async read(name, attributes = {}) {
      const { resourceMetrics } = await reader.collect();
      const metric: MetricData | undefined = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === name);
      if (!metric) return 0;
      let total = 0;
      for (const point of metric.dataPoints) {
        if (!Object.entries(attributes).every(([k, v]) => point.attributes[k] === v)) continue;
        total += metric.dataPointType === DataPointType.HISTOGRAM ? (point.value as { count: number }).count : (point.value as number);
      }
      return total;
    },
  };
}

afterEach(async () => {
  metrics.disable();
  await provider?.shutdown();
  provider = null;
});

const owner = { session: 's', principal: null };
const create = (runtime: TaskRuntime, taskId: string, handler: string, dialect: '2025-11-25' | 'sep-1686' = '2025-11-25') =>
  runtime.create({ taskId, owner, dialect, method: 'tools/call', handler, params: {} });

/** Bounded poll: what is measured after a task ends is measured by the time its end is seen. */
async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('condition not met within 2 s');
}

describe('task metrics', () => {
  it('should take none while no SDK is registered (the API alone is a no-op)', () => {
    expect(openTaskMetrics()).toBeNull();
  });

  it('should count tasks created, ended by status, their durations and live runs on the memory backend', async () => {
    const sdk = registerSdk();
    const runtime = createTaskRuntime();
    const release: (() => void)[] = [];
    runtime.registerHandler('quick', async () => ({ ok: true }));
    runtime.registerHandler('boom', async () => {
      throw new Error('boom');
    });
    runtime.registerHandler('hold', (_p, ctx) => new Promise((resolve) => {
      release.push(() => resolve({ ok: true }));
      ctx.signal.addEventListener('abort', () => resolve({ ok: false }));
    }));
    runtime.registerHandler('ask', (_p, ctx) => ctx.requestInput('elicitation/create', { message: 'name?' }));

    await create(runtime, 'q1', 'quick');
    await create(runtime, 'q2', 'quick', 'sep-1686');
    await create(runtime, 'b1', 'boom');
    await create(runtime, 'h1', 'hold');
    await create(runtime, 'h2', 'hold');
    await create(runtime, 'a1', 'ask');
    await runtime.waitForTerminal('q1', owner);
    await runtime.waitForTerminal('b1', owner);
    await until(async () => (await sdk.read(TaskMetricName.runs, { 'mcp_task_actors.task.status': 'input_required' })) === 1);

    expect(await sdk.read(TaskMetricName.created)).toBe(6);
    expect(await sdk.read(TaskMetricName.created, { 'mcp.method.name': 'tools/call', 'mcp_task_actors.task.dialect': 'sep-1686' })).toBe(1);
    expect(await sdk.read(TaskMetricName.runs, { 'mcp_task_actors.task.status': 'working' })).toBe(2);
    expect(await sdk.read(TaskMetricName.queueDuration)).toBe(6);

    await runtime.cancel('h2', owner);
    release.splice(0).forEach((r) => r());
    await runtime.waitForTerminal('h1', owner);
    await runtime.cancel('a1', owner);

    expect(await sdk.read(TaskMetricName.ended, { 'mcp_task_actors.task.status': 'completed' })).toBe(3);
    expect(await sdk.read(TaskMetricName.ended, { 'mcp_task_actors.task.status': 'failed' })).toBe(1);
    expect(await sdk.read(TaskMetricName.ended, { 'mcp_task_actors.task.status': 'cancelled' })).toBe(2);
    expect(await sdk.read(TaskMetricName.duration)).toBe(6);
    expect(await sdk.read(TaskMetricName.duration, { 'mcp_task_actors.task.status': 'cancelled', 'mcp.method.name': 'tools/call' })).toBe(2);
    expect(await sdk.read(TaskMetricName.runs, { 'mcp_task_actors.task.status': 'working' })).toBe(0);
    expect(await sdk.read(TaskMetricName.runs, { 'mcp_task_actors.task.status': 'input_required' })).toBe(0);
    await runtime.dispose();
  });

  it('should count calls refused over a limit, by the limit, whichever rule refused them', async () => {
    const sdk = registerSdk();
    const runtime = createTaskRuntime({ limits: { createsPerSecond: 1, maxTaskIdLength: 8 }, now: () => 1_000 });
    runtime.registerHandler('quick', async () => ({ ok: true }));
    await create(runtime, 'c1', 'quick');
    await create(runtime, 'c2', 'quick');
    await expect(create(runtime, 'c3', 'quick')).rejects.toBeInstanceOf(TaskLimitError);
    await expect(create(runtime, 'c4', 'quick')).rejects.toBeInstanceOf(TaskLimitError);
    await expect(runtime.get('a-much-too-long-id', owner)).rejects.toBeInstanceOf(TaskLimitError);
    expect(await sdk.read(TaskMetricName.limitRefused, { 'mcp_task_actors.limit.name': 'createsPerSecond' })).toBe(2);
    expect(await sdk.read(TaskMetricName.limitRefused, { 'mcp_task_actors.limit.name': 'maxTaskIdLength' })).toBe(1);
    expect(await sdk.read(TaskMetricName.created)).toBe(2);
    await runtime.dispose();
  });

  it('should count push attempts by outcome', async () => {
    const sdk = registerSdk();
    // Nothing allowed: the attempt is refused without a request, and given up at once.
    const queue = new MemoryPushQueue({ metrics: openTaskMetrics() });
    const event = { id: 'e1', taskId: 't1', status: 'completed', statusMessage: null, at: 1, body: {} };
    await queue.enqueue({ target: { url: 'https://hooks.example.com/x', secret: 's', events: 'terminal' }, event, until: null, attempt: 0 });
    await queue.idle();
    expect(await sdk.read(TaskMetricName.pushAttempts, { 'mcp_task_actors.push.outcome': 'gave_up' })).toBe(1);
    expect(await sdk.read(TaskMetricName.pushAttempts, { 'mcp_task_actors.push.outcome': 'delivered' })).toBe(0);
    await queue.dispose();
  });
});
