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
  expect(await res.json()).toMatchObject({ error: { code: -32600, message: 'Request body larger than 1024 bytes' } });
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
