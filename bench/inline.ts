/**
 * "Answer inline if fast": what `inlineWithinMs` costs on the 2026-07-28 wire for a tool that
 * answers at once. Ours: a requester that declared the tasks extension, on a server with a 500 ms
 * window: the task is created, its outcome awaited, and the plain result returned in one round
 * trip. Baselines: a plain call (no extension declared: no task at all) on the same server, and
 * the task the requester would otherwise poll (window off: `tasks/get` until completed). Both
 * through the stateless dispatcher `serve` mounts beside SDK v1 and through the SDK v2 embedding
 * (`createMcpHandler(…).fetch`, a server per request), each request a JSON body in and out.
 *
 * @module
 */
import { performance } from 'node:perf_hooks';
import { createMcpHandler, McpServer as McpServerV2 } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { createStatelessHandler, type TaskToolDefinition } from '../adapters/mcp-server/index.js';
import { attachTaskServerV2 } from '../adapters/mcp-server-v2/index.js';
import { createTaskRuntime, type TaskRuntime } from '../runtime/index.js';
import { alternate, type Benchmark, type BenchTable } from './lib/report.js';

const TOOL = 'ok';
const INFO = { name: 'bench', version: '1.0.0' };
const WINDOW_MS = 500;
const tool: TaskToolDefinition = { name: TOOL, inputSchema: z.object({}), taskSupport: 'optional', run: async () => ({ content: [{ type: 'text', text: 'ok' }] }) };
const meta = (caps: Record<string, unknown>) => ({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': caps,
});
const WITH_TASKS = meta({ extensions: { 'io.modelcontextprotocol/tasks': {} } });
const PLAIN = meta({});
const headers = (method: string, name: string) => ({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, 'mcp-name': name });

/** One request as a JSON body in, the JSON body out. */
type Exchange = (body: string, method: string, name: string) => Promise<string>;
/** A server over a fresh runtime with an inline window, and its exchange. */
type Server = (runtime: TaskRuntime, inlineWithinMs: number) => Exchange;

const dispatcher: Server = (runtime, inlineWithinMs) => {
  const stateless = createStatelessHandler({ runtime, info: INFO, tools: [tool], inlineWithinMs });
  const signal = new AbortController().signal;
  return async (body, method, name) => {
    const reply = await stateless(JSON.parse(body) as never, { headers: headers(method, name), principal: null, signal });
    if (!('body' in reply)) throw new Error('a stream where a body was expected');
    return JSON.stringify(reply.body);
  };
};

const sdkV2: Server = (runtime, inlineWithinMs) => {
  const handler = createMcpHandler(() => {
    const server = new McpServerV2(INFO);
    attachTaskServerV2(server, { runtime, tools: [tool], inlineWithinMs });
    return server;
  });
  return async (body, method, name) => {
    const all = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers(method, name) };
    return (await handler.fetch(new Request('http://127.0.0.1/mcp', { method: 'POST', headers: all, body }))).text();
  };
};

/** How the requester calls: answered inline (the extension declared, the window on), plainly (no extension), or as a task it polls (window off). */
type Mode = 'inline' | 'plain' | 'task';

/** calls/s of `n` sequential calls in `mode`, on a fresh runtime, after 20 warm-up calls; every answer checked to be 'ok'. */
async function sample(server: Server, mode: Mode, n: number): Promise<number> {
  const runtime = createTaskRuntime();
  const exchange = server(runtime, mode === 'task' ? 0 : WINDOW_MS);
  let id = 0;
  const post = async (method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const reply = JSON.parse(await exchange(JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params: { ...params, _meta: mode === 'plain' ? PLAIN : WITH_TASKS } }), method, String(params['name'] ?? params['taskId']))) as { result?: Record<string, unknown> };
    if (!reply.result) throw new Error(`${method} failed: ${JSON.stringify(reply).slice(0, 200)}`);
    return reply.result;
  };
  const ok = (result: unknown): void => {
    if ((result as { content?: { text?: string }[] } | undefined)?.content?.[0]?.text !== 'ok') throw new Error(`not 'ok': ${JSON.stringify(result).slice(0, 200)}`);
  };
  const call = async (): Promise<void> => {
    const answer = await post('tools/call', { name: TOOL, arguments: {} });
    if (mode !== 'task') {
      if (answer['resultType'] !== 'complete') throw new Error(`not answered inline: ${JSON.stringify(answer).slice(0, 200)}`);
      return ok(answer);
    }
    for (;;) {
      const task = await post('tasks/get', { taskId: answer['taskId'] });
      if (task['status'] === 'completed') return ok(task['result']);
    }
  };
  try {
    for (let i = 0; i < 20; i++) await call();
    globalThis.gc?.();
    const start = performance.now();
    for (let i = 0; i < n; i++) await call();
    return n / ((performance.now() - start) / 1000);
  } finally {
    await runtime.dispose();
  }
}

/**
 * Measures an instant tool answered inline against a plain call on the same server.
 *
 * @example
 * ```ts
 * for (const table of await run({ quick: true })) console.log(renderTable(table));
 * ```
 */
export const run: Benchmark = async ({ quick }) => {
  const rounds = quick ? 3 : 5;
  const n = quick ? 300 : 1000;
  for (const server of [dispatcher, sdkV2]) for (const mode of ['inline', 'plain', 'task'] as const) await sample(server, mode, 100);
  const row = (name: string, r: { ours: number; baseline: number }) => ({ name, ours: r.ours, baseline: r.baseline, unit: 'calls/s', higherIsBetter: true });
  return [
    {
      title: 'Answer inline if fast (2026-07-28, inlineWithinMs): an instant tool answered inline vs a plain call',
      baselineName: 'plain call (no task) / task polled',
      method:
        `Sequential tools/call of a tool that answers 'ok' at once, ${n} per sample, median of ${rounds} samples alternating the two sides, each on a fresh runtime after ` +
        `20 warm-up calls and one unmeasured pass per side; every answer checked to be 'ok'. Ours: the tasks extension declared, server inlineWithinMs ` +
        `${WINDOW_MS}: a task created, its outcome awaited, the plain result answered (resultType complete). Baselines: the same server, no extension declared (the ` +
        'work runs at once, no task); and the extension declared with the window off (resultType task, then tasks/get until completed). Each request a JSON body: ' +
        'through createStatelessHandler (the dispatcher `serve` mounts beside SDK v1), and through createMcpHandler(…).fetch (SDK v2, a server per request).',
      rows: [
        row('stateless dispatcher: inline vs plain', await alternate(rounds, () => sample(dispatcher, 'inline', n), () => sample(dispatcher, 'plain', n))),
        row('SDK v2 embedding: inline vs plain', await alternate(rounds, () => sample(sdkV2, 'inline', n), () => sample(sdkV2, 'plain', n))),
        row('stateless dispatcher: inline vs a task and tasks/get until completed (window off)', await alternate(rounds, () => sample(dispatcher, 'inline', n), () => sample(dispatcher, 'task', n))),
      ],
    },
  ] satisfies BenchTable[];
};
