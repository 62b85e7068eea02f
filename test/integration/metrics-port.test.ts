/**
 * `serve --metrics-port`: real servers run a mix of tasks (completed, failed, cancelled) over the
 * 2025-11-25 wire, and their `/metrics` is scraped over HTTP and parsed. On memory one process
 * reports everything; on NATS the front reports the tasks created through it (and the cancel it
 * wrote), the worker the runs: their queue wait, their live count, the ends their outcomes wrote.
 * The metrics port itself shrugs off odd requests.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { closeNodes, pollUntil, startNode, startNodes, freshPrefix, waitForRunner, type ClusterNode } from './harness/cluster.js';
import { attachHttpWire } from './harness/http-wire.js';
import { ok } from './harness/json.js';
import { startNatsServer, type NatsServer } from './harness/nats-server.js';
import { spawnHttpServer, type HttpServerProcess } from './harness/process.js';
import { metricsUrlIn, rawRequest, scrape, total, type Exposition } from './harness/prometheus.js';
import { create2025, statusOf } from './harness/task-calls.js';
import type { Wire } from './harness/types.js';

const N = 5;
const CREATED = 'mcp_task_actors_task_created_total';
const ENDED = 'mcp_task_actors_task_ended_total';
const DURATION_COUNT = 'mcp_task_actors_task_duration_count';
const QUEUE_COUNT = 'mcp_task_actors_task_queue_duration_count';
const RUNS = 'mcp_task_actors_run_count';
const STATUS = 'mcp_task_actors_task_status';

/**
 * Three sleeps (completed), one `fail` (failed: an `isError` result on 2025-11-25) and one long job
 * cancelled once it runs: N tasks, each waited for until it ended.
 */
async function runMix(wire: Wire): Promise<void> {
  const ids = [];
  for (let i = 0; i < 3; i++) ids.push((await create2025(wire, 'sleep', { ms: 20 })).taskId);
  ids.push((await create2025(wire, 'fail', { message: 'no' })).taskId);
  const long = (await create2025(wire, 'long_job', { seconds: 60 })).taskId;
  // Cancelled once its run has started (its first step's message), so that every task ran.
  await pollUntil('the long job running', async () => ok(await wire.request('tasks/get', { taskId: long })), (t) => typeof t['statusMessage'] === 'string' && /step/.test(t['statusMessage']));
  ok(await wire.request('tasks/cancel', { taskId: long }));
  const ended = await Promise.all(
    [...ids, long].map((taskId) =>
      pollUntil(`task ${taskId} ended`, async () => statusOf(ok(await wire.request('tasks/get', { taskId }))), (s) => ['completed', 'failed', 'cancelled'].includes(s)),
    ),
  );
  expect(ended).toEqual(['completed', 'completed', 'completed', 'failed', 'cancelled']);
}

/** Scrapes until `done` holds (a run's end may be counted a moment after its task reads ended). */
function scrapeUntil(url: string, what: string, done: (e: Exposition) => boolean): Promise<Exposition> {
  return pollUntil(what, () => scrape(url), done, { timeoutMs: 10_000 });
}

/** The node's metrics URL, from its log line. */
function metricsUrl(stderr: string): string {
  const url = metricsUrlIn(stderr);
  if (url === undefined) throw new Error(`no 'metrics at' log line:\n${stderr.slice(-2_000)}`);
  return url;
}

describe('serve --metrics-port on the memory backend', () => {
  let server: HttpServerProcess | undefined;
  afterAll(async () => {
    await server?.close();
  });

  it('should count the tasks run, by status, with their durations, and no run left live', async () => {
    server = await spawnHttpServer(['--metrics-port', '0']);
    const url = metricsUrl(server.stderr());
    const wire = await attachHttpWire(server.url, () => server!.stderr());
    await runMix(wire);
    const m = await scrapeUntil(url, 'no run live', (e) => total(e, DURATION_COUNT) === N && total(e, RUNS) === 0);
    expect(m.types.get(CREATED)).toBe('counter');
    expect(total(m, CREATED, { mcp_method_name: 'tools/call', mcp_task_actors_task_dialect: '2025-11-25' })).toBe(N);
    expect(total(m, ENDED, { [STATUS]: 'completed' })).toBe(3);
    expect(total(m, ENDED, { [STATUS]: 'failed' })).toBe(1);
    expect(total(m, ENDED, { [STATUS]: 'cancelled' })).toBe(1);
    expect(m.types.get('mcp_task_actors_task_duration')).toBe('histogram');
    expect(total(m, DURATION_COUNT, { [STATUS]: 'cancelled' })).toBe(1);
    expect(total(m, QUEUE_COUNT)).toBe(N);
    expect(total(m, RUNS, { [STATUS]: 'working' })).toBe(0);
    await wire.close();
  });

  it('should answer odd requests with 4xx and keep serving', async () => {
    const url = metricsUrl(server!.stderr());
    expect(await rawRequest(url, 'GET * HTTP/1.1\r\nHost: x\r\n\r\n')).toMatch(/^HTTP\/1\.1 400/);
    expect(await rawRequest(url, 'GARBAGE\r\n\r\n')).toMatch(/^HTTP\/1\.1 400/);
    expect(await rawRequest(url, 'GET /metrics/../x HTTP/1.1\r\nHost: x\r\n\r\n')).toMatch(/^HTTP\/1\.1 404/);
    expect(await rawRequest(url, `GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`)).toMatch(/^HTTP\/1\.1 (404|431)/);
    expect(await rawRequest(url, 'DELETE /metrics HTTP/1.1\r\nHost: x\r\n\r\n')).toMatch(/^HTTP\/1\.1 405/);
    const res = await fetch(url.replace('/metrics', '/'));
    expect(res.status).toBe(404);
    expect((await scrape(`${url}?x=1`)).samples.length).toBeGreaterThan(0);
  });

  // Recorded by the request wrapper of the tracing work, merged beside this one.
  it('should report the semantic conventions request histogram for tools/call', async () => {
    const m = await scrape(metricsUrl(server!.stderr()));
    expect(m.types.get('mcp_server_operation_duration')).toBe('histogram');
    expect(total(m, 'mcp_server_operation_duration_count', { mcp_method_name: 'tools/call' })).toBeGreaterThanOrEqual(N);
  });
});

