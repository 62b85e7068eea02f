/**
 * Keeping your `McpServer` + `registerToolTask` code and moving its tasks onto mcp-task-actors:
 * the one-line change is `taskStore: new RuntimeTaskStore(runtime)`. A 2025-11-25 SDK client then
 * calls the tool as a task and streams it to its result.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { RuntimeTaskStore } from 'mcp-task-actors/adapters/mcp-server';
import { createTaskRuntime } from 'mcp-task-actors';

/** Runs the example and returns the kinds of messages the client's stream yielded, and the result text. */
export async function main(): Promise<{ kinds: string[]; text: string }> {
  const runtime = createTaskRuntime();
  const server = new McpServer(
    { name: 'sdk-server', version: '1.0.0' },
    {
      capabilities: { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
      taskStore: new RuntimeTaskStore(runtime), // ← the one line
    },
  );

  // Unchanged SDK code: create the task, work in the background, store the result.
  server.experimental.tasks.registerToolTask(
    'slow_add',
    { description: 'Adds two numbers after a pause.', inputSchema: { a: z.number(), b: z.number() } },
    {
      async createTask({ a, b }, { taskStore, taskRequestedTtl }) {
        const task = await taskStore.createTask({ ttl: taskRequestedTtl ?? null });
        void (async () => {
          await delay(50);
          await taskStore.storeTaskResult(task.taskId, 'completed', { content: [{ type: 'text', text: String(a + b) }] });
        })();
        return { task };
      },
      async getTask(_args, { taskId, taskStore }) {
        return taskStore.getTask(taskId);
      },
      async getTaskResult(_args, { taskId, taskStore }) {
        return (await taskStore.getTaskResult(taskId)) as never;
      },
    },
  );

  const client = new Client({ name: 'sdk-client', version: '1.0.0' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);

  const kinds: string[] = [];
  let text = '';
  const stream = client.experimental.tasks.callToolStream({ name: 'slow_add', arguments: { a: 2, b: 3 } }, CallToolResultSchema, {
    task: { ttl: 60_000 },
  });
  for await (const message of stream) {
    kinds.push(message.type);
    if (message.type === 'result' && message.result.content[0]?.type === 'text') text = message.result.content[0].text;
  }
  await client.close();
  await runtime.dispose();
  return { kinds, text };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await main());
}
