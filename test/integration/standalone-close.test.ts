/**
 * A connection that closes while its requester waits on a task's input (a tasks/result open, the
 * question in flight or asked just after): the input stays pending for the requester's next
 * connection, never answered with the closed connection's error.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { attachTaskServer } from '../../adapters/mcp-server/attach-task-server.js';
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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it.each([true, false])('a connection closing while tasks/result is open leaves the input pending (fastLane %s)', async (fastLane) => {
  const runtime = createTaskRuntime();
  const server = new Server({ name: 's', version: '1' }, { capabilities: {} });
  attachTaskServer(server, { runtime, tools: [ask], fastLane });
  const [ct, st] = InMemoryTransport.createLinkedPair();
  await server.connect(st);
  const client = new Client({ name: 'c', version: '1' }, { capabilities: { elicitation: {} } });
  let asked = 0;
  // A human who never answers.
  client.setRequestHandler(ElicitRequestSchema, () => (asked++, new Promise(() => undefined)));
  await client.connect(ct);
  const created = (await client.request({ method: 'tools/call', params: { name: 'ask', arguments: {}, task: { ttl: 60_000 } } }, z.looseObject({}))) as { task: { taskId: string } };
  const taskId = created.task.taskId;
  // tasks/result opened at once (before the standalone grace): the input goes over it.
  void client.request({ method: 'tasks/result', params: { taskId } }, z.looseObject({}), { timeout: 60_000 }).catch(() => undefined);
  await sleep(100);
  expect(asked).toBe(1);
  await client.close();
  await sleep(800);
  const owner = { session: null, principal: null };
  const task = await runtime.get(taskId, owner, { countsAsPoll: false });
  // The requester left: the task must keep waiting for input (another connection may answer it).
  expect(task.status).toBe('input_required');
  await runtime.dispose();
});

const askLater: TaskToolDefinition<Record<string, never>> = {
  name: 'ask_later',
  inputSchema: z.object({}),
  run: async (_args, ctx) => {
    await sleep(400);
    const answer = await ctx.elicit({ message: 'name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    return { content: [{ type: 'text', text: JSON.stringify(answer) }] };
  },
};

it.each([true, false])('input asked after the connection closed (a tasks/result was open) stays pending (fastLane %s)', async (fastLane) => {
  const runtime = createTaskRuntime();
  const server = new Server({ name: 's', version: '1' }, { capabilities: {} });
  attachTaskServer(server, { runtime, tools: [askLater], fastLane });
  const [ct, st] = InMemoryTransport.createLinkedPair();
  await server.connect(st);
  const client = new Client({ name: 'c', version: '1' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, () => new Promise(() => undefined));
  await client.connect(ct);
  const created = (await client.request({ method: 'tools/call', params: { name: 'ask_later', arguments: {}, task: { ttl: 60_000 } } }, z.looseObject({}))) as { task: { taskId: string } };
  const taskId = created.task.taskId;
  void client.request({ method: 'tasks/result', params: { taskId } }, z.looseObject({}), { timeout: 60_000 }).catch(() => undefined);
  await sleep(50);
  await client.close();
  await sleep(1200);
  const task = await runtime.get(taskId, { session: null, principal: null }, { countsAsPoll: false });
  expect(task.status).toBe('input_required');
  await runtime.dispose();
});
