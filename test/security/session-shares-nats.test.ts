/**
 * The session share with sessions shared through NATS (issue 42, item 5): the table a share divides
 * is each process's (`--max-sessions` counts what this process keeps), so is the share; a session
 * begun on another node counts against its requester on a node once that node takes it up, and
 * frees its place there when it ends.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { demoDefinitions } from '../../adapters/cli/demo-tools.js';
import { startHttpEndpoint, type HttpEndpoint, type SessionRecord } from '../../adapters/http/index.js';
import { createTaskServer } from '../../adapters/mcp-server/index.js';
import { openSessionStore } from '../../runtime/backends/nats/session-store.js';
import { inProcessNodes } from '../integration/harness/nats-nodes.js';
import { expectRefusedForShare, initialize, send } from '../integration/harness/session-requests.js';

// The demo tools are registered by each session's server (createTaskServer).
const nodes = inProcessNodes(() => undefined);

const endpoints: HttpEndpoint[] = [];
afterEach(async () => {
  await Promise.all(endpoints.splice(0).map((e) => e.close()));
});

describe('maxSessionsPerRequester with sessions shared through NATS (SDK v1)', () => {
  it('should count a session taken up from another node against its requester there', async () => {
    const prefix = `ses${randomUUID().slice(0, 8)}`;
    const start = async (nodeId: string): Promise<string> => {
      const runtime = await nodes.node({ prefix, nodeId, role: 'both' });
      const sessions = await openSessionStore<SessionRecord>(runtime.connection, { prefix, replicas: 1, storage: 'file' });
      const endpoint = await startHttpEndpoint({ port: 0, sessions, maxSessionsPerRequester: 1, createServer: () => createTaskServer({ name: 't', version: '0' }, { runtime, ...demoDefinitions }) });
      endpoints.push(endpoint);
      return endpoint.url;
    };
    const [one, two] = [await start(`a-${prefix}`), await start(`b-${prefix}`)];
    const begun = await initialize(one);
    expect(begun.status).toBe(200);
    // Node two takes the session up (its next request came there): it counts there now.
    expect((await send(two, { sessionId: begun.sessionId!, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) })).status).toBe(200);
    expectRefusedForShare(await initialize(two));
    // Another address is served there.
    expect((await initialize(two, { from: '127.0.0.2' })).status).toBe(200);
    // Ended by its client (through node two): its place there is free.
    expect((await send(two, { method: 'DELETE', sessionId: begun.sessionId! })).status).toBe(200);
    expect((await initialize(two)).status).toBe(200);
  }, 30_000);
});
