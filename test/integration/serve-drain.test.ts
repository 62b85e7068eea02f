/**
 * `mcp-tasks serve --http` on the memory backend, stopped by a signal (real processes, raw HTTP
 * and JSON-RPC): the drain (a running task finishes across SIGTERM; new tasks and sessions are
 * refused, retryably; /readyz flips at once; exit 0), its deadline (a task still running ends
 * failed saying the server shut down, and its waiting requester is told), a second signal, and
 * the probes. The NATS deployment's drain: `serve-drain-nats.test.ts`.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { attachHttpWire } from './harness/http-wire.js';
import { spawnHttpServer, type HttpServerProcess } from './harness/process.js';
import { create2025 } from './harness/task-calls.js';
import { PROTOCOL_VERSION } from './harness/wire.js';

const servers: HttpServerProcess[] = [];
afterEach(async () => {
  await Promise.allSettled(servers.splice(0).map((s) => s.close()));
});

async function serve(flags: string[]): Promise<HttpServerProcess & { readonly base: string }> {
  const server = await spawnHttpServer(flags);
  servers.push(server);
  return Object.assign(server, { base: server.url.replace(/\/mcp$/, '') });
}

/** GET a probe: its status and JSON body. */
async function probe(base: string, path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${base}${path}`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Polls `check` until it holds, at most `ms`. */
async function until(check: () => Promise<boolean>, what: string, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function exitOf(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** A new session's initialize, sent raw. */
function initialize(url: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'drain-test', version: '1' } } }),
  });
}

describe.each([
  { sdk: 'v1', flags: [] as string[] },
  { sdk: 'v2', flags: ['--sdk', 'v2'] },
])('serve --sdk $sdk --http, drained by SIGTERM', ({ flags }) => {
  it('should finish a 3 s task across the drain while refusing new tasks and sessions, flip /readyz at once, and exit 0', async () => {
    const server = await serve([...flags, '--drain-timeout', '15000']);
    expect(await probe(server.base, '/readyz')).toEqual({ status: 200, body: { ready: true, reasons: [] } });
    expect(await probe(server.base, '/healthz')).toEqual({ status: 200, body: { alive: true } });
    const wire = await attachHttpWire(server.url, () => server.stderr());
    const { taskId } = await create2025(wire, 'sleep', { ms: 3_000 });
    const exited = exitOf(server.child);
    const signalled = Date.now();
    server.child.kill('SIGTERM');
    // The idle keep-alive connection the last probe used is closed at once: a probe may meet it closing.
    await until(async () => (await probe(server.base, '/readyz').catch(() => null))?.status === 503, '/readyz answers 503', 1_000);
    const readiness = await probe(server.base, '/readyz');
    expect(readiness.body).toMatchObject({ ready: false });
    expect(String(readiness.body['reasons'])).toMatch(/draining/);
    expect((await probe(server.base, '/healthz')).status).toBe(200);
    // A new task: refused with the retryable error that names the shutdown.
    const refused = await wire.request('tools/call', { name: 'sleep', arguments: { ms: 1 }, task: { ttl: 60_000 } });
    expect(refused.error).toMatchObject({ code: -32030, data: { reason: 'shutting-down', retryAfterMs: 1_000 } });
    expect(refused.error?.message).toMatch(/shutting down/);
    // A new session: 503 with Retry-After, the same error.
    const opened = await initialize(server.url);
    expect(opened.status).toBe(503);
    expect(opened.headers.get('retry-after')).toBe('1');
    expect(await opened.json()).toMatchObject({ error: { code: -32030 } });
    // The running task answers as before, and completes.
    const got = await wire.request('tasks/get', { taskId });
    expect(got.result).toMatchObject({ taskId, status: 'working' });
    const result = await wire.request('tasks/result', { taskId }, { timeoutMs: 10_000 });
    expect(result.result).toMatchObject({ content: [{ type: 'text', text: 'slept 3000 ms' }] });
    expect(await exited).toBe(0);
    expect(Date.now() - signalled).toBeLessThan(10_000);
    expect(server.stderr()).toMatch(/"msg":"drained"/);
  }, 30_000);

  it('should end a task still running at the drain timeout failed, saying the server shut down, and answer its waiting requester', async () => {
    const server = await serve([...flags, '--drain-timeout', '500']);
    const wire = await attachHttpWire(server.url, () => server.stderr());
    const { taskId } = await create2025(wire, 'long_job', { seconds: 60 });
    // A blocked tasks/result, its response stream open (headers in) before the signal: a request
    // still being sent on an idle connection as the drain closes it would be cut (HTTP keep-alive).
    const waiting = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': wire.sessionId!, 'mcp-protocol-version': PROTOCOL_VERSION },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'waiting', method: 'tasks/result', params: { taskId } }),
    });
    expect(waiting.headers.get('content-type')).toMatch(/text\/event-stream/);
    const exited = exitOf(server.child);
    server.child.kill('SIGTERM');
    expect(await waiting.text()).toContain('The server shut down before the task finished');
    expect(await exited).toBe(0);
    expect(server.stderr()).toMatch(/"msg":"drain timeout: tasks still running are handed over or ended"/);
  }, 30_000);
});

describe('serve --http signals', () => {
  it('should exit at once on a second signal while a task keeps the drain going', async () => {
    const server = await serve(['--drain-timeout', '30000']);
    const wire = await attachHttpWire(server.url, () => server.stderr());
    await create2025(wire, 'sleep', { ms: 60_000 });
    const exited = exitOf(server.child);
    server.child.kill('SIGTERM');
    await until(async () => server.stderr().includes('SIGTERM: shutting down'), 'the drain began');
    const again = Date.now();
    server.child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(Date.now() - again).toBeLessThan(2_000);
  }, 20_000);

  it('should refuse a bad --drain-timeout naming the flag', async () => {
    await expect(serve(['--drain-timeout', 'soon'])).rejects.toThrow(/--drain-timeout expects a non-negative number of ms, got 'soon'/);
  });
});
