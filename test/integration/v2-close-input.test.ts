/**
 * SDK v2: a connection that closes while its tasks/result carries a task's question leaves the
 * question pending for the requester's next connection (SDK v2 words the close CONNECTION_CLOSED).
 */
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, McpServer } from '@modelcontextprotocol/server';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { attachTaskServerV2 } from '../../adapters/mcp-server-v2/index.js';
import type { TaskToolDefinition } from '../../adapters/wire/definitions.js';
import { createTaskRuntime } from '../../runtime/index.js';

const ask: TaskToolDefinition<Record<string, never>> = {
  name: 'ask',
  inputSchema: z.object({}),
  run: async (_args, ctx) => {
    const answer = await ctx.elicit({ message: 'name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    return { content: [{ type: 'text', text: JSON.stringify(answer) }] };
  },
};
const Any = z.looseObject({});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it('an input carried by tasks/result stays pending when the v2 connection closes', async () => {
  const runtime = createTaskRuntime();
  const server = new McpServer({ name: 's', version: '1' });
  attachTaskServerV2(server, { runtime, tools: [ask], standaloneInput: { afterMs: false } });
  const client = new Client({ name: 'c', version: '1' }, { capabilities: { elicitation: {} } });
  let asked = 0;
  client.setRequestHandler('elicitation/create', async () => { asked++; return new Promise(() => undefined); });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(b), client.connect(a)]);
  const created = (await client.request({ method: 'tools/call', params: { name: 'ask', arguments: {}, task: { ttl: 60_000 } } } as never, Any)) as any;
  const taskId = created.task.taskId as string;
  // In-memory transport, no session: the connection is its own requester.
  const owner = (await runtime.observe().list()).find((t) => t.taskId === taskId)!.owner;
  expect(owner.session).not.toBeNull();
  void client.request({ method: 'tasks/result', params: { taskId } } as never, Any, { timeout: 60_000 }).catch(() => undefined);
  for (let i = 0; asked === 0 && i < 100; i++) await sleep(20);
  await client.close();
  await sleep(200);
  expect((await runtime.get(taskId, owner, { countsAsPoll: false })).status).toBe('input_required');
  const pending = await runtime.pendingInputRequests(taskId, owner);
  await runtime.dispose();
  expect(pending.length).toBe(1);
});
