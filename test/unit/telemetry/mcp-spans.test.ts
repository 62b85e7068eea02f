// MCP spans by the OpenTelemetry conventions, with a real SDK registered for each test: a request's
// SERVER span named `{mcp.method.name} {target}` continues the trace the caller put in
// `params._meta` (SEP-414), carries the conventions' attributes and `error.type`, and the task it
// creates runs in a span of the same trace; the requester's `TaskClient` sends its own trace
// context; the duration histograms are recorded. On both SDK lines and the stateless wire.
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { McpServer as McpServerV2, InMemoryTransport as InMemoryTransportV2 } from '@modelcontextprotocol/server';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { failTool, greetingPrompt, sleepTool } from '../../../adapters/cli/demo-tools.js';
import { attachTaskServer, createStatelessHandler } from '../../../adapters/mcp-server/index.js';
import { attachTaskServerV2 } from '../../../adapters/mcp-server-v2/index.js';
import { TaskClient } from '../../../adapters/mcp-client/index.js';
import { createTaskRuntime, type TaskRuntime } from '../../../runtime/index.js';
import { startInMemoryOtel, traceparentOf, type InMemoryOtel } from './in-memory-otel.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER = '00f067aa0ba902b7';
type Message = Record<string, unknown> & { id?: unknown; method?: string; result?: Record<string, unknown>; error?: { code: number } };

let otel: InMemoryOtel;
const runtimes: TaskRuntime[] = [];
beforeEach(() => {
  otel = startInMemoryOtel();
});
afterEach(async () => {
  for (const r of runtimes.splice(0)) await r.dispose();
  await otel.stop();
});

function runtime(): TaskRuntime {
  const r = createTaskRuntime();
  runtimes.push(r);
  return r;
}

/** A raw peer on an SDK v1 server hosting the demo tools. */
async function v1Server() {
  const server = new Server({ name: 't', version: '0' }, { capabilities: {} });
  attachTaskServer(server, { runtime: runtime(), tools: [sleepTool, failTool], prompts: [greetingPrompt] });
  const [peer, serverSide] = InMemoryTransport.createLinkedPair();
  const seen: Message[] = [];
  peer.onmessage = (m) => seen.push(m);
  await server.connect(serverSide);
  await peer.start();
  return { send: (m: object) => peer.send(m as JSONRPCMessage), answer: (id: unknown) => answerOf(seen, id) };
}

function answerOf(seen: Message[], id: unknown): Promise<Message> {
  return vi.waitFor(
    () => {
      const found = seen.find((m) => m.id === id && m.method === undefined);
      if (!found) throw new Error(`no answer to ${String(id)} yet`);
      return found;
    },
    { timeout: 3_000, interval: 5 },
  );
}

const meta = { traceparent: traceparentOf(TRACE, CALLER) };

