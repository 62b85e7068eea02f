/**
 * "Task lifecycle over MCP, embedded": complete task lifecycles (create → completed → result in
 * hand) per second between a real SDK `Client` and a server in the same process, over the SDK's
 * `InMemoryTransport`, for a tool that answers at once. So the figures are the cost of the task
 * machinery and the protocol, not of any work.
 *
 * Sides measured, each on a fresh connection (and fresh runtime or store) per sample:
 * - ours, 2025-11-25: `tools/call` with `params.task`, then `tasks/result` (blocks until done);
 * - ours, SEP-1686: `tools/call` with `_meta["modelcontextprotocol.io/task"]`, answered with the result;
 * - ours, 2025-11-25 through the SDK's `callToolStream` (create, `tasks/get` polls, `tasks/result`);
 * - the SDK's own tasks: `McpServer` + `InMemoryTaskStore` + `registerToolTask`, `callToolStream`;
 * - plain `tools/call` on our server and on an SDK `McpServer`, the floor a task is compared with.
 *
 * @module
 */
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolResultSchema, CreateTaskResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { createTaskServer, type TaskToolDefinition } from '../adapters/mcp-server/index.js';
import { createTaskRuntime, type TaskRuntimeOptions } from '../runtime/index.js';
import { alternate, type Benchmark, type BenchRow, type BenchTable } from './lib/report.js';

const TOOL = 'ok';
const TTL = 60_000;
const SEP_TASK_KEY = 'modelcontextprotocol.io/task';
const INFO = { name: 'bench', version: '1.0.0' };
/** Calls made on each fresh connection before the clock starts (lazy state, inline caches). */
const WARMUP_CALLS = 20;

const okResult = (): CallToolResult => ({ content: [{ type: 'text', text: 'ok' }] });

/** The first text of a result: every measured call must say 'ok', or the run is measuring an error path. */
function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' ? first.text : `<no text: ${JSON.stringify(result).slice(0, 200)}>`;
}

/** A connected requester and server; `call` runs one complete lifecycle and returns the result's text. */
interface Pair {
  call(): Promise<string>;
  close(): Promise<void>;
}
type Side = () => Promise<Pair>;

async function connect(server: { connect(t: InMemoryTransport): Promise<void> }): Promise<Client> {
  const client = new Client({ name: 'bench-client', version: '1.0.0' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  return client;
}

/** How the requester asks our server: the 2025-11-25 or SEP-1686 dialect, the SDK's stream helper, or no task at all. */
type OursMode = '2025' | 'sep' | 'stream' | 'plain';

/** Our server (createTaskServer over a fresh runtime), the same task-capable server for every mode, so a plain call is its true floor. */
function ours(mode: OursMode, runtimeOptions: TaskRuntimeOptions = {}): Side {
  return async () => {
    const runtime = createTaskRuntime(runtimeOptions);
    const tool: TaskToolDefinition = { name: TOOL, inputSchema: z.object({}), taskSupport: 'optional', run: async () => okResult() };
    const server = createTaskServer(INFO, { runtime, tools: [tool] });
    const client = await connect(server);
    let seq = 0;
    const calls: Record<OursMode, () => Promise<string>> = {
      // What the spec says a requester does to get the result: create, then tasks/result, which blocks until the task ends.
      '2025': async () => {
        const { task } = await client.request({ method: 'tools/call', params: { name: TOOL, arguments: {} } }, CreateTaskResultSchema, { task: { ttl: TTL } });
        return textOf(await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema));
      },
      // The requester names the task; the original request is answered with the result when the task ends.
      sep: async () => {
        const _meta = { [SEP_TASK_KEY]: { taskId: `t${++seq}`, keepAlive: TTL } };
        return textOf(await client.request({ method: 'tools/call', params: { name: TOOL, arguments: {}, _meta } }, CallToolResultSchema));
      },
      stream: () => streamToResult(client),
      plain: async () => textOf(await client.request({ method: 'tools/call', params: { name: TOOL, arguments: {} } }, CallToolResultSchema)),
    };
    return {
      call: calls[mode],
      close: async () => {
        await client.close();
        await server.close();
        await runtime.dispose();
      },
    };
  };
}

/** What an SDK 1.x requester does with a task tool: `callToolStream` until its `result` message. */
async function streamToResult(client: Client): Promise<string> {
  const stream = client.experimental.tasks.callToolStream({ name: TOOL, arguments: {} }, CallToolResultSchema, { task: { ttl: TTL } });
  for await (const message of stream) {
    if (message.type === 'result') return textOf(message.result);
    if (message.type === 'error') throw message.error;
  }
  throw new Error('callToolStream ended without a result');
}

/**
 * The SDK's own server: with `mode: 'task'`, `McpServer` + `InMemoryTaskStore` + `registerToolTask`
 * called through `callToolStream`; with `'plain'`, a server without any task store (which would add
 * a per-request cost even to plain calls) and `registerTool`.
 */
function sdk(mode: 'task' | 'plain'): Side {
  return async () => {
    const store = mode === 'task' ? new InMemoryTaskStore() : undefined;
    const server = store
      ? new McpServer(INFO, { capabilities: { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } }, taskStore: store })
      : new McpServer(INFO);
    if (store) {
      server.experimental.tasks.registerToolTask(
        TOOL,
        {},
        {
          // The work is done before createTask returns, so the first tasks/get already sees
          // `completed` and the client never sleeps a poll interval: the SDK's best case.
          createTask: async ({ taskStore, taskRequestedTtl }) => {
            const task = await taskStore.createTask({ ttl: taskRequestedTtl ?? null });
            await taskStore.storeTaskResult(task.taskId, 'completed', okResult());
            return { task };
          },
          getTask: async ({ taskId, taskStore }) => taskStore.getTask(taskId),
          getTaskResult: async ({ taskId, taskStore }) => (await taskStore.getTaskResult(taskId)) as CallToolResult,
        },
      );
    } else {
      server.registerTool(TOOL, {}, async () => okResult());
    }
    const client = await connect(server);
    const call = store
      ? () => streamToResult(client)
      : async () => textOf(await client.request({ method: 'tools/call', params: { name: TOOL, arguments: {} } }, CallToolResultSchema));
    return {
      call,
      close: async () => {
        await client.close();
        await server.close();
        store?.cleanup(); // its ttl timers would otherwise outlive the sample
      },
    };
  };
}

