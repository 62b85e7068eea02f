import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { expect, it } from 'vitest';
import { demoDefinitions } from '../../adapters/cli/demo-tools.js';
import { attachTaskServerV2 } from '../../adapters/mcp-server-v2/index.js';
import { createTaskRuntime } from '../../runtime/index.js';

const runtime = createTaskRuntime();
// Exactly the composition attachTaskServerV2's own documentation shows.
const handler = createMcpHandler(() => {
  const server = new McpServer({ name: 'reports', version: '1.0.0' });
  attachTaskServerV2(server, { runtime, ...demoDefinitions });
  return server;
});

let id = 0;
async function legacy(method: string, params: Record<string, unknown>): Promise<any> {
  const res = await handler.fetch(
    new Request('http://x/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
    }),
  );
  const text = await res.text();
  const data = text.startsWith('{') ? text : text.split('\n').find((l) => l.startsWith('data: '))!.slice(6);
  return JSON.parse(data);
}

it('an anonymous legacy requester lists and cancels another anonymous requester\'s task', async () => {
  // Requester A (its own stateless POST).
  const created = await legacy('tools/call', { name: 'long_job', arguments: { seconds: 30 }, task: { ttl: 60_000 } });
  console.log('CREATED', JSON.stringify(created));
  const taskId = created.result.task.taskId as string;
  // Requester B, unrelated: lists everything anonymous.
  const listed = await legacy('tasks/list', {});
  console.log('LISTED', JSON.stringify(listed));
  const cancelled = await legacy('tasks/cancel', { taskId });
  console.log('CANCELLED', JSON.stringify(cancelled));
  expect(listed.result.tasks.map((t: { taskId: string }) => t.taskId)).not.toContain(taskId);
});
