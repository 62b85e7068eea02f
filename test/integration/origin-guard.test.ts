/**
 * DNS rebinding protection of `mcp-tasks serve --http`, over a real server process: a foreign
 * `Host` or `Origin` is refused with 403 and a JSON-RPC error naming the header, on the session
 * wires and on the stateless 2026-07-28 wire; loopback is served; the flags and the environment
 * variables let an operator allow a proxy's name and a web app's origin.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnHttpServer, type HttpServerProcess } from './harness/process.js';

interface Reply {
  readonly status: number;
  readonly body: string;
}

/** A POST with any headers, `Host` included (fetch would not let a test choose it). */
function post(url: string, headers: Record<string, string>, body: unknown): Promise<Reply> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'origin-test', version: '0' } } };
/** A stateless 2026-07-28 request: `server/discover`. */
const discover = {
  jsonrpc: '2.0',
  id: 2,
  method: 'server/discover',
  params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'origin-test', version: '0' }, 'io.modelcontextprotocol/clientCapabilities': {} } },
};
const statelessHeaders = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' };

function refusal(reply: Reply): { code: number; message: string; data: { header: string; value: string } } {
  return (JSON.parse(reply.body) as { error: { code: number; message: string; data: { header: string; value: string } } }).error;
}

describe('serve --http: Host and Origin checks', () => {
  let server: HttpServerProcess;
  let port: string;
  beforeAll(async () => {
    server = await spawnHttpServer();
    port = new URL(server.url).port;
  });
  afterAll(() => server.close());

  it('should serve loopback Host names with no Origin or a loopback Origin', async () => {
    for (const headers of [{}, { host: `localhost:${port}` }, { origin: `http://localhost:${port}` }, { origin: 'http://127.0.0.1:5173' }, { host: `[::1]:${port}` }]) {
      const reply = await post(server.url, headers, initialize);
      expect(reply.status, JSON.stringify(headers)).toBe(200);
      expect(reply.body).toContain('"protocolVersion"');
    }
  });

  it('should refuse a foreign Origin with 403 naming the header, on the session wire', async () => {
    const reply = await post(server.url, { origin: 'http://evil.example' }, initialize);
    expect(reply.status).toBe(403);
    const error = refusal(reply);
    expect(error.data).toEqual({ header: 'origin', value: 'http://evil.example' });
    expect(error.message).toMatch(/Origin 'http:\/\/evil\.example' is not allowed.*--allowed-origin/);
  });

  it('should refuse a foreign Host with 403 naming the header', async () => {
    const reply = await post(server.url, { host: `evil.example:${port}` }, initialize);
    expect(reply.status).toBe(403);
    expect(refusal(reply).data).toEqual({ header: 'host', value: `evil.example:${port}` });
    expect(refusal(reply).message).toMatch(/Host 'evil\.example:\d+' is not allowed.*--allowed-host evil\.example/);
  });

  it('should refuse an opaque "null" Origin (sandboxed frames, file pages)', async () => {
    const reply = await post(server.url, { origin: 'null' }, initialize);
    expect(reply.status).toBe(403);
  });

  it('should guard the stateless 2026-07-28 wire the same way', async () => {
    const served = await post(server.url, statelessHeaders, discover);
    expect(served.status).toBe(200);
    expect(served.body).toContain('io.modelcontextprotocol/tasks');
    const foreignOrigin = await post(server.url, { ...statelessHeaders, origin: 'https://evil.example' }, discover);
    expect(foreignOrigin.status).toBe(403);
    expect(refusal(foreignOrigin).data.header).toBe('origin');
    const foreignHost = await post(server.url, { ...statelessHeaders, host: 'evil.example' }, discover);
    expect(foreignHost.status).toBe(403);
    expect(refusal(foreignHost).data.header).toBe('host');
  });

  it('should refuse a foreign Origin on GET and DELETE of a session too', async () => {
    const reply = await new Promise<number>((resolve, reject) => {
      const target = new URL(server.url);
      const req = request({ host: target.hostname, port: target.port, path: target.pathname, method: 'GET', headers: { origin: 'http://evil.example', accept: 'text/event-stream', 'mcp-session-id': 'x' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(reply).toBe(403);
  });
});

describe('serve --http: allowed hosts and origins', () => {
  let server: HttpServerProcess;
  let port: string;
  beforeAll(async () => {
    // One name from a flag, one from the environment; both count.
    const saved = process.env['MCP_TASKS_ALLOWED_ORIGINS'];
    process.env['MCP_TASKS_ALLOWED_ORIGINS'] = 'https://env-app.example';
    try {
      server = await spawnHttpServer(['--allowed-host', 'proxy.example', '--allowed-origin', 'https://app.example']);
    } finally {
      if (saved === undefined) delete process.env['MCP_TASKS_ALLOWED_ORIGINS'];
      else process.env['MCP_TASKS_ALLOWED_ORIGINS'] = saved;
    }
    port = new URL(server.url).port;
  });
  afterAll(() => server.close());

  it('should serve an allowed Host and allowed Origins, from flags and the environment', async () => {
    expect((await post(server.url, { host: 'proxy.example' }, initialize)).status).toBe(200);
    expect((await post(server.url, { host: `proxy.example:${port}`, origin: 'https://app.example' }, initialize)).status).toBe(200);
    expect((await post(server.url, { origin: 'https://env-app.example' }, initialize)).status).toBe(200);
  });

  it('should still refuse what was not allowed', async () => {
    expect((await post(server.url, { host: 'other.example' }, initialize)).status).toBe(403);
    expect((await post(server.url, { origin: 'https://app.example.evil' }, initialize)).status).toBe(403);
    expect((await post(server.url, { origin: 'http://app.example' }, initialize)).status).toBe(403);
  });
});
