/**
 * The drain of a NATS deployment, through real `serve` processes (a front, workers) and a real
 * nats-server: a worker signalled SIGTERM takes no queued work from then on, lets its running
 * task finish and exits 0; at its drain timeout it hands what still runs over (a re-runnable
 * task finishes on another worker, a retry-never one ends failed naming the node that shut
 * down); and the probes (`/readyz` on the front's port and a worker's `--health-port`) flip when
 * the node loses NATS.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { closeNodes, freshPrefix, startNode, type ClusterNode, type NodeOptions } from './harness/cluster.js';
import { attachHttpSession, attachHttpWire } from './harness/http-wire.js';
import { startNatsServer, type NatsServer } from './harness/nats-server.js';
import { create2025, createSep } from './harness/task-calls.js';

const nodes: ClusterNode[] = [];
const servers: NatsServer[] = [];
let nats: NatsServer | undefined;
afterEach(async () => {
  await closeNodes(nodes.splice(0));
});
afterAll(async () => {
  await Promise.allSettled([...servers, ...(nats ? [nats] : [])].map((s) => s.stop()));
});

async function sharedNats(): Promise<NatsServer> {
  nats ??= await startNatsServer();
  return nats;
}

async function node(options: NodeOptions): Promise<ClusterNode> {
  const started = await startNode(options);
  nodes.push(started);
  return started;
}

/** The base URL of a node's `--health-port` server, from its log line. */
function healthBase(n: ClusterNode): string {
  const line = n.lines().find((l) => String(l['msg']).startsWith('health probes at'));
  if (!line) throw new Error(`no health probes line:\n${n.stderr()}`);
  return String(line['url']);
}

async function readyz(base: string): Promise<{ status: number; body: Record<string, unknown> } | null> {
  try {
    const res = await fetch(`${base}/readyz`);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  } catch {
    // A connection the node closed as it began to drain.
    return null;
  }
}

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const ran = (n: ClusterNode, taskId: string): boolean => n.taskRuns(taskId).length > 0;

describe('serve --nats, a worker drained by SIGTERM', () => {
  it('should finish its running 3 s task, take no queued work meanwhile, flip its /readyz at once and exit 0', async () => {
    const { url } = await sharedNats();
    const prefix = freshPrefix('drain');
    const front = await node({ label: 'front', role: 'front', nats: url, prefix });
    const w1 = await node({ label: 'w1', role: 'worker', nats: url, prefix, flags: ['--drain-timeout', '15000', '--health-port', '0'] });
    const wire = await attachHttpWire(front.url, () => front.stderr());
    const first = await create2025(wire, 'sleep', { ms: 3_000 });
    await until(() => ran(w1, first.taskId), 'w1 runs the task');
    expect((await readyz(healthBase(w1)))?.status).toBe(200);
    process.kill(w1.pid, 'SIGTERM');
    await until(async () => (await readyz(healthBase(w1)))?.status === 503, "w1's /readyz answers 503", 2_000);
    expect(String((await readyz(healthBase(w1)))?.body['reasons'])).toMatch(/draining/);
    // Queued while w1 drains: w1 does not take it.
    const queued = await create2025(wire, 'sleep', { ms: 10 });
    const result = await wire.request('tasks/result', { taskId: first.taskId }, { timeoutMs: 10_000 });
    expect(result.result).toMatchObject({ content: [{ type: 'text', text: 'slept 3000 ms' }] });
    await until(() => !w1.alive(), 'w1 exits');
    expect(w1.exit()?.code).toBe(0);
    expect(ran(w1, queued.taskId)).toBe(false);
    const w2 = await node({ label: 'w2', role: 'worker', nats: url, prefix });
    const later = await wire.request('tasks/result', { taskId: queued.taskId }, { timeoutMs: 10_000 });
    expect(later.result).toMatchObject({ content: [{ type: 'text', text: 'slept 10 ms' }] });
    expect(ran(w2, queued.taskId)).toBe(true);
    await wire.close();
  }, 60_000);

  it('should hand a re-runnable task to another worker at its drain timeout, and end a retry-never one failed naming the node', async () => {
    const { url } = await sharedNats();
    const prefix = freshPrefix('drain');
    const flags = ['--retry-never', 'long_job'];
    const front = await node({ label: 'front', role: 'front', nats: url, prefix, flags });
    const w1 = await node({ label: 'w1', role: 'worker', nats: url, prefix, flags: [...flags, '--drain-timeout', '500'] });
    const wire = await attachHttpWire(front.url, () => front.stderr());
    // Long enough that w1 cannot finish it before its drain deadline, even when w2 is slow to start.
    const again = await create2025(wire, 'sleep', { ms: 8_000 });
    const never = await create2025(wire, 'long_job', { seconds: 60 });
    await until(() => ran(w1, again.taskId) && ran(w1, never.taskId), 'w1 runs both tasks');
    const w2 = await node({ label: 'w2', role: 'worker', nats: url, prefix, flags });
    process.kill(w1.pid, 'SIGTERM');
    const ended = await wire.request('tasks/result', { taskId: never.taskId }, { timeoutMs: 10_000 });
    expect(JSON.stringify(ended)).toContain(`Node ${w1.nodeId} shut down before the task finished`);
    const state = await wire.request('tasks/get', { taskId: never.taskId });
    expect(state.result).toMatchObject({ status: 'failed', statusMessage: `Node ${w1.nodeId} shut down before the task finished` });
    const done = await wire.request('tasks/result', { taskId: again.taskId }, { timeoutMs: 25_000 });
    expect(done.result).toMatchObject({ content: [{ type: 'text', text: 'slept 8000 ms' }] });
    expect(ran(w2, again.taskId)).toBe(true);
    await until(() => !w1.alive(), 'w1 exits');
    expect(w1.exit()?.code).toBe(0);
    expect(w1.lines().some((l) => l['msg'] === 'task handed over' && l['taskId'] === again.taskId)).toBe(true);
    await wire.close();
  }, 60_000);
});