describe('server spans (SDK v1)', () => {
  it('should continue the caller trace from _meta.traceparent in a SERVER span named after the tool, and run the task in that trace', async () => {
    const { send, answer } = await v1Server();
    await send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { tasks: {} }, clientInfo: { name: 'c', version: '0' } } });
    await answer(1);
    await send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'sleep', arguments: { ms: 1 }, task: { ttl: 60_000 }, _meta: meta } });
    const created = await answer(2);
    const taskId = (created.result!['task'] as { taskId: string }).taskId;
    const server = otel.span('tools/call sleep');
    expect(server.kind).toBe(SpanKind.SERVER);
    expect(server.spanContext().traceId).toBe(TRACE);
    expect(server.parentSpanContext?.spanId).toBe(CALLER);
    expect(server.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'sleep',
      'gen_ai.operation.name': 'execute_tool',
      'jsonrpc.request.id': '2',
      'mcp.protocol.version': '2025-11-25',
      'network.transport': 'pipe',
      'mcp_task_actors.task.id': taskId,
    });
    const run = await vi.waitFor(() => otel.span('task tools/call sleep'), { timeout: 3_000 });
    expect(run.spanContext().traceId).toBe(TRACE);
    expect(run.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
    expect(run.links[0]?.context.spanId).toBe(server.spanContext().spanId);
    expect(run.attributes).toMatchObject({ 'mcp_task_actors.task.id': taskId, 'mcp_task_actors.task.dialect': '2025-11-25', 'mcp_task_actors.task.status': 'completed', 'mcp_task_actors.task.attempt': 1 });
    expect(run.events.map((e) => e.name)).toContain('task.status');
  });

  it('should name a prompt span after the prompt and a tasks/* span after the method, with the task id', async () => {
    const { send, answer } = await v1Server();
    await send({ jsonrpc: '2.0', id: 1, method: 'prompts/get', params: { name: 'greeting', arguments: { name: 'Ada' } } });
    await answer(1);
    expect(otel.span('prompts/get greeting').attributes['gen_ai.prompt.name']).toBe('greeting');
    await send({ jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { taskId: 'nope' } });
    const refused = await answer(2);
    const get = otel.span('tasks/get');
    expect(get.attributes['mcp_task_actors.task.id']).toBe('nope');
    // -32602 is the caller's mistake: recorded, but not an error of the server.
    expect(get.attributes['rpc.response.status_code']).toBe(String(refused.error!.code));
    expect(get.attributes['error.type']).toBeUndefined();
    expect(get.status.code).toBe(SpanStatusCode.UNSET);
  });

  it("should mark a tool's own failure as tool_error, and record mcp.server.operation.duration", async () => {
    const { send, answer } = await v1Server();
    await send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'fail', arguments: { message: 'no' } } });
    await answer(1);
    const span = otel.span('tools/call fail');
    expect(span.attributes['error.type']).toBe('tool_error');
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    const metric = (await otel.metrics()).scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === 'mcp.server.operation.duration');
    expect(metric?.descriptor.unit).toBe('s');
    const point = metric?.dataPoints.find((p) => p.attributes['gen_ai.tool.name'] === 'fail');
    expect(point?.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'error.type': 'tool_error' });
    // No per-request attributes on the metric: they would make a series per request.
    expect(point?.attributes['jsonrpc.request.id']).toBeUndefined();
  });

  it('should keep the names a caller chooses off the histogram and span names: an unknown method or tool is _OTHER, the span keeps what was asked', async () => {
    const { send, answer } = await v1Server();
    await send({ jsonrpc: '2.0', id: 1, method: 'made/up-1', params: {} });
    await send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'no_such_tool_1', arguments: {} } });
    await Promise.all([answer(1), answer(2)]);
    // The span keeps what was asked in its attributes (spans are per request); its name and the series do not.
    expect(otel.span('_OTHER').attributes['mcp.method.name']).toBe('made/up-1');
    expect(otel.span('tools/call').attributes['gen_ai.tool.name']).toBe('no_such_tool_1');
    const metric = (await otel.metrics()).scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === 'mcp.server.operation.duration');
    const refused = metric?.dataPoints.filter((p) => p.attributes['rpc.response.status_code'] !== undefined) ?? [];
    expect(refused.map((p) => p.attributes['mcp.method.name']).sort()).toEqual(['_OTHER', 'tools/call']);
    expect(refused.find((p) => p.attributes['mcp.method.name'] === 'tools/call')?.attributes['gen_ai.tool.name']).toBe('_OTHER');
  });
});

