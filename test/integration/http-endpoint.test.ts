import { afterEach, describe, expect, it, vi } from 'vitest';
import { echoTool } from '../../adapters/cli/demo-tools.js';
import { startHttpEndpoint, type HttpEndpoint } from '../../adapters/http/index.js';
import { createTaskServer } from '../../adapters/mcp-server/index.js';
import { createTaskRuntime } from '../../runtime/index.js';

const runtime = createTaskRuntime();
let endpoint: HttpEndpoint;
afterEach(async () => {
  await endpoint.close();
});

async function start(sessionIdleMs?: number): Promise<{ made: () => number; closed: () => number }> {
  let made = 0;
  let closed = 0;
  endpoint = await startHttpEndpoint({
    port: 0,
    ...(sessionIdleMs !== undefined && { sessionIdleMs }),
    createServer: () => {
      made++;
      const server = createTaskServer({ name: 't', version: '0' }, { runtime, tools: [echoTool] });
      const previous = server.onclose;
      server.onclose = () => {
        closed++;
        previous?.();
      };
      return server;
    },
  });
  return { made: () => made, closed: () => closed };
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '0' } },
});

describe('HTTP endpoint', () => {
  it('should close the server of an initialize that never became a session', async () => {
    const counts = await start();
    for (let i = 0; i < 3; i++) {
      const res = await fetch(endpoint.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: initialize });
      expect(res.status).toBe(406);
    }
    expect(counts.made()).toBe(3);
    expect(counts.closed()).toBe(3);
  });

  it('should close a session left idle longer than the idle timeout', async () => {
    const counts = await start(100);
    const res = await fetch(endpoint.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: initialize,
    });
    const session = res.headers.get('mcp-session-id');
    await res.text();
    expect(session).toBeTruthy();
    await vi.waitFor(() => expect(counts.closed()).toBeGreaterThan(0), { timeout: 3_000, interval: 20 });
    expect(counts.closed()).toBe(1);
    const again = await fetch(endpoint.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': session!, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(again.status).toBe(404);
  });

  it('should answer a malformed request with -32600 naming what was wrong', async () => {
    await start();
    const res = await fetch(endpoint.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tasks/get', params: [] }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 9, error: { code: -32600, message: 'Invalid Request: params must be an object' } });
  });
});

