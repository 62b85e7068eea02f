/**
 * A requester's share of an HTTP endpoint's sessions (issue 42, item 5), on both SDK lines: one
 * anonymous peer address, or one principal, may keep at most `maxSessionsPerRequester` sessions;
 * past it its `initialize` gets 503 with `Retry-After` and a JSON-RPC error naming the limit and
 * `--max-sessions-per-requester`, while another address or principal is served as before; a session
 * deleted or expired frees its place. Before, one client looping on `initialize` filled the whole
 * table (`--max-sessions`) and every other requester got 503 for up to an hour.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { demoDefinitions } from '../../adapters/cli/demo-tools.js';
import { bearerTokens, startHttpEndpoint, type HttpEndpoint } from '../../adapters/http/index.js';
import { createTaskServer } from '../../adapters/mcp-server/index.js';
import { attachTaskServerV2 } from '../../adapters/mcp-server-v2/index.js';
import { McpServer } from '@modelcontextprotocol/server';
import { createTaskRuntime, type TaskRuntime } from '../../runtime/index.js';
import { pollUntil } from '../integration/harness/cluster.js';
import { expectRefusedForShare, initialize, send } from '../integration/harness/session-requests.js';

const TOKENS = { 'token-a': 'alice', 'token-b': 'bob' };

let runtime: TaskRuntime | undefined;
let endpoint: HttpEndpoint | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
  await runtime?.dispose();
  runtime = undefined;
});

describe.each(['v1', 'v2'] as const)('maxSessionsPerRequester (SDK %s)', (sdk) => {
  async function start(o: { maxSessionsPerRequester?: number | null; auth?: boolean; sessionIdleMs?: number; parkAfterMs?: number }): Promise<string> {
    const made = createTaskRuntime();
    runtime = made;
    const common = {
      port: 0,
      ...(o.maxSessionsPerRequester !== undefined && { maxSessionsPerRequester: o.maxSessionsPerRequester }),
      ...(o.sessionIdleMs !== undefined && { sessionIdleMs: o.sessionIdleMs }),
      ...(o.auth && { authenticate: bearerTokens(TOKENS) }),
    };
    endpoint =
      sdk === 'v1'
        ? await startHttpEndpoint({ ...common, ...(o.parkAfterMs !== undefined && { parkAfterMs: o.parkAfterMs }), createServer: () => createTaskServer({ name: 't', version: '0' }, { runtime: made, ...demoDefinitions }) })
        : await startHttpEndpoint({
            ...common,
            sdk: 'v2',
            createServer: () => {
              const server = new McpServer({ name: 't', version: '0' });
              attachTaskServerV2(server, { runtime: made, ...demoDefinitions });
              return server;
            },
          });
    return endpoint.url;
  }

  it('should refuse an anonymous peer address past its share with 503, Retry-After and the flag, serve another address, and free a place on DELETE', async () => {
    const url = await start({ maxSessionsPerRequester: 3 });
    const opened: string[] = [];
    for (let i = 0; i < 3; i++) {
      const answer = await initialize(url);
      expect(answer.status).toBe(200);
      opened.push(answer.sessionId!);
    }
    // Loopback is a peer address like any other.
    expectRefusedForShare(await initialize(url));
    // Another peer address has a share of its own.
    expect((await initialize(url, { from: '127.0.0.2' })).status).toBe(200);
    // The sessions it keeps are served as before.
    const listed = await send(url, { sessionId: opened[0]!, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) });
    expect(listed.status).toBe(200);
    // A session closed by its client frees its place.
    expect((await send(url, { method: 'DELETE', sessionId: opened[0]! })).status).toBe(200);
    expect((await initialize(url)).status).toBe(200);
    expectRefusedForShare(await initialize(url));
  });

  it('should count a principal’s sessions whatever its address, while another principal is served', async () => {
    const url = await start({ maxSessionsPerRequester: 2, auth: true });
    for (let i = 0; i < 2; i++) expect((await initialize(url, { token: 'token-a', from: `127.0.0.${i + 1}` })).status).toBe(200);
    expectRefusedForShare(await initialize(url, { token: 'token-a' }));
    expectRefusedForShare(await initialize(url, { token: 'token-a', from: '127.0.0.3' }));
    // Bob, from the very address alice used, is another requester.
    for (let i = 0; i < 2; i++) expect((await initialize(url, { token: 'token-b' })).status).toBe(200);
    expectRefusedForShare(await initialize(url, { token: 'token-b' }));
  });

  it('should free the places of sessions that expired idle', async () => {
    const url = await start({ maxSessionsPerRequester: 1, sessionIdleMs: 300 });
    expect((await initialize(url)).status).toBe(200);
    expectRefusedForShare(await initialize(url));
    await pollUntil('a place freed by the idle session', async () => (await initialize(url)).status, (status) => status === 200, { timeoutMs: 5_000, intervalMs: 100 });
  });

  it('should default to 100 sessions of one requester, and take null for none', async () => {
    const url = await start({});
    for (let i = 0; i < 100; i += 20) {
      const answers = await Promise.all(Array.from({ length: 20 }, () => initialize(url)));
      for (const answer of answers) expect(answer.status).toBe(200);
    }
    expectRefusedForShare(await initialize(url));
    await endpoint!.close();
    const unlimited = await start({ maxSessionsPerRequester: null });
    for (let i = 0; i < 5; i++) expect((await initialize(unlimited)).status).toBe(200);
  }, 30_000);
});

describe('maxSessionsPerRequester (SDK v1, parked sessions)', () => {
  it('should count a parked session against its requester until it ends', async () => {
    const made = createTaskRuntime();
    runtime = made;
    let closed = 0;
    const createServer = (): ReturnType<typeof createTaskServer> => {
      const server = createTaskServer({ name: 't', version: '0' }, { runtime: made, ...demoDefinitions });
      const previous = server.onclose;
      server.onclose = () => {
        closed++;
        previous?.();
      };
      return server;
    };
    endpoint = await startHttpEndpoint({ port: 0, maxSessionsPerRequester: 2, parkAfterMs: 50, createServer });
    const url = endpoint.url;
    const first = await initialize(url);
    expect((await initialize(url)).status).toBe(200);
    // Parked: their servers are gone, their records and their places are kept.
    await pollUntil('both sessions parked', async () => closed, (n) => n >= 2, { timeoutMs: 5_000 });
    expectRefusedForShare(await initialize(url));
    // Taken up again by its DELETE, then ended: its place is free.
    expect((await send(url, { method: 'DELETE', sessionId: first.sessionId! })).status).toBe(200);
    expect((await initialize(url)).status).toBe(200);
  });
});
