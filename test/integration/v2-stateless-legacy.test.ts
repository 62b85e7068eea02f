/**
 * SDK v2's stateless legacy serving (`createMcpHandler`'s default): a 2025-11-25 request over HTTP
 * with neither a session nor a principal. Nothing tells one such requester from another, so it
 * gets no tasks: a task request, tasks/list and tasks/get are refused with an error that says
 * why, while a plain call still works.
 */
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

const NO_TASKS = 'Tasks need a session or an authenticated principal';

it('refuses tasks to an anonymous requester without a session, saying why, and still answers a plain call', async () => {
  const created = await legacy('tools/call', { name: 'long_job', arguments: { seconds: 30 }, task: { ttl: 60_000 } });
  expect(created.error).toMatchObject({ code: -32600 });
  expect(created.error.message).toContain(NO_TASKS);
  for (const [method, params] of [['tasks/list', {}], ['tasks/get', { taskId: 'x' }], ['tasks/cancel', { taskId: 'x' }]] as const) {
    const refused = await legacy(method, params);
    expect(refused.error?.message, method).toContain(NO_TASKS);
  }
  expect(await runtime.list({ session: null, principal: null })).toMatchObject({ tasks: [] });
  const plain = await legacy('tools/call', { name: 'sleep', arguments: { ms: 1 } });
  expect(plain.result.content).toEqual([{ type: 'text', text: 'slept 1 ms' }]);
});
