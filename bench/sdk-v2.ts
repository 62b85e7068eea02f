/**
 * "SDK v2 embedding": what a task lifecycle costs through the runtime embedded in SDK v2
 * (`attachTaskServerV2`) against the same runtime embedded in SDK v1, for a tool that answers at
 * once. Two comparisons:
 * - 2025-11-25 (`tools/call` with `params.task`, then `tasks/result`), SDK v2 `Client` + `Server`
 *   over the v2 `InMemoryTransport`, against SDK v1 `Client` + `createTaskServer` over v1's;
 * - 2026-07-28 (`tools/call` → `resultType: "task"`, then `tasks/get` until completed), each
 *   request a JSON body in and out: through the SDK (`createMcpHandler(…).fetch`, a server per
 *   request) against this project's stateless dispatcher (`createStatelessHandler`).
 *
 * @module
 */
import { performance } from 'node:perf_hooks';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { createMcpHandler, InMemoryTransport as InMemoryV2, McpServer as McpServerV2 } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { TaskToolDefinition } from '../adapters/mcp-server/index.js';
import { createStatelessHandler } from '../adapters/mcp-server/index.js';
import { attachTaskServerV2 } from '../adapters/mcp-server-v2/index.js';
import { createTaskRuntime, type TaskRuntime } from '../runtime/index.js';
import { ours, type Pair, type Side } from './lib/mcp-sides.js';
import { alternate, type Benchmark, type BenchTable } from './lib/report.js';

const TOOL = 'ok';
const INFO = { name: 'bench', version: '1.0.0' };
const tool: TaskToolDefinition = { name: TOOL, inputSchema: z.object({}), taskSupport: 'optional', run: async () => ({ content: [{ type: 'text', text: 'ok' }] }) };
const Any = z.looseObject({});
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
};

/** Ours on SDK v2, 2025-11-25: a v2 client and server in one process. */
const v2Legacy: Side = async () => {
  const runtime = createTaskRuntime();
  const server = new McpServerV2(INFO);
  attachTaskServerV2(server, { runtime, tools: [tool] });
  const client = new ClientV2({ name: 'bench-client', version: '1.0.0' });
  const [a, b] = InMemoryV2.createLinkedPair();
  await Promise.all([server.connect(b), client.connect(a)]);
  return {
    call: async () => {
      const { task } = (await client.request({ method: 'tools/call', params: { name: TOOL, arguments: {}, task: { ttl: 60_000 } } } as never, Any)) as { task: { taskId: string } };
      const result = (await client.request({ method: 'tasks/result', params: { taskId: task.taskId } } as never, Any)) as { content: { text: string }[] };
      return result.content[0]!.text;
    },
    close: async () => {
      await client.close();
      await server.close();
      await runtime.dispose();
    },
  };
};

/** A 2026-07-28 requester over a function that takes a JSON body and gives one back. */
function modernPair(runtime: TaskRuntime, exchange: (body: string, method: string, name: string) => Promise<string>): Pair {
  let id = 0;
  const post = async (method: string, params: Record<string, unknown>, name: string): Promise<Record<string, unknown>> => {
    const reply = JSON.parse(await exchange(JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params: { ...params, _meta: ENVELOPE } }), method, name)) as { result?: Record<string, unknown>; error?: unknown };
    if (!reply.result) throw new Error(`${method} failed: ${JSON.stringify(reply.error)}`);
    return reply.result;
  };
  return {
    call: async () => {
      const created = await post('tools/call', { name: TOOL, arguments: {} }, TOOL);
      const taskId = String(created['taskId']);
      for (;;) {
        const task = await post('tasks/get', { taskId }, taskId);
        if (task['status'] === 'completed') return (task['result'] as { content: { text: string }[] }).content[0]!.text;
      }
    },
    close: () => runtime.dispose(),
  };
}

/** Ours on SDK v2, 2026-07-28: every request through `createMcpHandler(…).fetch`. */
const v2Modern: Side = async () => {
  const runtime = createTaskRuntime();
  const handler = createMcpHandler(() => {
    const server = new McpServerV2(INFO);
    attachTaskServerV2(server, { runtime, tools: [tool] });
    return server;
  });
  return modernPair(runtime, async (body, method, name) => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, 'mcp-name': name };
    return (await handler.fetch(new Request('http://127.0.0.1/mcp', { method: 'POST', headers, body }))).text();
  });
};

/** Ours on the stateless dispatcher (what `serve` mounts beside SDK v1), 2026-07-28. */
const dispatcher: Side = async () => {
  const runtime = createTaskRuntime();
  const stateless = createStatelessHandler({ runtime, info: INFO, tools: [tool] });
  const signal = new AbortController().signal;
  return modernPair(runtime, async (body, method, name) => {
    const reply = await stateless(JSON.parse(body) as never, { headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, 'mcp-name': name }, principal: null, signal });
    if (!('body' in reply)) throw new Error('a stream where a body was expected');
    return JSON.stringify(reply.body);
  });
};

/** calls/s over a fresh pair, warmed up first. */
async function sample(side: Side, n: number): Promise<number> {
  const pair = await side();
  try {
    for (let i = 0; i < 20; i++) if ((await pair.call()) !== 'ok') throw new Error('not ok');
    globalThis.gc?.();
    const start = performance.now();
    for (let i = 0; i < n; i++) if ((await pair.call()) !== 'ok') throw new Error('not ok');
    return n / ((performance.now() - start) / 1000);
  } finally {
    await pair.close();
  }
}

/**
 * Measures the SDK v2 embedding against the SDK v1 one and the stateless dispatcher.
 *
 * @example
 * ```ts
 * for (const table of await run({ quick: true })) console.log(renderTable(table));
 * ```
 */
export const run: Benchmark = async ({ quick }) => {
  const rounds = quick ? 3 : 5;
  const n = quick ? 300 : 1000;
  const v1Legacy = ours('2025');
  for (const side of [v2Legacy, v1Legacy, v2Modern, dispatcher]) await sample(side, quick ? 300 : 1500);
  const row = (name: string, r: { ours: number; baseline: number }) => ({ name, ours: r.ours, baseline: r.baseline, unit: 'calls/s', higherIsBetter: true });
  return [
    {
      title: 'SDK v2 embedding: task lifecycles through SDK v2 vs the same runtime elsewhere',
      baselineName: 'SDK v1 embedding / stateless dispatcher',
      method:
        `Sequential lifecycles of a tool that answers 'ok' at once, ${n} per sample, median of ${rounds} samples alternating the two sides, each on a fresh runtime ` +
        'after 20 warm-up calls and one unmeasured pass per side; every answer checked. 2025-11-25: tools/call with params.task, then tasks/result; SDK v2 Client + ' +
        'McpServer (attachTaskServerV2) over the v2 InMemoryTransport, against SDK v1 Client + createTaskServer over v1\'s (baseline). 2026-07-28: tools/call → ' +
        'resultType task, then tasks/get until completed, each request a JSON body: through createMcpHandler(…).fetch (a v2 server per request), against ' +
        "createStatelessHandler, the dispatcher `serve` mounts (baseline), given the same JSON and headers.",
      rows: [
        row('2025-11-25: SDK v2 vs SDK v1', await alternate(rounds, () => sample(v2Legacy, n), () => sample(v1Legacy, n))),
        row('2026-07-28: through SDK v2 vs the dispatcher', await alternate(rounds, () => sample(v2Modern, n), () => sample(dispatcher, n))),
      ],
    },
  ] satisfies BenchTable[];
};
