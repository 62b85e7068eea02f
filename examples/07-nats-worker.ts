/**
 * Your own NATS workers: the tools are defined once; a worker process registers their work on a
 * NATS runtime with role `worker` and runs them; a front process serves MCP with the same
 * definitions on a runtime with role `front` and runs nothing. A task of a tool no live worker
 * serves ends `failed` after `unservedTimeoutMs`, with a status message naming the tool.
 *
 * Here both processes run in one for brevity; in production `startWorker` and `startFront` are
 * two programs (or `mcp-tasks serve --nats URL --role worker` for the demo tools). Needs a
 * nats-server with JetStream (`nats-server -js`).
 */
import { setTimeout as delay } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolResultSchema, ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { defineTaskTool, registerTaskWork } from 'mcp-task-actors';
import { attachTaskServer } from 'mcp-task-actors/adapters/mcp-server';
import { createNatsTaskRuntime, type NatsTaskRuntime } from 'mcp-task-actors/nats';

// tools.ts: the definitions, shared by the worker and the front.
export const countWords = defineTaskTool({
  name: 'count_words',
  description: 'Counts the words of a text, one word every 10 ms.',
  inputSchema: z.object({ text: z.string() }),
  taskSupport: 'optional',
  // Safe to run again from the start if its worker is lost.
  retry: 'restart',
  run: async ({ text }, ctx) => {
    const words = text.split(/\s+/).filter(Boolean);
    for (let i = 0; i < words.length; i++) {
      ctx.setStatusMessage(`word ${i + 1}/${words.length}`);
      await delay(10, undefined, { signal: ctx.signal });
    }
    return { content: [{ type: 'text', text: `${words.length} words` }] };
  },
});

/** A tool the front offers but no worker here runs: its tasks wait for one, then fail. */
export const translate = defineTaskTool({
  name: 'translate',
  description: 'Translates a text (runs on the translation workers).',
  inputSchema: z.object({ text: z.string() }),
  taskSupport: 'required',
  run: () => Promise.reject(new Error('runs on a translation worker only')),
});

// worker.ts: runs the tools' work; serves no MCP.
export async function startWorker(servers: string, prefix: string): Promise<NatsTaskRuntime> {
  const runtime = await createNatsTaskRuntime({ nats: { servers }, prefix, role: 'worker', workerConcurrency: 16 });
  // The same definitions as the front: the work is registered under the names every node uses
  // (`tools/call:count_words`), and this node announces them while it is up.
  registerTaskWork(runtime, { tools: [countWords] });
  return runtime;
}

// front.ts: serves MCP (any seam: an SDK server, startHttpEndpoint…); runs nothing.
export async function startFront(servers: string, prefix: string, unservedTimeoutMs = 30_000): Promise<{ runtime: NatsTaskRuntime; server: Server }> {
  const runtime = await createNatsTaskRuntime({ nats: { servers }, prefix, role: 'front', unservedTimeoutMs });
  const server = new Server({ name: 'my-server', version: '1.0.0' });
  attachTaskServer(server, { runtime, tools: [countWords, translate] });
  return { runtime, server };
}

/** Runs a worker, a front and a client; returns what the client saw. */
export async function main(servers = 'nats://127.0.0.1:4222', prefix = 'example07'): Promise<{ counted: string; translate: { status: string; statusMessage?: string | undefined } }> {
  const worker = await startWorker(servers, prefix);
  const front = await startFront(servers, prefix, 1_000);
  const client = new Client({ name: 'my-client', version: '1.0.0' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await Promise.all([front.server.connect(serverSide), client.connect(clientSide)]);

  const TaskSchema = ResultSchema.extend({ status: z.string(), statusMessage: z.string().optional() });
  const start = (name: string, taskId: string): void => {
    const call = client.request(
      { method: 'tools/call', params: { name, arguments: { text: 'tasks run where the workers are' }, _meta: { 'modelcontextprotocol.io/task': { taskId, keepAlive: 60_000 } } } },
      CallToolResultSchema,
    );
    // The task's outcome is read below (tasks/get, tasks/result).
    call.catch(() => undefined);
  };
  const ended = async (taskId: string): Promise<z.infer<typeof TaskSchema>> => {
    for (;;) {
      const task = await client.request({ method: 'tasks/get', params: { taskId } }, TaskSchema);
      if (['completed', 'failed', 'cancelled', 'unknown'].includes(task.status)) return task;
      await delay(50);
    }
  };

  // Ran by the worker.
  start('count_words', 'count-1');
  await ended('count-1');
  const result = await client.request({ method: 'tasks/result', params: { taskId: 'count-1' } }, CallToolResultSchema);
  const first = result.content[0];
  // No live worker serves `translate`: after unservedTimeoutMs (1 s here) it ends failed.
  start('translate', 'translate-1');
  const unserved = await ended('translate-1');

  await client.close();
  await front.runtime.dispose();
  await worker.dispose();
  return { counted: first?.type === 'text' ? first.text : '', translate: { status: unserved.status, statusMessage: unserved.statusMessage } };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await main(process.argv[2]));
}
