/**
 * The SDK v2 HTTP endpoint's own limits: a request body over the limit is refused before it is
 * all held (413), and a 2025-11-25 session idle past its timeout is closed (its id answers 404).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/server';
import { afterEach, expect, it } from 'vitest';
import { demoDefinitions } from '../../adapters/cli/demo-tools.js';
import { attachTaskServerV2, createTaskHttpHandlerV2, toNodeListener } from '../../adapters/mcp-server-v2/index.js';
import { createTaskRuntime } from '../../runtime/index.js';

const runtime = createTaskRuntime();
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/** Servers whose connection closed, counted. */
let closed = 0;

async function serve(options: { sessionIdleMs?: number; maxBodyBytes?: number }) {
  const endpoint = createTaskHttpHandlerV2(
    () => {
      const server = new McpServer({ name: 'limits', version: '1.0.0' });
      server.server.onclose = () => void closed++;
      attachTaskServerV2(server, { runtime, ...demoDefinitions });
      return server;
    },
    options.sessionIdleMs === undefined ? {} : { sessionIdleMs: options.sessionIdleMs },
  );
  const http = createServer(toNodeListener(endpoint, undefined, options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    await endpoint.close();
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
  });
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
}

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } };

it('refuses a request body over the limit with 413 and a JSON-RPC error', async () => {
  const url = await serve({ maxBodyBytes: 1024 });
  const res = await fetch(url, { method: 'POST', headers: HEADERS, body: JSON.stringify({ ...INITIALIZE, params: { ...INITIALIZE.params, pad: 'x'.repeat(4096) } }) });
  expect(res.status).toBe(413);
  expect(await res.json()).toMatchObject({ error: { code: -32600, message: expect.stringContaining('Request body is larger than 1024 bytes') } });
  // A body within the limit is served.
  expect((await fetch(url, { method: 'POST', headers: HEADERS, body: JSON.stringify(INITIALIZE) })).status).toBe(200);
});

it('closes a 2025-11-25 session idle past its timeout: its id then answers 404', async () => {
  const url = await serve({ sessionIdleMs: 200 });
  const opened = await fetch(url, { method: 'POST', headers: HEADERS, body: JSON.stringify(INITIALIZE) });
  const session = opened.headers.get('mcp-session-id')!;
  expect(session).toBeTruthy();
  const ping = () => fetch(url, { method: 'POST', headers: { ...HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }) });
  expect((await ping()).status).toBe(200);
  // Left alone (any request would keep it alive): its server closes within timeout + sweep.
  const before = closed;
  for (let i = 0; closed === before; i++) {
    if (i > 100) throw new Error('the idle session was not closed within 5 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  const status = (await ping()).status;
  expect(status).toBe(404);
});

it('reads a tasks/update body for its own checks no further than the SDK would: a larger one is the SDK 413', async () => {
  const endpoint = createTaskHttpHandlerV2(() => {
    const server = new McpServer({ name: 'limits', version: '1.0.0' });
    attachTaskServerV2(server, { runtime, ...demoDefinitions });
    return server;
  });
  cleanups.push(() => endpoint.close());
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } };
  const headers = { ...HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tasks/update', 'mcp-name': 't1' };
  const update = (pad: string) => JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tasks/update', params: { taskId: 't1', inputResponses: [], pad, _meta: meta } });
  // Within the limit, checked here: inputResponses must be a map.
  const small = await endpoint.fetch(new Request('http://localhost/mcp', { method: 'POST', headers, body: update('') }));
  expect(await small.json()).toMatchObject({ id: 5, error: { code: -32602 } });
  // Over it (sent as a stream, with no length to go by): never read whole here; the SDK refuses it.
  const big = update('x'.repeat(5 * 1024 * 1024));
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const bytes = new TextEncoder().encode(big);
      for (let i = 0; i < bytes.length; i += 64 * 1024) controller.enqueue(bytes.subarray(i, i + 64 * 1024));
      controller.close();
    },
  });
  const res = await endpoint.fetch(new Request('http://localhost/mcp', { method: 'POST', headers, body, duplex: 'half' }));
  expect(res.status).toBe(413);
});
