/**
 * An SDK v2 McpServer with task tools from attachTaskServerV2 and a prompt and a resource of its
 * own (registered after the attach): the SDK serves its own as before, on the 2026-07-28 wire;
 * malformed task requests get a clear JSON-RPC error.
 */
import { McpServer } from '@modelcontextprotocol/server';
import { afterAll, expect, it } from 'vitest';
import { demoDefinitions } from '../../adapters/cli/demo-tools.js';
import { attachTaskServerV2, createTaskHttpHandlerV2 } from '../../adapters/mcp-server-v2/index.js';
import { createTaskRuntime } from '../../runtime/index.js';

const runtime = createTaskRuntime();
const endpoint = createTaskHttpHandlerV2(() => {
  const server = new McpServer({ name: 'mixed', version: '1.0.0' });
  // The McpServer's own resource and prompt, next to task tools.
  attachTaskServerV2(server, { runtime, tools: demoDefinitions.tools });
  server.registerResource('notes', 'memo://notes', {}, async () => ({ contents: [{ uri: 'memo://notes', text: 'hello' }] }));
  server.registerPrompt('hi', {}, async () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }] }));
  return server;
});
afterAll(async () => {
  await endpoint.close();
  await runtime.dispose();
});

const CAPS = { elicitation: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } };
let id = 0;
async function modern(method: string, params: Record<string, unknown>, name?: string, caps: Record<string, unknown> = CAPS): Promise<any> {
  const res = await endpoint.fetch(
    new Request('http://x/mcp', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': method,
        ...(name !== undefined && { 'mcp-name': name }),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: ++id,
        method,
        params: {
          ...params,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': caps,
          },
        },
      }),
    }),
  );
  const text = await res.text();
  const data = text.startsWith('{') ? text : text.split('\n').find((l) => l.startsWith('data: '))!.slice(6);
  return { status: res.status, ...JSON.parse(data) };
}

it('the McpServer own resource is still readable on 2026-07-28', async () => {
  const read = await modern('resources/read', { uri: 'memo://notes' }, 'memo://notes');
  expect(read.result?.contents?.[0]?.text).toBe('hello');
});

it('the McpServer own prompt is still gettable on 2026-07-28', async () => {
  const got = await modern('prompts/get', { name: 'hi' }, 'hi');
  expect(got.result?.messages).toBeDefined();
});

it.each([
  ['tasks/get', {}],
  ['tasks/get', { taskId: 5 }],
  ['tasks/get', { taskId: 'nope' }],
  ['tasks/update', { taskId: 'nope', inputResponses: 'x' }],
  ['tasks/update', { taskId: 'nope', inputResponses: [] }],
  ['tasks/cancel', { taskId: '' }],
  ['tools/call', { name: 'sleep', arguments: 'x' }],
  ['tools/call', { name: 'sleep', arguments: { ms: 1 }, inputResponses: 5 }],
  ['tasks/list', {}],
  ['tasks/result', { taskId: 'x' }],
])('modern %s %j answers a JSON-RPC error', async (method, params) => {
  const r = await modern(method, params, (params as { taskId?: string; name?: string }).taskId ?? (params as { name?: string }).name);
  expect(r.error ?? r.result).toBeDefined();
});
