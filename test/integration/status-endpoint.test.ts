import type { IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { echoTool } from '../../adapters/cli/demo-tools.js';
import { requestHeaders, statusUrl } from '../../adapters/cli/status-http.js';
import { startEndpoint } from '../../adapters/http/endpoint.js';
import type { HttpEndpoint } from '../../adapters/http/index.js';
import { localStatusSource } from '../../adapters/http/local-status.js';
import { operatorAccess } from '../../adapters/http/operator-access.js';
import { createTaskServer } from '../../adapters/mcp-server/index.js';
import { createTaskRuntime } from '../../runtime/index.js';

const req = (headers: Record<string, string>): IncomingMessage => ({ headers }) as unknown as IncomingMessage;

describe('operatorAccess', () => {
  it('should be open on a loopback bind with anonymous requesters, to loopback names only', () => {
    const check = operatorAccess({ bind: '127.0.0.1', operatorToken: null, requesterAuth: false });
    expect(check(req({ host: '127.0.0.1:3000' }))).toBeNull();
    expect(check(req({ host: 'evil.example:3000' }))?.status).toBe(403);
    expect(check(req({ host: 'localhost', origin: 'http://evil.example' }))?.status).toBe(403);
  });

  it('should refuse with 403 naming the flag off loopback or with requester tokens, when no operator token is set', () => {
    for (const [bind, requesterAuth] of [['0.0.0.0', false], ['127.0.0.1', true]] as const) {
      const refusal = operatorAccess({ bind, operatorToken: null, requesterAuth })(req({ host: 'localhost:3000', authorization: 'Bearer anything' }));
      expect(refusal?.status, bind).toBe(403);
      expect(refusal?.body).toMatchObject({ flag: '--operator-token' });
    }
  });

  it('should ask for the operator token (401) whenever one is set, and accept only it', () => {
    const check = operatorAccess({ bind: '0.0.0.0', operatorToken: 'op', requesterAuth: true, allowedHosts: ['status.example'] });
    expect(check(req({ host: 'status.example' }))?.status).toBe(401);
    expect(check(req({ host: 'status.example', authorization: 'Bearer opx' }))?.status).toBe(401);
    expect(check(req({ host: 'status.example', authorization: 'Bearer op' }))).toBeNull();
    // The Host guard comes first: a rebinding page holding no token learns nothing more from a 403.
    expect(check(req({ host: 'evil.example', authorization: 'Bearer op' }))?.status).toBe(403);
    expect(() => operatorAccess({ bind: '127.0.0.1', operatorToken: ' ', requesterAuth: false })).toThrow(/must not be empty/);
  });
});

describe('status --http arguments', () => {
  it('should take the server URL or its MCP URL', () => {
    for (const url of ['http://127.0.0.1:3000', 'http://127.0.0.1:3000/', 'http://127.0.0.1:3000/mcp', 'http://127.0.0.1:3000/mcp/?x=1', 'http://127.0.0.1:3000/status']) {
      expect(statusUrl(url).href, url).toBe('http://127.0.0.1:3000/status');
    }
    expect(statusUrl('https://proxy.example/tasks/mcp').href).toBe('https://proxy.example/tasks/status');
    expect(() => statusUrl('127.0.0.1:3000')).toThrow(/--http expects/);
    expect(() => statusUrl('ftp://x')).toThrow(/http:\/\/ or https:\/\//);
  });

  it('should read --header flags, the operator token winning over an Authorization header', () => {
    expect(requestHeaders(['X-A: 1', 'Authorization: Basic x'], 'op')).toEqual({ 'X-A': '1', authorization: 'Bearer op' });
    expect(requestHeaders(['X-B:two words '], undefined)).toEqual({ 'X-B': 'two words' });
    expect(() => requestHeaders(['no colon'], undefined)).toThrow(/--header expects/);
    expect(() => requestHeaders([': empty name'], undefined)).toThrow(/--header expects/);
  });
});

describe('GET /status in front of the MCP endpoint', () => {
  let endpoint: HttpEndpoint;
  afterEach(async () => {
    await endpoint.close();
  });
  const createServer = (runtime: ReturnType<typeof createTaskRuntime>) => () => createTaskServer({ name: 't', version: '0' }, { runtime, tools: [echoTool] });

  it('should answer GET and HEAD, refuse other methods, and leave every other path to MCP', async () => {
    const runtime = createTaskRuntime();
    endpoint = await startEndpoint({ port: 0, createServer: createServer(runtime) }, { status: localStatusSource(runtime), operatorToken: null });
    const base = endpoint.url.replace(/\/mcp$/, '');
    const got = await fetch(`${base}/status`);
    expect(got.status).toBe(200);
    expect(got.headers.get('cache-control')).toBe('no-store');
    expect(await got.json()).toMatchObject({ leases: [], counts: {}, durable: [], nodes: [{ nodeId: 'local', role: 'both', pid: process.pid }] });
    const head = await fetch(`${base}/status`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const post = await fetch(`${base}/status`, { method: 'POST', body: '{}' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect((await fetch(`${base}/status/x`)).status).toBe(404);
    await runtime.dispose();
  });

  it('should answer 503 saying why when the status cannot be read', async () => {
    const runtime = createTaskRuntime();
    endpoint = await startEndpoint(
      { port: 0, createServer: createServer(runtime) },
      { status: { read: () => Promise.reject(new Error('NATS unavailable at nats://x')) }, operatorToken: null },
    );
    const res = await fetch(endpoint.url.replace(/\/mcp$/, '/status'));
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: string }).error).toContain('NATS unavailable at nats://x');
    await runtime.dispose();
  });
});

describe('localStatusSource', () => {
  it('should show the process as draining once its drain begins, while its task still runs', async () => {
    const runtime = createTaskRuntime();
    let finish: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (finish = resolve));
    runtime.registerHandler('gate', async () => (await gate, { done: true }));
    const source = localStatusSource(runtime);
    const owner = { session: 's', principal: null };
    await runtime.create({ taskId: 'g', owner, dialect: 'sep-1686', method: 'tools/call', handler: 'gate', params: {} });
    expect((await source.read()).nodes[0]).toMatchObject({ up: true, draining: false });
    const closing = runtime.close({ drainMs: 10_000 });
    // Before: the node read as up, with nothing saying it was leaving.
    await expect.poll(async () => (await source.read()).nodes[0]?.draining, { timeout: 2_000 }).toBe(true);
    finish();
    await closing;
    await source.close?.();
  });
});
