/**
 * Sessions one client can pin (issue 31, item 3, its session half), on the SDK v1 endpoint: an idle
 * session used to keep its SDK server and transport (~95 KB) for the whole idle timeout, and
 * `initialize` had no limit. Now a session with nothing in flight is parked (its record only) and
 * taken up again by its next request, as if nothing happened: the real SDK client goes on with
 * its tasks, including a question of a task that was asked while it was parked; and past
 * `maxSessions` a new `initialize` gets 503 with `Retry-After` naming the limit, while existing
 * sessions keep working. The SDK v2 endpoint's cap is checked the same way.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { demoDefinitions } from '../../adapters/cli/demo-tools.js';
import { startHttpEndpoint, type HttpEndpoint } from '../../adapters/http/index.js';

import { createTaskServer } from '../../adapters/mcp-server/index.js';
import { attachTaskServerV2 } from '../../adapters/mcp-server-v2/index.js';
import { McpServer } from '@modelcontextprotocol/server';
import { createTaskRuntime, type TaskRuntime } from '../../runtime/index.js';
import { pollUntil } from '../integration/harness/cluster.js';
import { attachHttpWire, attachInteractiveHttpWire } from '../integration/harness/http-wire.js';
import { ok } from '../integration/harness/json.js';
import { create2025, getTask, listAll, statusOf, textOf } from '../integration/harness/task-calls.js';

const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

let runtime: TaskRuntime;
let endpoint: HttpEndpoint | undefined;
const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  await endpoint?.close();
  endpoint = undefined;
  await runtime?.dispose();
});

/** An endpoint whose servers are counted (made, closed). */
async function start(o: { parkAfterMs?: number; maxSessions?: number }): Promise<{ made: () => number; closed: () => number }> {
  runtime = createTaskRuntime();
  let made = 0;
  let closed = 0;
  endpoint = await startHttpEndpoint({
    port: 0,
    ...o,
    createServer: () => {
      made++;
      const server = createTaskServer({ name: 't', version: '0' }, { runtime, ...demoDefinitions });
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

async function sdkClient(url: string, capabilities: Record<string, unknown> = {}): Promise<Client> {
  const client = new Client({ name: 'parked', version: '1' }, { capabilities });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  clients.push(client);
  return client;
}

describe('idle sessions are parked, and come back', () => {
  // A raw requester: no standalone GET stream (an SDK client keeps one open, and a session with an
  // open stream is in use, never parked).
  it('should park a quiet session (its server closed) and take it up again on its next request, its tasks still its own', async () => {
    const counts = await start({ parkAfterMs: 150 });
    const wire = await attachHttpWire(endpoint!.url);
    try {
      const { taskId } = await create2025(wire, 'sleep', { ms: 1 });
      // Parked: every server it had is closed.
      await pollUntil('the session parked', async () => counts.made() - counts.closed(), (open) => open === 0, { timeoutMs: 5_000 });
      const made = counts.made();
      // Its next request takes it up on a new server, and it still sees its task.
      expect(statusOf(await getTask(wire, taskId))).toBe('completed');
      expect(counts.made()).toBe(made + 1);
      expect((await listAll(wire)).map((t) => t['taskId'])).toContain(taskId);
    } finally {
      await wire.close();
    }
  });

  it('should deliver a question asked while the session was parked once it is back (tasks/result)', async () => {
    const counts = await start({ parkAfterMs: 150 });
    const wire = await attachInteractiveHttpWire(endpoint!.url, () => '', { elicitation: {} });
    try {
      const { taskId } = await create2025(wire, 'ask_name', {});
      await pollUntil('the task asking', async () => statusOf(await getTask(wire, taskId)), (s) => s === 'input_required', { timeoutMs: 5_000 });
      await pollUntil('the session parked', async () => counts.closed(), (n) => n >= 1, { timeoutMs: 5_000 });
      const resultId = wire.sendRequestNoWait('tasks/result', { taskId });
      const ask = await wire.waitForServerRequest((r) => r.message.method === 'elicitation/create', 10_000);
      await wire.answer(ask.message.id, { action: 'accept', content: { name: 'Ada' } });
      expect(textOf(ok(await wire.responseFor(resultId, 10_000)))).toBe('Hello, Ada');
      expect(counts.made()).toBeGreaterThanOrEqual(2);
    } finally {
      await wire.close();
    }
  });
});

describe('the session cap', () => {
  it('should answer an initialize past maxSessions with 503 and Retry-After naming the limit, and keep existing sessions working', async () => {
    await start({ maxSessions: 3 });
    const first = await sdkClient(endpoint!.url);
    for (let i = 0; i < 2; i++) expect((await fetch(endpoint!.url, { method: 'POST', headers: HEADERS, body: INITIALIZE })).status).toBe(200);
    const refused = await fetch(endpoint!.url, { method: 'POST', headers: HEADERS, body: INITIALIZE });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('60');
    const body = (await refused.json()) as { error: { message: string; data: unknown } };
    expect(body.error.message).toContain('maxSessions');
    expect(body.error.message).toContain('--max-sessions');
    expect(body.error.data).toEqual({ limit: 'maxSessions' });
    // The sessions it keeps are served as before.
    expect((await first.listTools()).tools.length).toBeGreaterThan(0);
  });

  it('should cap the SDK v2 endpoint the same way', async () => {
    runtime = createTaskRuntime();
    endpoint = await startHttpEndpoint({
      sdk: 'v2',
      port: 0,
      maxSessions: 2,
      createServer: () => {
        const server = new McpServer({ name: 't', version: '0' });
        attachTaskServerV2(server, { runtime, ...demoDefinitions });
        return server;
      },
    });
    for (let i = 0; i < 2; i++) expect((await fetch(endpoint.url, { method: 'POST', headers: HEADERS, body: INITIALIZE })).status).toBe(200);
    const refused = await fetch(endpoint.url, { method: 'POST', headers: HEADERS, body: INITIALIZE });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain('maxSessions');
  });
});
