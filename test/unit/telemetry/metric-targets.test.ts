// The tool a histogram series names is one the server serves (issue 42, item 2): beside an
// McpServer's own tools, registered before or after the task ones, on both SDK lines; a name the
// requester made up is _OTHER on the series and no part of the span name (the McpServer answers
// an unknown tool with an isError result, which kept the name before). A session taken up again
// without its initialize (a fresh transport, as a parked session's) takes its version from the
// request's _meta: bounded too, as is a made-up notification's method.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer as McpServerV2, InMemoryTransport as InMemoryTransportV2 } from '@modelcontextprotocol/server';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { sleepTool } from '../../../adapters/cli/demo-tools.js';
import { attachTaskServer } from '../../../adapters/mcp-server/index.js';
import { attachTaskServerV2 } from '../../../adapters/mcp-server-v2/index.js';
import { createTaskRuntime, type TaskRuntime } from '../../../runtime/index.js';
import { startInMemoryOtel, type InMemoryOtel } from './in-memory-otel.js';

type Message = Record<string, unknown> & { id?: unknown; method?: string };
let otel: InMemoryOtel;
let runtime: TaskRuntime;
beforeEach(() => {
  otel = startInMemoryOtel();
  runtime = createTaskRuntime();
});
afterEach(async () => {
  await runtime.dispose();
  await otel.stop();
});

const pong = () => ({ content: [{ type: 'text' as const, text: 'pong' }] });

/** The duration histogram's data points, by their attributes. */
async function points(): Promise<Record<string, unknown>[]> {
  const metric = (await otel.metrics()).scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === 'mcp.server.operation.duration');
  return (metric?.dataPoints ?? []).map((p) => p.attributes as Record<string, unknown>);
}

/** Sends each message over a fresh (never initialized) connection and waits for the answers to the requests. */
async function exchange(connect: () => Promise<void>, peer: { send(m: never): Promise<void>; onmessage?: unknown; start(): Promise<void> }, messages: Message[]): Promise<void> {
  const seen: Message[] = [];
  peer.onmessage = (m: Message) => seen.push(m);
  await connect();
  await peer.start();
  for (const m of messages) await peer.send({ jsonrpc: '2.0', ...m } as never);
  const ids = messages.filter((m) => m.id !== undefined).map((m) => m.id);
  await vi.waitFor(() => expect(seen.filter((m) => ids.includes(m.id)).length).toBe(ids.length), { timeout: 3_000, interval: 5 });
}

const MADE_UP_VERSION = { 'io.modelcontextprotocol/protocolVersion': '2099-13-99' };
const MESSAGES: Message[] = [
  { id: 1, method: 'tools/call', params: { name: 'ping', arguments: {}, _meta: MADE_UP_VERSION } },
  { id: 2, method: 'tools/call', params: { name: 'late', arguments: {} } },
  { id: 3, method: 'tools/call', params: { name: 'sleep', arguments: { ms: 1 } } },
  { id: 4, method: 'tools/call', params: { name: 'no_such_tool_7', arguments: {} } },
  { method: 'notifications/made-up-7', params: {} },
];

/** What each SDK line must show for {@link MESSAGES}. */
async function expectBounded(): Promise<void> {
  const calls = (await points()).filter((p) => p['mcp.method.name'] === 'tools/call');
  expect(calls.map((p) => p['gen_ai.tool.name']).sort()).toEqual(['_OTHER', 'late', 'ping', 'sleep']);
  expect(calls.find((p) => p['gen_ai.tool.name'] === 'ping')?.['mcp.protocol.version']).toBe('_OTHER');
  expect((await points()).some((p) => String(p['mcp.method.name']).includes('made-up'))).toBe(false);
  expect(otel.spans().map((s) => s.name).filter((n) => n.startsWith('tools/call')).sort()).toEqual(['tools/call', 'tools/call late', 'tools/call ping', 'tools/call sleep']);
  // Spans keep what was asked.
  expect(otel.span('tools/call').attributes['gen_ai.tool.name']).toBe('no_such_tool_7');
  expect(otel.span('tools/call ping').attributes['mcp.protocol.version']).toBe('2099-13-99');
  expect(otel.span('_OTHER').attributes['mcp.method.name']).toBe('notifications/made-up-7');
}

describe('metric targets beside an McpServer', () => {
  it('should name only the served tools on SDK v1 (its own, before and after attaching, and the task ones)', async () => {
    const mcp = new McpServer({ name: 't', version: '0' });
    mcp.registerTool('ping', { description: 'plain' }, pong);
    attachTaskServer(mcp, { runtime, tools: [sleepTool] });
    mcp.registerTool('late', { description: 'registered after' }, pong);
    const [peer, serverSide] = InMemoryTransport.createLinkedPair();
    await exchange(() => mcp.connect(serverSide), peer, MESSAGES);
    await expectBounded();
  });

  it('should name only the served tools on SDK v2 (its own, before and after attaching, and the task ones)', async () => {
    const mcp = new McpServerV2({ name: 't', version: '0' });
    mcp.registerTool('ping', { description: 'plain' }, pong);
    attachTaskServerV2(mcp, { runtime, tools: [sleepTool] });
    mcp.registerTool('late', { description: 'registered after' }, pong);
    const [peer, serverSide] = InMemoryTransportV2.createLinkedPair();
    await exchange(() => mcp.connect(serverSide), peer, MESSAGES);
    await expectBounded();
  });
});
