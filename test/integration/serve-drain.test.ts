/**
 * `mcp-tasks serve --http` on the memory backend, stopped by a signal (real processes, raw HTTP
 * and JSON-RPC): the drain (a running task finishes across SIGTERM; new tasks and sessions are
 * refused, retryably; /readyz flips at once; exit 0), its deadline (the calls held open get -32030,
 * the tasks end failed saying the server shut down, pollers read that end while the node lingers),
 * kept-alive connections (not reset as the drain begins), a silent connection (no wait for it), a
 * second signal, and the probes. The NATS deployment's drain: `serve-drain-nats.test.ts`.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { Agent, get as httpGet } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { attachHttpWire } from './harness/http-wire.js';
import { spawnHttpServer, type HttpServerProcess } from './harness/process.js';
import { connectStdioProcess } from './harness/stdio-wire.js';
import { create2025, createSep } from './harness/task-calls.js';
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

/** A GET over `agent`: its status, its Connection header and the local port of the connection it went on. */
function getOn(agent: Agent, url: string): Promise<{ status: number; connection: string | undefined; port: number | undefined }> {
  return new Promise((resolve, reject) => {
    const req = httpGet(url, { agent }, (res) => {
      const port = res.socket.localPort;
      res.resume();
      res.once('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, port }));
    });
    req.once('error', reject);
  });
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
  // SDK v2 serves no SEP-1686 (docs/sdk-v2.md): its open call is v1's alone.
  { sdk: 'v1', flags: [] as string[], sep1686: true },
  { sdk: 'v2', flags: ['--sdk', 'v2'], sep1686: false },
])('serve --sdk $sdk --http, drained by SIGTERM', ({ flags, sep1686 }) => {
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

  it('should answer a blocked tasks/result and an open SEP-1686 call with -32030 at the drain deadline, then answer five pollers until each reads the failed end, and exit 0', async () => {
    const server = await serve([...flags, '--drain-timeout', '500']);
    const wire = await attachHttpWire(server.url, () => server.stderr());
    const sep = sep1686 ? await createSep(wire, 'long_job', { seconds: 60 }) : null;
    const spec = await create2025(wire, 'long_job', { seconds: 60 });
    const polled = await Promise.all(Array.from({ length: 5 }, () => create2025(wire, 'long_job', { seconds: 60 })));
    const waiting = wire.sendRequestNoWait('tasks/result', { taskId: spec.taskId });
    // Pollers as a requester polls: tasks/get, then the interval the task suggests, until it ends.
    const pollers = polled.map(async ({ taskId }) => {
      for (;;) {
        const got = await wire.request('tasks/get', { taskId });
        const task = got.result as { status: string; statusMessage?: string; pollInterval?: number } | undefined;
        if (!task) throw new Error(`tasks/get of ${taskId}: ${JSON.stringify(got.error)}`);
        if (task.status !== 'working') return task;
        await new Promise((resolve) => setTimeout(resolve, task.pollInterval ?? 1_000));
      }
    });
    const exited = exitOf(server.child);
    server.child.kill('SIGTERM');
    // Each call held open is told at the deadline, never cut: the node ends the task with its shutdown.
    const answers = await Promise.all([waiting, ...(sep ? [sep.requestId] : [])].map((id) => wire.responseFor(id, 10_000)));
    expect(answers).toHaveLength(sep1686 ? 2 : 1);
    for (const answer of answers) {
      expect(answer.error, `${JSON.stringify(answer)}\n${server.stderr()}`).toMatchObject({ code: -32030, data: { reason: 'shutting-down', retryAfterMs: 1_000 } });
      expect(answer.error?.message).toMatch(/shutting down and ends the task/);
    }
    // Retried after retryAfterMs, the call reads the end while the node lingers.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(JSON.stringify(await wire.request('tasks/result', { taskId: spec.taskId }))).toContain('The server shut down before the task finished');
    const ends = await Promise.all(pollers);
    expect(ends.map((t) => t.status)).toEqual(['failed', 'failed', 'failed', 'failed', 'failed']);
    for (const t of ends) expect(t.statusMessage).toMatch(/shut down before the task finished/);
    expect(await exited).toBe(0);
    expect(server.stderr()).toMatch(/"msg":"drain timeout: tasks still running are handed over or ended"/);
  }, 40_000);

  it('should answer the first request on a kept-alive connection after SIGTERM on that same connection, closing it after', async () => {
    const server = await serve([...flags, '--drain-timeout', '5000', '--drain-linger', '0']);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    // A running task holds the drain open meanwhile.
    await create2025(await attachHttpWire(server.url, () => server.stderr()), 'sleep', { ms: 1_000 });
    try {
      const before = await getOn(agent, `${server.base}/healthz`);
      expect(before).toMatchObject({ status: 200, connection: 'keep-alive' });
      const exited = exitOf(server.child);
      server.child.kill('SIGTERM');
      await until(async () => server.stderr().includes('SIGTERM: shutting down'), 'the drain began');
      // Closing idle connections as the drain begins would reset a request already on its way over one.
      const after = await getOn(agent, `${server.base}/healthz`);
      expect(after).toMatchObject({ status: 200, connection: 'close', port: before.port });
      expect(await exited).toBe(0);
    } finally {
      agent.destroy();
    }
  }, 20_000);
});

describe('serve --stdio, drained by SIGTERM', () => {
  it('should answer a blocked tasks/result and an open SEP-1686 call with -32030 at the drain deadline, over stdio, and exit 0', async () => {
    const wire = await connectStdioProcess(['--drain-timeout', '300']);
    try {
      const sep = await createSep(wire, 'long_job', { seconds: 60 });
      const spec = await create2025(wire, 'long_job', { seconds: 60 });
      const waiting = wire.sendRequestNoWait('tasks/result', { taskId: spec.taskId });
      const exited = wire.signal('SIGTERM');
      const answers = await Promise.all([wire.responseFor(sep.requestId, 10_000), wire.responseFor(waiting, 10_000)]);
      for (const answer of answers) {
        expect(answer.error, wire.stderr()).toMatchObject({ code: -32030, data: { reason: 'shutting-down', retryAfterMs: 1_000 } });
        expect(answer.error?.message).toMatch(/shutting down and ends the task/);
      }
      expect(await exited).toBe(0);
    } finally {
      await wire.close();
    }
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

  it('should refuse a bad --drain-timeout or --drain-linger naming the flag', async () => {
    await expect(serve(['--drain-timeout', 'soon'])).rejects.toThrow(/--drain-timeout expects a non-negative number of ms, got 'soon'/);
    await expect(serve(['--drain-linger', 'long'])).rejects.toThrow(/--drain-linger expects a non-negative number of ms, got 'long'/);
  });

  it('should not wait for a connection that never sent a byte: exit well within the 5 s close grace', async () => {
    const server = await serve(['--drain-timeout', '0']);
    const { port, hostname } = new URL(server.url);
    const silent = connect(Number(port), hostname);
    await new Promise((resolve, reject) => silent.once('connect', resolve).once('error', reject));
    silent.on('error', () => undefined);
    try {
      const exited = exitOf(server.child);
      const signalled = Date.now();
      server.child.kill('SIGTERM');
      expect(await exited, server.stderr()).toBe(0);
      expect(Date.now() - signalled).toBeLessThan(3_000);
    } finally {
      silent.destroy();
    }
  }, 20_000);
});
