/**
 * Adopting the library keeps what the user had: on an `McpServer` of either SDK line, tools,
 * prompts and resources registered before or after `attachTaskServer`/`attachTaskServerV2` stay
 * listed and callable beside the task definitions, and a name both would serve is refused,
 * naming it. Served through `mcp-task-actors/http` (`startHttpEndpoint` on a port of its own, and
 * `createHttpHandler` mounted in the user's own `node:http` server beside a route of theirs), to
 * real SDK clients of both lines.
 */
import { createServer, type Server as NodeHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolResultSchema, CreateTaskResultSchema, GetTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as ClientV2, StreamableHTTPClientTransport as StreamableHTTPClientTransportV2 } from '@modelcontextprotocol/client';
import { McpServer as McpServerV2 } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTaskRuntime, defineTaskPrompt, defineTaskResource, defineTaskTool, type TaskRuntime } from '../../index.js';
import { attachTaskServer } from '../../adapters/mcp-server/index.js';
import { attachTaskServerV2 } from '../../adapters/mcp-server-v2/index.js';
import { createHttpHandler, startHttpEndpoint } from '../../adapters/http/index.js';

const countWords = defineTaskTool({
  name: 'count_words',
  inputSchema: z.object({ text: z.string() }),
  taskSupport: 'optional',
  run: async ({ text }) => ({ content: [{ type: 'text', text: `${text.split(/\s+/).filter(Boolean).length} words` }] }),
});
const report = defineTaskPrompt({ name: 'report', run: async () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'task prompt' } }] }) });
const digest = defineTaskResource({ uri: 'demo://digest', name: 'digest', run: async (uri) => ({ contents: [{ uri, text: 'task resource' }] }) });
const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function runtimeForTest(): TaskRuntime {
  const runtime = createTaskRuntime();
  cleanups.push(() => runtime.dispose());
  return runtime;
}

/** An SDK v1 McpServer the way a user has one: plain tools, a prompt and a resource, some registered after the attach. */
function userServerV1(runtime: TaskRuntime): McpServer {
  const mcp = new McpServer({ name: 'mine', version: '1.0.0' });
  mcp.registerTool('plain_existing', { description: 'registered before', inputSchema: { who: z.string() } }, ({ who }) => text(`hello ${who}`));
  mcp.registerPrompt('plain_prompt', {}, () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'plain prompt' } }] }));
  attachTaskServer(mcp, { runtime, tools: [countWords], prompts: [report], resources: [digest] });
  mcp.registerTool('plain_later', { description: 'registered after' }, () => text('later'));
  mcp.registerResource('notes', 'memo://notes', {}, (uri) => ({ contents: [{ uri: uri.href, text: 'plain resource' }] }));
  return mcp;
}

function userServerV2(runtime: TaskRuntime): McpServerV2 {
  const mcp = new McpServerV2({ name: 'mine', version: '1.0.0' });
  mcp.registerTool('plain_existing', { description: 'registered before', inputSchema: z.object({ who: z.string() }) }, ({ who }) => text(`hello ${who}`));
  mcp.registerPrompt('plain_prompt', {}, () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'plain prompt' } }] }));
  attachTaskServerV2(mcp, { runtime, tools: [countWords], prompts: [report], resources: [digest] });
  mcp.registerTool('plain_later', { description: 'registered after' }, () => text('later'));
  mcp.registerResource('notes', 'memo://notes', {}, (uri) => ({ contents: [{ uri: uri.href, text: 'plain resource' }] }));
  return mcp;
}

/** What a client of either line sees of the user's things and the task definitions together. */
interface Seen {
  listTools(): Promise<{ tools: { name: string }[] }>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
  listPrompts(): Promise<{ prompts: { name: string }[] }>;
  getPrompt(params: { name: string }): Promise<{ messages: unknown[] }>;
  listResources(): Promise<{ resources: { uri: string }[] }>;
  readResource(params: { uri: string }): Promise<{ contents: unknown[] }>;
}

async function expectBothServed(client: Seen): Promise<void> {
  expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['count_words', 'plain_existing', 'plain_later']);
  expect(await client.callTool({ name: 'plain_existing', arguments: { who: 'Ada' } })).toMatchObject(text('hello Ada'));
  expect(await client.callTool({ name: 'plain_later', arguments: {} })).toMatchObject(text('later'));
  expect(await client.callTool({ name: 'count_words', arguments: { text: 'one two three' } })).toMatchObject(text('3 words'));
  // An unknown name is still the McpServer's own answer (SDK v1: a tool error; v2: -32602), not another tool's.
  const unknown = await Promise.resolve()
    .then(() => client.callTool({ name: 'nope', arguments: {} }))
    .catch((error: { code?: number; message?: string }) => ({ code: error.code, message: error.message }));
  expect(unknown).toSatisfy((u: { isError?: boolean; code?: number; message?: string }) => u.isError === true || (u.code === -32602 && /nope/.test(u.message ?? '')));
  expect((await client.listPrompts()).prompts.map((p) => p.name).sort()).toEqual(['plain_prompt', 'report']);
  expect((await client.getPrompt({ name: 'plain_prompt' })).messages).toEqual([{ role: 'user', content: { type: 'text', text: 'plain prompt' } }]);
  expect((await client.getPrompt({ name: 'report' })).messages).toEqual([{ role: 'user', content: { type: 'text', text: 'task prompt' } }]);
  expect((await client.listResources()).resources.map((r) => r.uri).sort()).toEqual(['demo://digest', 'memo://notes']);
  expect((await client.readResource({ uri: 'memo://notes' })).contents).toEqual([{ uri: 'memo://notes', text: 'plain resource' }]);
  expect((await client.readResource({ uri: 'demo://digest' })).contents).toEqual([{ uri: 'demo://digest', text: 'task resource' }]);
}

