/**
 * Beyond SEP-1686: a tool that fans out into subtasks and publishes what it has so far, a
 * requester that reads those partial results with a cursor, and a webhook that is called
 * (signed) when the task ends. One process: an SDK v1 server and client over the in-memory
 * transport, and a loopback HTTP receiver the runtime is allowed to call.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolResultSchema, CreateTaskResultSchema, ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { attachTaskServer } from 'mcp-task-actors/adapters/mcp-server';
import { createTaskRuntime, verifyPush, defineTaskTool } from 'mcp-task-actors';

const PARTIAL = 'io.github.mcp-task-actors/partial';
const SUBTASKS = 'io.github.mcp-task-actors/subtasks';
const PUSH = 'io.github.mcp-task-actors/push';
const SECRET = 'example-webhook-secret-0001';

/** Fetches one page; a subtask of `crawl`. */
const fetchPage = defineTaskTool({
  name: 'fetch_page',
  inputSchema: z.object({ page: z.number().int() }),
  run: async ({ page }, ctx) => {
    await delay(20 * page, undefined, { signal: ctx.signal });
    return { content: [{ type: 'text', text: `page ${page}` }] };
  },
});

/** Crawls `pages` pages at once, each a subtask, publishing each page as it arrives. */
const crawl = defineTaskTool({
  name: 'crawl',
  inputSchema: z.object({ pages: z.number().int().min(1).max(10) }),
  taskSupport: 'required',
  run: async ({ pages }, ctx) => {
    const children = await Promise.all(Array.from({ length: pages }, (_, i) => ctx.spawnTask!('fetch_page', { page: i + 1 })));
    // Each page is published as soon as its subtask ends, whatever the order.
    await Promise.all(children.map(async (child) => ctx.partial!((await child.outcome()).result)));
    await ctx.waitForSubtasks!(children, 'first-error');
    return { content: [{ type: 'text', text: `crawled ${pages} pages` }] };
  },
});

/** Runs the example; returns what the requester and the webhook saw. */
export async function main(): Promise<{ partials: string[]; subtasks: number; result: string; pushed: string[]; signed: boolean }> {
  // A webhook receiver on loopback, and a runtime whose operator allows exactly it.
  const pushed: { body: string; headers: Record<string, string | string[] | undefined> }[] = [];
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => (pushed.push({ body, headers: req.headers }), res.end()));
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const runtime = createTaskRuntime({ push: { allow: [hook] } });

  const server = new Server({ name: 'crawler', version: '1.0.0' });
  attachTaskServer(server, { runtime, tools: [crawl, fetchPage] });
  const client = new Client({ name: 'requester', version: '1.0.0' });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(b), client.connect(a)]);

  // A 2025-11-25 task, registering the webhook in `_meta`.
  const created = await client.request(
    { method: 'tools/call', params: { name: 'crawl', arguments: { pages: 3 }, task: { ttl: 60_000 }, _meta: { [PUSH]: { url: hook, secret: SECRET } } } },
    CreateTaskResultSchema,
  );
  const { taskId } = created.task;

  // Poll with the partial-result cursor: each page once, as it comes.
  const Task = ResultSchema.extend({ status: z.string() });
  const partials: string[] = [];
  let cursor: string | undefined;
  let subtasks = 0;
  for (;;) {
    const task = await client.request({ method: 'tasks/get', params: { taskId, _meta: { [PARTIAL]: cursor === undefined ? {} : { cursor } } } }, Task);
    const meta = task._meta as Record<string, { items?: { content: { content: { text: string }[] } }[]; nextCursor?: string; total?: number }>;
    for (const item of meta[PARTIAL]?.items ?? []) partials.push(item.content.content[0]!.text);
    cursor = meta[PARTIAL]?.nextCursor;
    subtasks = meta[SUBTASKS]?.total ?? subtasks;
    if (task.status === 'completed') break;
    await delay(10);
  }
  const result = await client.request({ method: 'tasks/result', params: { taskId } }, CallToolResultSchema);

  // The webhook hears of the end, signed with the requester's secret.
  while (pushed.length === 0) await delay(10);
  await client.close();
  await runtime.dispose();
  receiver.close();
  const first = result.content[0];
  return {
    partials: partials.sort(),
    subtasks,
    result: first?.type === 'text' ? first.text : '',
    pushed: pushed.map((p) => (JSON.parse(p.body) as { status: string }).status),
    signed: pushed.every((p) => verifyPush(p.body, p.headers, SECRET)),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await main());
}
