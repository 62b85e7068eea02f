/**
 * `serve --otel` across a NATS front and worker, exporting OTLP/HTTP (JSON) to a receiver this test
 * runs: a requester sends a task-augmented `tools/call` with `_meta.traceparent` of a trace it
 * chose; the front's SERVER span of the request and the worker's span of the task's run both land
 * in that trace, each from its own process, named and attributed as the conventions say, and the
 * worker's log lines of the run carry the trace id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startFrontWorker, stopSharedNats, type FrontWorkerPair } from './harness/nats-front-worker.js';
import { connectSdkClientTo, type SdkPeer } from './harness/sdk-client.js';
import { pollUntil } from './harness/cluster.js';
import { startReceiver, type ExportedSpan } from './harness/otlp-receiver.js';

const TRACE = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
const CALLER = '1122334455667788';

describe('serve --otel on a NATS front and worker', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let pair: FrontWorkerPair;
  let peer: SdkPeer;

  beforeAll(async () => {
    receiver = await startReceiver();
    // The nodes this test file spawns inherit these (each test file runs in its own process).
    Object.assign(process.env, {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '50',
      OTEL_METRIC_EXPORT_INTERVAL: '200',
      OTEL_LOGS_EXPORTER: 'none',
    });
    pair = await startFrontWorker(['--otel']);
    peer = await connectSdkClientTo({ url: pair.url, stderr: () => pair.stderr() }, 'otel-test');
  }, 60_000);
  afterAll(async () => {
    await peer?.close();
    await pair?.close();
    await stopSharedNats();
    await receiver?.close();
  });

  it("should put the front's request span and the worker's run span in the trace the requester sent", async () => {
    const traceparent = `00-${TRACE}-${CALLER}-01`;
    const created = await peer.client.request(
      { method: 'tools/call', params: { name: 'sleep', arguments: { ms: 200 }, task: { ttl: 60_000 }, _meta: { traceparent } } },
      z.object({ task: z.object({ taskId: z.string() }) }).loose(),
    );
    const { taskId } = created.task;
    await pollUntil(
      'the task to complete',
      () => peer.client.request({ method: 'tasks/get', params: { taskId } }, z.object({ status: z.string() }).loose()),
      (task) => task.status === 'completed',
    );
    const spansAt = async (): Promise<ExportedSpan[]> => receiver.spans.filter((s) => s.traceId === TRACE);
    const inTrace = await pollUntil('both spans at the receiver', spansAt, (found) => found.some((s) => s.name === 'task tools/call sleep') && found.some((s) => s.name === 'tools/call sleep'), {
      timeoutMs: 15_000,
      diagnostics: () => `${receiver.spans.map((s) => `${s.name} ${s.traceId}`).join('\n')}\n${pair.stderr()}`,
    });
    const request = inTrace.find((s) => s.name === 'tools/call sleep')!;
    const run = inTrace.find((s) => s.name === 'task tools/call sleep')!;
    // Each from its own process: the front served the request, the worker ran the task.
    expect(request.resource['process.pid']).toBe(pair.front.pid);
    expect(run.resource['process.pid']).toBe(pair.worker.pid);
    expect(request.resource['service.name']).toBe('mcp-tasks');
    expect(request.kind).toBe(2); // SERVER
    expect(request.parentSpanId).toBe(CALLER);
    expect(request.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'sleep', 'network.transport': 'tcp', 'mcp_task_actors.task.id': taskId });
    expect(run.parentSpanId).toBe(request.spanId);
    expect(run.attributes).toMatchObject({
      'mcp_task_actors.task.id': taskId,
      'mcp_task_actors.task.dialect': '2025-11-25',
      'mcp_task_actors.task.status': 'completed',
      'mcp_task_actors.task.attempt': 1,
      'mcp_task_actors.task.node': pair.worker.nodeId,
    });
    // The worker's lines of this run carry its trace, its task and its node.
    const runLine = await pair.worker.waitForLine((l) => l['msg'] === 'task end' && l['taskId'] === taskId, 'the task end line');
    expect(runLine).toMatchObject({ trace_id: TRACE, node: pair.worker.nodeId });
    // The front's polls are spans too, and its duration histogram is exported.
    await pollUntil('mcp.server.operation.duration at the receiver', async () => receiver.metricNames, (names) => names.has('mcp.server.operation.duration'));
  });
});
