/**
 * A 2025-11-25 requester that polls tasks/get and keeps no tasks/result open gets its task's input
 * request on the session's standalone GET stream. Sent while no GET stream is open, it is dropped
 * by the transport without a word: it is given back when no answer came in time, and sent again
 * at the requester's next tasks/get, once the stream is open.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { attachTaskServer } from '../../adapters/mcp-server/attach-task-server.js';
import type { TaskToolDefinition } from '../../adapters/mcp-server/definitions.js';
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

it('sends an input request again once a GET stream is open, after one sent into no stream got no answer', async () => {
  const runtime = createTaskRuntime();
  const server = new Server({ name: 's', version: '1' }, { capabilities: {} });
  attachTaskServer(server, { runtime, tools: [ask], standaloneInput: { giveBackAfterMs: 400 } });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => crypto.randomUUID(), enableJsonResponse: true });
  await server.connect(transport);
  let sid: string | undefined;
  let id = 0;
  const post = async (body: unknown) => {
    const res = await transport.handleRequest(
      new Request('http://x/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(sid && { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' }) },
        body: JSON.stringify(body),
      }),
    );
    sid ??= res.headers.get('mcp-session-id') ?? undefined;
    return res.status === 202 ? undefined : ((await res.json()) as Record<string, any>);
  };
  await post({ jsonrpc: '2.0', id: ++id, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 'c', version: '1' } } });
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const created = await post({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name: 'ask', arguments: {}, task: { ttl: 60_000 } } });
  const taskId = created!['result'].task.taskId as string;
  // The requester polls (no GET stream open yet): past the grace, the input goes out unattached, into nothing.
  for (let i = 0; i < 4; i++) {
    expect((await post({ jsonrpc: '2.0', id: ++id, method: 'tasks/get', params: { taskId } }))!['result'].status).toBe('input_required');
    await sleep(200);
  }
  // Now the GET stream opens, and the requester keeps polling.
  const get = await transport.handleRequest(new Request('http://x/mcp', { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': sid!, 'mcp-protocol-version': '2025-11-25' } }));
  expect(get.status).toBe(200);
  const reader = get.body!.getReader();
  let text = '';
  const reading = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      text += new TextDecoder().decode(value);
    }
  })();
  // Polled at the pace a requester polls; a bounded wait for the question, not a fixed one.
  for (let i = 0; i < 25 && !text.includes('elicitation/create'); i++) {
    await post({ jsonrpc: '2.0', id: ++id, method: 'tasks/get', params: { taskId } });
    await sleep(200);
  }
  expect(text).toContain('elicitation/create');
  void reading;
  await transport.close();
  await runtime.dispose();
});

it('sends it on the GET stream at once when the stream is open before the input', async () => {
  const runtime = createTaskRuntime();
  const server = new Server({ name: 's', version: '1' }, { capabilities: {} });
  attachTaskServer(server, { runtime, tools: [ask] });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => crypto.randomUUID(), enableJsonResponse: true });
  await server.connect(transport);
  let sid: string | undefined;
  let id = 0;
  const post = async (body: unknown) => {
    const res = await transport.handleRequest(
      new Request('http://x/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(sid && { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' }) },
        body: JSON.stringify(body),
      }),
    );
    sid ??= res.headers.get('mcp-session-id') ?? undefined;
    return res.status === 202 ? undefined : ((await res.json()) as Record<string, any>);
  };
  await post({ jsonrpc: '2.0', id: ++id, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 'c', version: '1' } } });
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  // Now the GET stream opens, and the requester keeps polling.
  const get = await transport.handleRequest(new Request('http://x/mcp', { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-session-id': sid!, 'mcp-protocol-version': '2025-11-25' } }));
  expect(get.status).toBe(200);
  const reader = get.body!.getReader();
  let text = '';
  const reading = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      text += new TextDecoder().decode(value);
    }
  })();
  const created = await post({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name: 'ask', arguments: {}, task: { ttl: 60_000 } } });
  const taskId = created!['result'].task.taskId as string;
  // The requester polls (no GET stream open yet): past the grace, the input goes out unattached, into nothing.
  for (let i = 0; i < 4; i++) {
    expect((await post({ jsonrpc: '2.0', id: ++id, method: 'tasks/get', params: { taskId } }))!['result'].status).toBe('input_required');
    await sleep(200);
  }
  // Polled at the pace a requester polls; a bounded wait for the question, not a fixed one.
  for (let i = 0; i < 25 && !text.includes('elicitation/create'); i++) {
    await post({ jsonrpc: '2.0', id: ++id, method: 'tasks/get', params: { taskId } });
    await sleep(200);
  }
  expect(text).toContain('elicitation/create');
  void reading;
  await transport.close();
  await runtime.dispose();
});
