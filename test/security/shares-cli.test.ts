/**
 * The shares of `mcp-tasks serve --http` (issue 42, item 5): `--max-retained-bytes-per-requester`
 * bounds what one session keeps of ended tasks (its next task gets -32029 naming the flag, another
 * session's is created), and `--max-sessions-per-requester` bounds the sessions of one peer address
 * (loopback here): its next `initialize` gets 503 with `Retry-After` naming the flag.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollUntil } from '../integration/harness/cluster.js';
import { attachHttpWire } from '../integration/harness/http-wire.js';
import { assertCliBuilt, spawnHttpServer, type HttpServerProcess } from '../integration/harness/process.js';
import { create2025, getTask, statusOf } from '../integration/harness/task-calls.js';

const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });

describe('serve --max-retained-bytes-per-requester and --max-sessions-per-requester', () => {
  let server: HttpServerProcess;
  beforeAll(async () => {
    assertCliBuilt();
    // A node budget far above what is kept here: only the share can refuse.
    server = await spawnHttpServer(['--max-retained-bytes', '1000000', '--max-retained-bytes-per-requester', '10000', '--max-sessions-per-requester', '2']);
  }, 30_000);
  afterAll(async () => {
    await server?.close();
  });

  it('should refuse a session past its share of kept bytes with -32029 naming the flag, and serve another session', async () => {
    const alice = await attachHttpWire(server.url, () => server.stderr());
    const bob = await attachHttpWire(server.url, () => server.stderr());
    try {
      // A failure keeping over 10 KB (its result, a bounded message): over alice's 10,000-byte share once ended.
      const { taskId } = await create2025(alice, 'fail', { message: 'm'.repeat(9_000) }, { ttl: 600_000 });
      await pollUntil('the task ended', async () => statusOf(await getTask(alice, taskId)), (s) => s === 'failed', { timeoutMs: 10_000 });
      const refused = await alice.responseFor(alice.sendRequestNoWait('tools/call', { name: 'sleep', arguments: { ms: 1 }, task: { ttl: 60_000 } }), 10_000);
      const error = (refused as { error?: { code: number; message: string; data: unknown } }).error;
      expect(error?.code).toBe(-32029);
      expect(error?.message).toContain('--max-retained-bytes-per-requester');
      expect(error?.data).toEqual({ limit: 'maxRetainedBytesPerRequester', retryAfterMs: null });
      // Another requester keeps its own share.
      await create2025(bob, 'sleep', { ms: 1 });
      // The loopback address keeps both sessions now: a third is refused, naming the flag.
      const third = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: INITIALIZE });
      expect(third.status).toBe(503);
      expect(third.headers.get('retry-after')).toBe('60');
      expect(await third.text()).toContain('--max-sessions-per-requester');
    } finally {
      await alice.close();
      await bob.close();
    }
  }, 30_000);
});
