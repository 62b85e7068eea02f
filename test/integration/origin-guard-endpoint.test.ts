import type { IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { echoTool } from '../../adapters/cli/demo-tools.js';
import { startHttpEndpoint, type HttpEndpoint } from '../../adapters/http/index.js';
import { allowedList, hostName, originGuard } from '../../adapters/http/origin-guard.js';
import { createTaskServer } from '../../adapters/mcp-server/index.js';
import { createTaskRuntime } from '../../runtime/index.js';

const req = (headers: Record<string, string>): IncomingMessage => ({ headers }) as unknown as IncomingMessage;

describe('originGuard', () => {
  it('should accept loopback names on any port and refuse others by default', () => {
    const check = originGuard({ bind: '127.0.0.1' });
    for (const host of ['127.0.0.1:3000', 'localhost', 'LOCALHOST:1', '[::1]:80', '127.9.9.9']) expect(check(req({ host })), host).toBeNull();
    for (const host of ['evil.example', 'localhost.evil.example:3000', '127.0.0.1.nip.io', '', '0.0.0.0:3000']) expect(check(req({ host }))?.header, host).toBe('host');
  });

  it('should accept the specific address it is bound to, but not "every interface"', () => {
    expect(originGuard({ bind: '10.1.2.3' })(req({ host: '10.1.2.3:3000' }))).toBeNull();
    expect(originGuard({ bind: '0.0.0.0' })(req({ host: '0.0.0.0:3000' }))?.header).toBe('host');
    expect(originGuard({ bind: '::1' })(req({ host: '[::1]:3000' }))).toBeNull();
  });

  it('should match NAME on any port and NAME:PORT on that port only', () => {
    const check = originGuard({ bind: '127.0.0.1', allowedHosts: ['Proxy.Example', 'other.example:8443'] });
    expect(check(req({ host: 'proxy.example:1234' }))).toBeNull();
    expect(check(req({ host: 'other.example:8443' }))).toBeNull();
    expect(check(req({ host: 'other.example:8444' }))?.header).toBe('host');
    expect(originGuard({ bind: '127.0.0.1', allowedHosts: ['*'] })(req({ host: 'anything' }))).toBeNull();
  });

  it('should accept no Origin, loopback origins and listed origins only', () => {
    const check = originGuard({ bind: '127.0.0.1', allowedOrigins: ['https://app.example/'] });
    for (const origin of ['http://localhost:5173', 'https://127.0.0.1', 'http://[::1]:3000', 'https://app.example']) expect(check(req({ host: 'localhost', origin })), origin).toBeNull();
    expect(check(req({ host: 'localhost' }))).toBeNull();
    for (const origin of ['null', 'http://evil.example', 'https://app.example:444', 'file://', 'chrome-extension://localhost']) expect(check(req({ host: 'localhost', origin }))?.header, origin).toBe('origin');
    expect(() => originGuard({ bind: '127.0.0.1', allowedOrigins: [' '] })).toThrow(/must not be empty/);
  });

  it('should read names from flags and the environment', () => {
    expect(allowedList(['a.example'], ' b.example, ,c.example ')).toEqual(['a.example', 'b.example', 'c.example']);
    expect(allowedList(undefined, undefined)).toEqual([]);
    expect(hostName('[::1]:3000')).toBe('[::1]');
  });

  it('should read only an exact bracketed IPv6 literal (with a port or none) as one', () => {
    expect(hostName('[::1]')).toBe('[::1]');
    expect(hostName('[::1].evil.example')).toBe('[::1].evil.example');
    expect(hostName('[::1]evil:80')).toBe('[::1]evil:80');
    const check = originGuard({ bind: '127.0.0.1' });
    for (const host of ['[::1].evil.example', '[::1]:80.evil.example', '[::1]x', '[127.0.0.1].evil.example']) expect(check(req({ host }))?.header, host).toBe('host');
    for (const host of ['[::1]', '[::1]:3000', '[::ffff:127.0.0.1]:80']) expect(check(req({ host })), host).toBeNull();
  });
});

describe('startHttpEndpoint origin options', () => {
  let endpoint: HttpEndpoint | undefined;
  afterEach(() => endpoint?.close());

  it('should let an embedder allow an origin, and refuse others with a JSON-RPC body', async () => {
    const runtime = createTaskRuntime();
    endpoint = await startHttpEndpoint({ port: 0, allowedOrigins: ['https://app.example'], createServer: () => createTaskServer({ name: 't', version: '0' }, { runtime, tools: [echoTool] }) });
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '0' } } });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    expect((await fetch(endpoint.url, { method: 'POST', headers: { ...headers, origin: 'https://app.example' }, body })).status).toBe(200);
    const refused = await fetch(endpoint.url, { method: 'POST', headers: { ...headers, origin: 'https://evil.example' }, body });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000, data: { header: 'origin', value: 'https://evil.example' } } });
    await runtime.dispose();
  });
});