describe('serve --nats, a front drained by SIGTERM', () => {
  it('should answer the calls it holds open (a SEP-1686 call, a tasks/result) when the worker finishes them, refuse new tasks meanwhile, then exit 0', async () => {
    const { url } = await sharedNats();
    const prefix = freshPrefix('drain-front');
    const front = await node({ label: 'front', role: 'front', nats: url, prefix, flags: ['--drain-timeout', '15000'] });
    await node({ label: 'w1', role: 'worker', nats: url, prefix });
    const wire = await attachHttpWire(front.url, () => front.stderr());
    const sep = await createSep(wire, 'sleep', { ms: 1_500 });
    const spec = await create2025(wire, 'sleep', { ms: 1_500 });
    const waiting = wire.sendRequestNoWait('tasks/result', { taskId: spec.taskId });
    process.kill(front.pid, 'SIGTERM');
    // A front runs no task: without waiting for its calls, its drain would end at once and cut them.
    const refused = await wire.request('tools/call', { name: 'sleep', arguments: { ms: 10 }, task: { ttl: 60_000 } });
    expect(refused.error?.code).toBe(-32030);
    const [sepAnswer, specAnswer] = await Promise.all([wire.responseFor(sep.requestId, 10_000), wire.responseFor(waiting, 10_000)]);
    expect(sepAnswer.result, front.stderr()).toMatchObject({ content: [{ type: 'text', text: 'slept 1500 ms' }] });
    expect(specAnswer.result, front.stderr()).toMatchObject({ content: [{ type: 'text', text: 'slept 1500 ms' }] });
    await until(() => !front.alive(), 'the front exits');
    expect(front.exit()?.code).toBe(0);
  }, 30_000);
});

describe('serve --nats, a front drained by SIGTERM past its deadline', () => {
  it('should answer its open calls with -32030 saying another node holds the task, cancel nothing, and the requester reads the task on another front', async () => {
    const { url } = await sharedNats();
    const prefix = freshPrefix('drain-front-deadline');
    const front = await node({ label: 'front', role: 'front', nats: url, prefix, flags: ['--drain-timeout', '500', '--drain-linger', '0'] });
    const other = await node({ label: 'front2', role: 'front', nats: url, prefix });
    await node({ label: 'w1', role: 'worker', nats: url, prefix });
    const wire = await attachHttpWire(front.url, () => front.stderr());
    const sep = await createSep(wire, 'sleep', { ms: 6_000 });
    const spec = await create2025(wire, 'sleep', { ms: 6_000 });
    const waiting = wire.sendRequestNoWait('tasks/result', { taskId: spec.taskId });
    process.kill(front.pid, 'SIGTERM');
    const answers = await Promise.all([wire.responseFor(sep.requestId, 10_000), wire.responseFor(waiting, 10_000)]);
    for (const answer of answers) {
      expect(answer.error, front.stderr()).toMatchObject({ code: -32030, data: { reason: 'shutting-down', retryAfterMs: 1_000 } });
      expect(answer.error?.message).toMatch(/the task goes on on another node/);
    }
    await until(() => !front.alive(), 'the front exits');
    expect(front.exit()?.code).toBe(0);
    // The same session through another front (sessions are shared on NATS): both tasks went on and end.
    const again = attachHttpSession(other.url, wire.sessionId!, { serverStderr: () => other.stderr() });
    for (const taskId of [sep.taskId, spec.taskId]) {
      const got = await again.request('tasks/get', { taskId });
      expect(got.result, other.stderr()).toMatchObject({ taskId, status: 'working' });
    }
    const result = await again.request('tasks/result', { taskId: spec.taskId }, { timeoutMs: 15_000 });
    expect(result.result, other.stderr()).toMatchObject({ content: [{ type: 'text', text: 'slept 6000 ms' }] });
    await again.close();
  }, 40_000);
});

describe('serve --nats probes', () => {
  it("should flip a front's /readyz and a worker's --health-port /readyz to 503 naming NATS when the server goes, and /healthz stays 200", async () => {
    const own = await startNatsServer();
    servers.push(own);
    const prefix = freshPrefix('probe');
    const front = await node({ label: 'front', role: 'front', nats: own.url, prefix });
    const worker = await node({ label: 'w', role: 'worker', nats: own.url, prefix, flags: ['--health-port', '0'] });
    const frontBase = front.url.replace(/\/mcp$/, '');
    expect(await readyz(frontBase)).toEqual({ status: 200, body: { ready: true, reasons: [] } });
    expect(await readyz(healthBase(worker))).toEqual({ status: 200, body: { ready: true, reasons: [] } });
    await own.stop();
    for (const base of [frontBase, healthBase(worker)]) {
      await until(async () => (await readyz(base))?.status === 503, `${base}/readyz answers 503`);
      expect(String((await readyz(base))?.body['reasons'])).toMatch(/^nats: /);
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
    }
  }, 60_000);
});
