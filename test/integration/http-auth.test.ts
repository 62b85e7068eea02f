import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleepTool } from '../../adapters/cli/demo-tools.js';
import { bearerTokens, parseAuthTokens } from '../../adapters/http/auth.js';
import { startHttpEndpoint, type HttpEndpoint } from '../../adapters/http/index.js';
import { createTaskServer } from '../../adapters/mcp-server/index.js';
import { createTaskRuntime } from '../../runtime/index.js';

const runtime = createTaskRuntime();
let endpoint: HttpEndpoint;
beforeAll(async () => {
  endpoint = await startHttpEndpoint({
    port: 0,
    authenticate: bearerTokens({ 'token-a': 'alice', 'token-b': 'bob' }),
    createServer: () => createTaskServer({ name: 't', version: '0' }, { runtime, tools: [sleepTool] }),
  });
});
afterAll(async () => {
  await endpoint.close();
  await runtime.dispose();
});

async function post(token: string | null, body: unknown, session?: string): Promise<{ status: number; session: string | null; text: string; headers: Headers }> {
  const res = await fetch(endpoint.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token !== null && { authorization: `Bearer ${token}` }),
      ...(session !== undefined && { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' }),
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, session: res.headers.get('mcp-session-id'), text: await res.text(), headers: res.headers };
}

const initialize = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '0' } } };

describe('HTTP bearer authentication', () => {
  it('should refuse a request without a token, or with an unknown one, with 401 and a JSON-RPC error', async () => {
    for (const token of [null, 'nope']) {
      const res = await post(token, initialize);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      expect(JSON.parse(res.text)).toMatchObject({ error: { code: -32001, message: expect.stringMatching(/Unauthorized.*Bearer/) } });
    }
  });

  it('should bind a session to its principal: another principal gets "Session not found", as for an unknown id', async () => {
    const begun = await post('token-a', initialize);
    expect(begun.status).toBe(200);
    const session = begun.session!;
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    expect((await post('token-a', ping, session)).status).toBe(200);
    const foreign = await post('token-b', ping, session);
    const unknown = await post('token-b', ping, 'no-such-session');
    expect(foreign.status).toBe(404);
    expect(JSON.parse(foreign.text)).toEqual(JSON.parse(unknown.text.replace('no-such-session', session)));
  });

  it('should hand the principal to the server as the task owner', async () => {
    const session = (await post('token-a', initialize)).session!;
    await post('token-a', { jsonrpc: '2.0', method: 'notifications/initialized' }, session);
    const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'sleep', arguments: { ms: 1 }, task: { ttl: 60_000 } } };
    const created = await post('token-a', call, session);
    const taskId = /"taskId":"([^"]+)"/.exec(created.text)?.[1];
    expect(taskId).toBeDefined();
    // A 2025-11-25 task is bound to the authorization context: the principal, whatever the session.
    await expect(runtime.get(taskId!, { session: null, principal: 'alice' })).resolves.toMatchObject({ taskId });
    await expect(runtime.get(taskId!, { session, principal: null })).rejects.toThrow(/not found/i);
    await expect(runtime.get(taskId!, { session: null, principal: 'bob' })).rejects.toThrow(/not found/i);
  });
});

describe('parseAuthTokens', () => {
  it('should read flags and the environment, keeping "=" inside tokens', () => {
    expect(parseAuthTokens(['abc==alice'], ' t2=bob , ')).toEqual({ 'abc=': 'alice', t2: 'bob' });
  });

  it('should refuse malformed pairs without echoing the secret', () => {
    expect(() => parseAuthTokens(['secret-token-value'], undefined)).toThrow(/TOKEN=PRINCIPAL, got '\*+alue'/);
    expect(() => parseAuthTokens(['=alice'], undefined)).toThrow(/TOKEN=PRINCIPAL/);
    expect(() => parseAuthTokens(['t=a', 't=b'], undefined)).toThrow(/twice/);
    // A pair from the variable: the error names the variable, not the flag.
    expect(() => parseAuthTokens([], 'garbage')).toThrow(/^MCP_TASKS_AUTH_TOKENS expects TOKEN=PRINCIPAL, got '\*+bage'$/);
    expect(() => parseAuthTokens([], 'garbage', { name: '--inspect-operator', shape: 'TOKEN=NAME', env: 'MCP_TASKS_INSPECT_OPERATORS' })).toThrow(/^MCP_TASKS_INSPECT_OPERATORS expects TOKEN=NAME/);
  });
});