/** Runs `n` calls, `concurrency` at a time, checking every answer. */
async function drive(pair: Pair, n: number, concurrency: number): Promise<void> {
  let started = 0;
  const worker = async (): Promise<void> => {
    while (started < n) {
      started++;
      const text = await pair.call();
      if (text !== 'ok') throw new Error(`a measured call answered '${text}' instead of 'ok'`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
}

/** One sample: calls/s over a fresh connection, warmed up first, closed after. */
async function sample(side: Side, n: number, concurrency: number): Promise<number> {
  const pair = await side();
  try {
    await drive(pair, WARMUP_CALLS, concurrency);
    globalThis.gc?.();
    const start = performance.now();
    await drive(pair, n, concurrency);
    return n / ((performance.now() - start) / 1000);
  } finally {
    await pair.close();
  }
}

const perCallMicros = (callsPerSecond: number): number => 1e6 / callsPerSecond;

/**
 * Measures task lifecycles over the SDK's in-memory transport: ours against the SDK's own tasks,
 * and a task-augmented call against a plain one.
 *
 * @example
 * ```ts
 * for (const table of await run({ quick: true })) console.log(renderTable(table));
 * ```
 */
export const run: Benchmark = async ({ quick }) => {
  const rounds = quick ? 3 : 5;
  const modes = [
    { label: 'sequential', n: quick ? 200 : 1000, concurrency: 1 },
    { label: '50 concurrent', n: quick ? 300 : 1000, concurrency: 50 },
  ];
  const sides = {
    ours2025: ours('2025'),
    oursSep: ours('sep'),
    // The server's own poll interval (the default, 1000 ms): what a real SDK requester gets.
    oursStream: ours('stream'),
    oursPlain: ours('plain'),
    sdkTask: sdk('task'),
    sdkPlain: sdk('plain'),
  };
  // Every side runs an unmeasured pass first, so no side pays for JIT warm-up in a sample: V8 needs
  // thousands of calls before the per-sample figures settle. Once per side is enough (the concurrent
  // runs go through the same code).
  const warmCalls = quick ? 500 : 2000;
  for (const side of Object.values(sides)) await sample(side, warmCalls, 1);
  const vsSdk: BenchRow[] = [];
  const vsPlain: BenchRow[] = [];
  for (const m of modes) {
    const measure = (side: Side, n = m.n) => () => sample(side, n, m.concurrency);
    const throughput = (name: string, r: { ours: number; baseline: number }, target?: number): BenchRow => ({
      name,
      ours: r.ours,
      baseline: r.baseline,
      unit: 'calls/s',
      higherIsBetter: true,
      ...(target !== undefined && { target: `≥ ${target}× SDK`, met: r.ours >= target * r.baseline }),
    });
    const cost = (name: string, r: { ours: number; baseline: number }, target?: number): BenchRow => {
      const row = { name, ours: perCallMicros(r.ours), baseline: perCallMicros(r.baseline), unit: 'µs/call', higherIsBetter: false };
      return target === undefined ? row : { ...row, target: `≤ ${target}× plain`, met: row.ours <= target * row.baseline };
    };
    vsSdk.push(throughput(`${m.label}, 2025-11-25`, await alternate(rounds, measure(sides.ours2025), measure(sides.sdkTask)), 1.1));
    vsSdk.push(throughput(`${m.label}, SEP-1686`, await alternate(rounds, measure(sides.oursSep), measure(sides.sdkTask)), 1.6));
    // ≤ 1.2× the SDK's time per call is ≥ 1/1.2 of its throughput.
    vsSdk.push(throughput(`${m.label}, 2025-11-25 via callToolStream (server's poll interval)`, await alternate(rounds, measure(sides.oursStream), measure(sides.sdkTask)), 0.83));
    vsPlain.push(cost(`${m.label}, 2025-11-25: task vs our plain call`, await alternate(rounds, measure(sides.ours2025), measure(sides.oursPlain)), 2.2));
    vsPlain.push(cost(`${m.label}, SEP-1686: task vs our plain call`, await alternate(rounds, measure(sides.oursSep), measure(sides.oursPlain)), 1.5));
    vsPlain.push(cost(`${m.label}, SDK reference: SDK task vs SDK plain call`, await alternate(rounds, measure(sides.sdkTask), measure(sides.sdkPlain))));
  }
  const sizes = modes.map((m) => `${m.label}: ${m.n} calls${m.concurrency > 1 ? `, ${m.concurrency} in flight` : ''}`).join('; ');
  const how =
    `Real SDK Client and server in one process over InMemoryTransport; the tool returns text 'ok' at once. ${sizes}. ` +
    `Median of ${rounds} samples alternating the two sides, each on a fresh connection (and runtime or store) after ${WARMUP_CALLS} warm-up calls; ` +
    `every side first makes an unmeasured pass of ${warmCalls} calls, and every answer is checked to be ok.`;
  return [
    {
      title: 'Task lifecycle over MCP, embedded: ours vs the SDK 1.x tasks',
      baselineName: 'SDK 1.x tasks',
      method:
        `${how} Ours, 2025-11-25: tools/call with params.task = {ttl} → CreateTaskResult, then tasks/result (client.experimental.tasks.getTaskResult), ` +
        'which blocks until the task ends: 2 round trips. Ours, SEP-1686: tools/call with _meta task {taskId, keepAlive}, answered with the result ' +
        '(1 round trip plus notifications/tasks/created). Ours via callToolStream: the SDK 1.x client helper (create, tasks/get, sleep pollInterval while working, ' +
        'tasks/result) against our server with its default poll interval (1000 ms): a call that saw `working` at its first tasks/get would sleep for it; ' +
        'target ≥ 0.83× (≤ 1.2× the SDK time per call). SDK: McpServer + InMemoryTaskStore + registerToolTask whose createTask ' +
        'stores the result before returning (its best case: the first tasks/get sees completed), client callToolStream: 3 round trips.',
      rows: vsSdk,
    },
    {
      title: 'Task lifecycle over MCP, embedded: task-augmented call vs plain call',
      baselineName: 'plain tools/call',
      method:
        `${how} Cost per call = 1 / throughput. Plain: tools/call without task metadata (client.request) on the same kind of server: ` +
        'ours = createTaskServer (the very server the task rows use), SDK = McpServer.registerTool without a task store. Tasks as in the table above; the SDK row is for reference (no target).',
      rows: vsPlain,
    },
  ] satisfies BenchTable[];
};