describe('TaskClient (SDK v1)', () => {
  it('should send the active trace context in _meta and make CLIENT spans the server spans are children of', async () => {
    const server = new Server({ name: 't', version: '0' }, { capabilities: {} });
    attachTaskServer(server, { runtime: runtime(), tools: [sleepTool] });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const sent: Message[] = [];
    const send = clientSide.send.bind(clientSide);
    clientSide.send = (m, o) => {
      sent.push(m);
      return send(m, o);
    };
    await server.connect(serverSide);
    const client = new Client({ name: 'c', version: '0' }, { capabilities: {} });
    await client.connect(clientSide);
    const tasks = new TaskClient(client, { dialect: '2025-11-25', pollFrequency: 10 });
    const root = trace.getTracer('test').startSpan('agent step');
    const result = await context.with(trace.setSpan(context.active(), root), () => tasks.beginCallTool({ name: 'sleep', arguments: { ms: 1 } }).result());
    root.end();
    tasks.dispose();
    expect(result.isError).not.toBe(true);
    const call = sent.find((m) => m.method === 'tools/call')!;
    const traceparent = ((call['params'] as Record<string, unknown>)['_meta'] as Record<string, unknown>)['traceparent'] as string;
    expect(traceparent.split('-')[1]).toBe(root.spanContext().traceId);
    const clientSpan = otel.spans().find((s) => s.name === 'tools/call sleep' && s.kind === SpanKind.CLIENT)!;
    const serverSpan = otel.spans().find((s) => s.name === 'tools/call sleep' && s.kind === SpanKind.SERVER)!;
    expect(traceparent.split('-')[2]).toBe(clientSpan.spanContext().spanId);
    expect(clientSpan.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
    expect(serverSpan.parentSpanContext?.spanId).toBe(clientSpan.spanContext().spanId);
    expect(otel.spans().some((s) => s.name === 'tasks/get' && s.kind === SpanKind.CLIENT)).toBe(true);
    const names = (await otel.metrics()).scopeMetrics.flatMap((s) => s.metrics).map((m) => m.descriptor.name);
    expect(names).toContain('mcp.client.operation.duration');
    await client.close();
  });
});

describe('server spans (SDK v2)', () => {
  it('should continue the caller trace and name the span after the tool', async () => {
    const mcp = new McpServerV2({ name: 't', version: '0' });
    attachTaskServerV2(mcp, { runtime: runtime(), tools: [sleepTool] });
    const [peer, serverSide] = InMemoryTransportV2.createLinkedPair();
    const seen: Message[] = [];
    peer.onmessage = (m) => seen.push(m);
    await mcp.connect(serverSide);
    await peer.start();
    await peer.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { tasks: {} }, clientInfo: { name: 'c', version: '0' } } });
    await answerOf(seen, 1);
    await peer.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'sleep', arguments: { ms: 1 }, task: { ttl: 60_000 }, _meta: meta } } as never);
    await answerOf(seen, 2);
    const server = otel.span('tools/call sleep');
    expect(server.kind).toBe(SpanKind.SERVER);
    expect(server.spanContext().traceId).toBe(TRACE);
    expect(server.attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'sleep', 'jsonrpc.request.id': '2' });
    const run = await vi.waitFor(() => otel.span('task tools/call sleep'), { timeout: 3_000 });
    expect(run.spanContext().traceId).toBe(TRACE);
  });
});

describe('server spans (stateless 2026-07-28)', () => {
  it('should continue the caller trace and name the span after the tool', async () => {
    const stateless = createStatelessHandler({ runtime: runtime(), info: { name: 't', version: '0' }, tools: [sleepTool] });
    const envelope = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } }, ...meta };
    const reply = await stateless({ id: 9, method: 'tools/call', params: { name: 'sleep', arguments: { ms: 1 }, _meta: envelope } }, { principal: null, signal: new AbortController().signal });
    expect(reply.status).toBe(200);
    expect((reply as { body: { result: Record<string, unknown> } }).body.result['resultType']).toBe('task');
    const server = otel.span('tools/call sleep');
    expect(server.spanContext().traceId).toBe(TRACE);
    expect(server.parentSpanContext?.spanId).toBe(CALLER);
    expect(server.attributes).toMatchObject({ 'mcp.protocol.version': '2026-07-28', 'jsonrpc.request.id': '9' });
    await vi.waitFor(() => expect(otel.span('task tools/call sleep').spanContext().traceId).toBe(TRACE), { timeout: 3_000 });
  });
});