async function connectV1(url: string): Promise<Client> {
  const client = new Client({ name: 'user', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  cleanups.push(() => client.close());
  return client;
}

describe('SDK v1 McpServer', () => {
  it('keeps the tools, prompts and resources registered on it, beside task definitions that still run as tasks', async () => {
    const runtime = runtimeForTest();
    const endpoint = await startHttpEndpoint({ port: 0, createServer: () => userServerV1(runtime) });
    cleanups.push(() => endpoint.close());
    const client = await connectV1(endpoint.url);
    await expectBothServed(client);
    // The task tool is still a task when asked for one (2025-11-25).
    const created = await client.request({ method: 'tools/call', params: { name: 'count_words', arguments: { text: 'a b' }, task: { ttl: 60_000 } } }, CreateTaskResultSchema);
    const { taskId } = created.task;
    let status = created.task.status;
    for (let i = 0; i < 200 && status !== 'completed'; i++) status = (await client.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema)).status;
    expect(status).toBe('completed');
    expect(await client.request({ method: 'tasks/result', params: { taskId } }, CallToolResultSchema)).toMatchObject(text('2 words'));
  });

  it('refuses a name both would serve, at attach time and when registered later, naming it', () => {
    const runtime = runtimeForTest();
    const mcp = new McpServer({ name: 'mine', version: '1.0.0' });
    mcp.registerTool('count_words', {}, () => text('mine'));
    expect(() => attachTaskServer(mcp, { runtime, tools: [countWords] })).toThrow(/tool 'count_words' is registered on the McpServer and is also a task tool/);
    const later = new McpServer({ name: 'mine', version: '1.0.0' });
    attachTaskServer(later, { runtime, tools: [countWords], resources: [digest] });
    expect(() => later.registerTool('count_words', {}, () => text('mine'))).toThrow(/tool 'count_words' is being registered/);
    expect(() => later.registerResource('d', 'demo://digest', {}, (uri) => ({ contents: [{ uri: uri.href, text: '' }] }))).toThrow(/resource 'demo:\/\/digest'/);
  });

  it('serves through createHttpHandler mounted in the user\'s own node:http server, beside a route of theirs', async () => {
    const runtime = runtimeForTest();
    const mcp = await createHttpHandler({ createServer: () => userServerV1(runtime) });
    const http: NodeHttpServer = createServer((req, res) => {
      if (req.url === '/health') return void res.end('mine');
      void mcp(req, res);
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    cleanups.push(async () => {
      await mcp.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    });
    const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    expect(await (await fetch(`${base}/health`)).text()).toBe('mine');
    await expectBothServed(await connectV1(`${base}/mcp`));
    // The guard of `serve` comes with it: a foreign Origin is refused.
    const foreign = await fetch(`${base}/mcp`, { method: 'POST', headers: { origin: 'https://evil.example', 'content-type': 'application/json' }, body: '{}' });
    expect(foreign.status).toBe(403);
  });
});

describe('SDK v2 McpServer', () => {
  it('keeps the tools, prompts and resources registered on it, on both eras', async () => {
    const runtime = runtimeForTest();
    const endpoint = await startHttpEndpoint({ sdk: 'v2', port: 0, createServer: () => userServerV2(runtime) });
    cleanups.push(() => endpoint.close());
    for (const era of ['2025-11-25', '2026-07-28'] as const) {
      const client = new ClientV2({ name: 'user', version: '1.0.0' }, era === '2025-11-25' ? {} : { versionNegotiation: { mode: { pin: era } } });
      await client.connect(new StreamableHTTPClientTransportV2(new URL(endpoint.url)));
      cleanups.push(() => client.close());
      await expectBothServed(client);
    }
  });

  it('refuses a name both would serve, naming it', () => {
    const runtime = runtimeForTest();
    const mcp = new McpServerV2({ name: 'mine', version: '1.0.0' });
    mcp.registerPrompt('report', {}, () => ({ messages: [] }));
    expect(() => attachTaskServerV2(mcp, { runtime, prompts: [report] })).toThrow(/attachTaskServerV2: prompt 'report' is registered on the McpServer/);
    const later = new McpServerV2({ name: 'mine', version: '1.0.0' });
    attachTaskServerV2(later, { runtime, tools: [countWords] });
    expect(() => later.registerTool('count_words', {}, () => text('mine'))).toThrow(/tool 'count_words' is being registered/);
  });
});
