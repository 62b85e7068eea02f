/**
 * Embedding mcp-task-actors in your own `@modelcontextprotocol/sdk` server: one runtime, your own
 * tool, and a client that asks for the call as a SEP-1686 task, polls it and fetches the result.
 * Everything runs in one process over the SDK's in-memory transport.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolResultSchema, ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { attachTaskServer } from 'mcp-task-actors/adapters/mcp-server';
import { createTaskRuntime, defineTaskTool } from 'mcp-task-actors';

/** A tool of your own: counts words slowly, reporting progress as the task's status message. */
const countWords = defineTaskTool({
  name: 'count_words',
  description: 'Counts the words of a text, one word every 10 ms.',
  inputSchema: z.object({ text: z.string() }),
  taskSupport: 'optional',
  run: async ({ text }, ctx) => {
    const words = text.split(/\s+/).filter(Boolean);
    for (let i = 0; i < words.length; i++) {
      ctx.setStatusMessage(`word ${i + 1}/${words.length}`);
      await delay(10, undefined, { signal: ctx.signal });
    }
    return { content: [{ type: 'text', text: `${words.length} words` }] };
  },
});

/** Runs the example and returns what the client saw. */
export async function main(): Promise<{ statuses: string[]; result: string }> {
  // 1. One runtime for the whole process; your SDK server hosts tasks through it.
  const runtime = createTaskRuntime({ defaultKeepAlive: 60_000 });
  const server = new Server({ name: 'my-server', version: '1.0.0' });
  attachTaskServer(server, { runtime, tools: [countWords] });

  // 2. A client (any MCP client can do this: the task request is plain `_meta`).
  const client = new Client({ name: 'my-client', version: '1.0.0' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);

  const taskId = 'count-1';
  const call = client.request(
    {
      method: 'tools/call',
      params: {
        name: 'count_words',
        arguments: { text: 'tasks let a requester call now and fetch later' },
        _meta: { 'modelcontextprotocol.io/task': { taskId, keepAlive: 30_000 } },
      },
    },
    CallToolResultSchema,
  );

  // 3. Poll with tasks/get until the task is terminal, then fetch the result with tasks/result.
  const TaskSchema = ResultSchema.extend({ status: z.string(), pollFrequency: z.number().optional() });
  const statuses: string[] = [];
  for (;;) {
    const task = await client.request({ method: 'tasks/get', params: { taskId } }, TaskSchema);
    if (statuses.at(-1) !== task.status) statuses.push(task.status);
    if (['completed', 'failed', 'cancelled', 'unknown'].includes(task.status)) break;
    await delay(20);
  }
  const result = await client.request({ method: 'tasks/result', params: { taskId } }, CallToolResultSchema);
  await call; // the original request is answered too, with the same result
  await client.close();
  await runtime.dispose();
  const first = result.content[0];
  return { statuses, result: first?.type === 'text' ? first.text : '' };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await main());
}
