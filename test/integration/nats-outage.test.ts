/**
 * A NATS outage as an operator and a requester see it, through real `serve --nats` processes and a
 * real nats-server stopped and started again by pid: the node logs one warn when the connection
 * drops (naming the server, no credentials) and one info when it is back; a server's own wait
 * that meets the outage logs one warn when it starts riding it out; a requester's call during
 * the outage is told, within 10 s, that the task store is unavailable and to retry (JSON-RPC
 * -32031 with `data.retryAfterMs`), never a bare -32603 timeout; `/readyz` answers 503 until the
 * store is back; and `mcp-tasks status` shows a draining node as draining.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { closeNodes, freshPrefix, runCli, startNode, type ClusterNode, type LogLine, type NodeOptions } from './harness/cluster.js';
import { attachHttpWire } from './harness/http-wire.js';
import { startNatsServer, type NatsServer } from './harness/nats-server.js';
import { create2025, SEP_TASK } from './harness/task-calls.js';

const nodes: ClusterNode[] = [];
const servers: NatsServer[] = [];
afterEach(async () => {
  await closeNodes(nodes.splice(0));
});
afterAll(async () => {
  await Promise.allSettled(servers.map((s) => s.stop()));
});

async function node(options: NodeOptions): Promise<ClusterNode> {
  const started = await startNode(options);
  nodes.push(started);
  return started;
}

async function readyz(base: string): Promise<number | null> {
  try {
    return (await fetch(`${base}/readyz`)).status;
  } catch {
    return null;
  }
}

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const lines = (n: ClusterNode, msg: string | RegExp): LogLine[] => n.lines().filter((l) => (typeof msg === 'string' ? l['msg'] === msg : msg.test(String(l['msg']))));
const LOST = /^NATS connection lost/;
const BACK = 'NATS connection back';
const RIDING = 'task store unreachable: waiting for it';

describe('serve --nats through a NATS outage', () => {
  // SDK v1 only: `serve --sdk v2 --nats --http` is refused at start (it keeps sessions in-process).
  for (const sdk of ['v1'] as const) {
    it(`should log the drop and the return, ride a wait out with one warn, tell a requester the store is unavailable within 10 s, and keep /readyz 503 until NATS is back (--sdk ${sdk})`, async () => {
      const nats = await startNatsServer();
      servers.push(nats);
      const prefix = freshPrefix('outage');
      const both = await node({ label: 'both', nats: nats.url, prefix, flags: ['--sdk', sdk] });
      const base = both.url.replace(/\/mcp$/, '');
      const wire = await attachHttpWire(both.url, () => both.stderr());
      // A task under way, and the server's own wait on it (a blocking tasks/result) across the outage.
      const long = await create2025(wire, 'sleep', { ms: 6_000 });
      await until(() => both.taskRuns(long.taskId).length > 0, 'the task runs');
      const waiting = wire.sendRequestNoWait('tasks/result', { taskId: long.taskId });
      const ready = await wire.request('tasks/get', { taskId: long.taskId });
      expect(ready.result).toMatchObject({ status: 'working' });
      expect(await readyz(base)).toBe(200);
      expect(lines(both, LOST)).toEqual([]);

      await nats.halt();
      const lost = await both.waitForLine((l) => LOST.test(String(l['msg'])), 'the connection-lost warn');
      expect(lost).toMatchObject({ level: 'warn', server: `127.0.0.1:${nats.port}` });
      await until(async () => (await readyz(base)) === 503, '/readyz answers 503');

      // A requester's calls that need the store now: told so, and to retry, within 10 s.
      for (const [method, params] of [
        ['tasks/get', { taskId: long.taskId }],
        ['tools/call', { name: 'sleep', arguments: { ms: 10 }, task: { ttl: 60_000 } }],
        // SEP-1686 (the v1 line; on v2 the key asks for no task and the plain call is served).
        ...(sdk === 'v1' ? ([['tools/call', { name: 'sleep', arguments: { ms: 10 }, _meta: { [SEP_TASK]: { taskId: 'sep-1', keepAlive: 60_000 } } }]] as const) : []),
      ] as const) {
        const started = Date.now();
        const answer = await wire.request(method, params, { timeoutMs: 15_000 });
        const elapsed = Date.now() - started;
        expect(answer.error, `${method}: ${JSON.stringify(answer)}\n${both.stderr().slice(-2_000)}`).toMatchObject({
          code: -32031,
          message: expect.stringMatching(/^The task store is unavailable \(.*\); retry after 1000 ms$/),
          data: { reason: 'store-unavailable', retryAfterMs: 1_000 },
        });
        expect(elapsed).toBeLessThan(10_000);
      }
      // The blocking wait meets the outage at its next read and rides it out: one warn.
      await both.waitForLine((l) => l['msg'] === RIDING, 'the riding-out warn', 15_000);
      expect(await readyz(base)).toBe(503);

      await nats.resume();
      const back = await both.waitForLine((l) => l['msg'] === BACK, 'the connection-back info', 15_000);
      expect(back).toMatchObject({ level: 'info', server: `127.0.0.1:${nats.port}` });
      expect(back['downMs']).toBeGreaterThan(0);
      await until(async () => (await readyz(base)) === 200, '/readyz answers 200 again');
      // The wait that rode the outage out answers with the task's result.
      const result = await wire.responseFor(waiting, 30_000);
      expect(result.result, JSON.stringify(result)).toMatchObject({ content: [{ type: 'text', text: 'slept 6000 ms' }] });
      // One line each: not one per reconnect attempt, not one per retry of the wait.
      expect(lines(both, LOST)).toHaveLength(1);
      expect(lines(both, BACK)).toHaveLength(1);
      expect(lines(both, RIDING)).toHaveLength(1);
      // No line names credentials or a query string.
      for (const l of [...lines(both, LOST), ...lines(both, BACK)]) expect(String(l['server'])).not.toMatch(/@|\?/);
      await wire.close();
    }, 90_000);
  }
});

describe('a session taken up on another node during a NATS outage', () => {
  it('should answer 503 with -32031 and Retry-After, not a bare 500 -32603, when the session directory cannot be read', async () => {
    const nats = await startNatsServer();
    servers.push(nats);
    const prefix = freshPrefix('outage-session');
    const [a, b] = await Promise.all([node({ label: 'a', nats: nats.url, prefix }), node({ label: 'b', nats: nats.url, prefix })]);
    // The session begins on a; b knows it only from the directory in NATS.
    const wire = await attachHttpWire(a.url, () => a.stderr());
    expect(wire.sessionId).toEqual(expect.any(String));
    await nats.halt();
    await a.waitForLine((l) => LOST.test(String(l['msg'])), 'a lost the connection');
    const started = Date.now();
    // ping needs no task store: the only store it meets is the session directory.
    const res = await fetch(b.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': wire.sessionId!, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(Date.now() - started).toBeLessThan(10_000);
    const body = (await res.json()) as { error?: { code: number; data?: unknown } };
    expect({ status: res.status, retryAfter: res.headers.get('retry-after'), error: body.error }, b.stderr().slice(-1_500)).toMatchObject({
      status: 503,
      retryAfter: '1',
      error: { code: -32031, data: { reason: 'store-unavailable', retryAfterMs: 1_000 } },
    });
    await nats.resume();
    await wire.close();
  }, 60_000);
});

describe('mcp-tasks status --nats, a node that drains', () => {
  it('should show a worker sent SIGTERM while it runs a long task as draining, not up', async () => {
    const nats = await startNatsServer();
    servers.push(nats);
    const prefix = freshPrefix('drainstat');
    const front = await node({ label: 'front', role: 'front', nats: nats.url, prefix });
    const w1 = await node({ label: 'w1', role: 'worker', nats: nats.url, prefix, flags: ['--drain-timeout', '30000'] });
    const wire = await attachHttpWire(front.url, () => front.stderr());
    const long = await create2025(wire, 'sleep', { ms: 20_000 });
    await until(() => w1.taskRuns(long.taskId).length > 0, 'w1 runs the task');
    const status = async (): Promise<{ json: Record<string, unknown>[]; text: string }> => {
      const json = await runCli(['status', '--nats', nats.url, '--nats-prefix', prefix, '--json']);
      const text = await runCli(['status', '--nats', nats.url, '--nats-prefix', prefix]);
      return { json: (JSON.parse(json.stdout) as { nodes: Record<string, unknown>[] }).nodes, text: text.stdout };
    };
    const before = await status();
    expect(before.json.find((n) => n['nodeId'] === w1.nodeId)).toMatchObject({ up: true, draining: false });
    expect(before.text).toMatch(new RegExp(`${w1.nodeId}\\s+worker\\s+up\\b`));
    process.kill(w1.pid, 'SIGTERM');
    let after = await status();
    for (const end = Date.now() + 10_000; after.json.find((n) => n['nodeId'] === w1.nodeId)?.['draining'] !== true && Date.now() < end; ) after = await status();
    expect(after.json.find((n) => n['nodeId'] === w1.nodeId), after.text).toMatchObject({ up: true, draining: true });
    expect(after.text).toMatch(new RegExp(`${w1.nodeId}\\s+worker\\s+draining\\b`));
    // The front, not draining, is still up.
    expect(after.text).toMatch(new RegExp(`${front.nodeId}\\s+front\\s+up\\b`));
    expect(w1.alive()).toBe(true);
    await wire.close();
  }, 60_000);
});