describe('serve --metrics-port on a NATS front and worker', () => {
  let nats: NatsServer | undefined;
  let nodes: ClusterNode[] = [];
  afterAll(async () => {
    await closeNodes(nodes);
    await nats?.stop();
  });

  it('should report creates on the front and the runs on the worker, adding up to the tasks run', async () => {
    nats = await startNatsServer({ jetstream: true });
    const prefix = freshPrefix('metrics');
    nodes = await startNodes([
      { label: 'front', role: 'front', nats: nats.url, prefix, flags: ['--metrics-port', '0'] },
      { label: 'worker', role: 'worker', nats: nats.url, prefix, flags: ['--metrics-port', '0'] },
    ]);
    const [front, worker] = nodes as [ClusterNode, ClusterNode];
    const frontUrl = metricsUrl(front.stderr());
    const workerUrl = metricsUrl(worker.stderr());
    const wire = await attachHttpWire(front.url, () => front.stderr());
    await runMix(wire);

    const w = await scrapeUntil(workerUrl, 'the worker to count its runs', (e) => total(e, ENDED) === N - 1 && total(e, RUNS) === 0);
    const f = await scrape(frontUrl);
    // Creates: where the request came in.
    expect(total(f, CREATED, { mcp_method_name: 'tools/call', mcp_task_actors_task_dialect: '2025-11-25' })).toBe(N);
    expect(total(w, CREATED)).toBe(0);
    // Runs: on the worker, each started once, none live now.
    expect(total(w, QUEUE_COUNT)).toBe(N);
    expect(total(f, QUEUE_COUNT)).toBe(0);
    expect(total(w, RUNS, { [STATUS]: 'working' })).toBe(0);
    // Ends: by the node whose write ended the task (the runs' outcomes, the front's cancel), once in all.
    expect(total(w, ENDED, { [STATUS]: 'completed' })).toBe(3);
    expect(total(w, ENDED, { [STATUS]: 'failed' })).toBe(1);
    expect(total(f, ENDED, { [STATUS]: 'cancelled' })).toBe(1);
    expect(total(f, ENDED) + total(w, ENDED)).toBe(N);
    expect(total(f, DURATION_COUNT) + total(w, DURATION_COUNT)).toBe(N);
    await wire.close();
  });

  // Recorded by the request wrapper of the tracing work, merged beside this one.
  it('should report the semantic conventions request histogram on the front', async () => {
    const f = await scrape(metricsUrl(nodes[0]!.stderr()));
    expect(total(f, 'mcp_server_operation_duration_count', { mcp_method_name: 'tools/call' })).toBeGreaterThanOrEqual(N);
  });
});

describe('serve --metrics-port when a worker stalls past its lease', () => {
  let nats: NatsServer | undefined;
  const nodes: ClusterNode[] = [];
  afterAll(async () => {
    for (const node of nodes) if (node.alive()) process.kill(node.pid, 'SIGCONT');
    await closeNodes(nodes);
    await nats?.stop();
  });

  it("should count the lost worker's task where it was decided, and the lease loss on the stalled worker", async () => {
    nats = await startNatsServer({ jetstream: true });
    const prefix = freshPrefix('leases');
    const flags = ['--lease-ttl', '1000', '--metrics-port', '0'];
    const front = await startNode({ label: 'front', role: 'front', nats: nats.url, prefix, flags });
    nodes.push(front);
    const stalled = await startNode({ label: 'w1', role: 'worker', nats: nats.url, prefix, flags });
    nodes.push(stalled);
    const wire = await attachHttpWire(front.url, () => front.stderr());
    // `sleep` is safe to re-run: a lost run of it is run again.
    const { taskId } = await create2025(wire, 'sleep', { ms: 3_000 });
    await waitForRunner([stalled], taskId);
    const other = await startNode({ label: 'w2', role: 'worker', nats: nats.url, prefix, flags });
    nodes.push(other);
    process.kill(stalled.pid, 'SIGSTOP');
    // Decided by whichever live node took the expired lease over (the front or the other worker).
    const decided = () => Promise.all([front, other].map((n) => scrape(metricsUrl(n.stderr())))).then((all) => all.reduce((sum, e) => sum + total(e, 'mcp_task_actors_task_worker_lost_total', { mcp_task_actors_recovery_action: 'restart' }), 0));
    await pollUntil("the stalled worker's task decided", decided, (n) => n === 1);
    await waitForRunner([other], taskId, { attempt: 2 });
    process.kill(stalled.pid, 'SIGCONT');
    await scrapeUntil(metricsUrl(stalled.stderr()), 'the lease loss counted on the stalled worker', (e) => total(e, 'mcp_task_actors_lease_lost_total') === 1);
    await pollUntil(`task ${taskId} completed`, async () => statusOf(ok(await wire.request('tasks/get', { taskId }))), (s) => s === 'completed', { timeoutMs: 15_000 });
    await wire.close();
  });
});
