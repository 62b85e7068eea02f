/**
 * The sides the MCP benchmarks measure, each a connected requester and server in one process over
 * the SDK's `InMemoryTransport`, for a tool that answers at once: ours in each wire dialect (and
 * a plain call on the same server), and the SDK 1.x's own tasks (and its plain call).
 *
 * @module
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolResultSchema, CreateTaskResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { createTaskServer, type TaskToolDefinition } from '../../adapters/mcp-server/index.js';
import { createTaskRuntime, type TaskRuntimeOptions } from '../../runtime/index.js';

const TOOL = 'ok';
const TTL = 60_000;
const SEP_TASK_KEY = 'modelcontextprotocol.io/task';
const INFO = { name: 'bench', version: '1.0.0' };

const okResult = (): CallToolResult => ({ content: [{ type: 'text', text: 'ok' }] });

/** The first text of a result: every measured call must say 'ok', or the run is measuring an error path. */
export function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' ? first.text : `<no text: ${JSON.stringify(result).slice(0, 200)}>`;
}

/** A connected requester and server; `call` runs one complete lifecycle and returns the result's text. */
export interface Pair {
  call(): Promise<string>;
  close(): Promise<void>;
}
export type Side = () => Promise<Pair>;

async function connect(server: { connect(t: InMemoryTransport): Promise<void> }): Promise<Client> {
  const client = new Client({ name: 'bench-client', version: '1.0.0' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  return client;
}

/** How the requester asks our server: the 2025-11-25 or SEP-1686 dialect, the SDK's stream helper, or no task at all. */
export type OursMode = '2025' | 'sep' | 'stream' | 'plain';

/** Our server (createTaskServer over a fresh runtime), the same task-capable server for every mode, so a plain call is its true floor. */
export function ours(mode: OursMode, runtimeOptions: TaskRuntimeOptions = {}): Side {
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
export function sdk(mode: 'task' | 'plain'): Side {
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

