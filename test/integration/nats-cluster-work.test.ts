/**
 * One front node (`--role front`, HTTP) and two workers (`--role worker`) on one nats-server:
 * 200 `sleep {ms: 50}` tasks submitted through the front all complete, the work is spread over
 * both workers, each task runs exactly once, and `mcp-tasks status --json` agrees.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  closeNodes,
  clusterStatus,
  describeNodes,
  freshPrefix,
  mapLimit,
  pollUntil,
  startNodes,
  type ClusterNode,
  type ClusterStatus,
  type LogLine,
} from './harness/cluster.js';
import { attachHttpWire } from './harness/http-wire.js';
import { ok } from './harness/json.js';
import { startNatsServer, type NatsServer } from './harness/nats-server.js';
import { create2025, textOf } from './harness/task-calls.js';
import type { Wire } from './harness/types.js';

const TASKS = 200;

describe('NATS cluster: a front node hands work to two workers', () => {
  let nats: NatsServer | undefined;
  let nodes: ClusterNode[] = [];
  let front: ClusterNode;
  let workers: [ClusterNode, ClusterNode];
  let wire: Wire | undefined;
  const prefix = freshPrefix('work');

  const diag = (): string => describeNodes(nodes, nats === undefined ? {} : { 'nats-server log': nats.log().slice(-1_500) });

  beforeAll(async () => {
    nats = await startNatsServer({ jetstream: true });
    nodes = await startNodes([
      // One requester submits 200 tasks at once: far over the default per-requester rates.
      { label: 'front', role: 'front', nats: nats.url, prefix, flags: ['--max-creates-per-second', 'off', '--max-polls-per-second', 'off', '--max-running-tasks', 'off'] },
      { label: 'w1', role: 'worker', nats: nats.url, prefix },
      { label: 'w2', role: 'worker', nats: nats.url, prefix },
    ]);
    [front, ...workers] = nodes as [ClusterNode, ClusterNode, ClusterNode];
    wire = await attachHttpWire(front.url, () => diag());
  }, 60_000);

  afterAll(async () => {
    await wire?.close();
    await closeNodes(nodes);
    await nats?.stop();
  }, 30_000);

  beforeEach((ctx) => {
    ctx.onTestFailed(() => {
      console.error(`[nats-cluster-work] ${ctx.task.name} failed; node logs:\n${diag()}`);
    });
  });

  afterEach(() => {
    expect(wire?.violations ?? [], `protocol violations on the front wire\n${diag()}`).toEqual([]);
  });

  it(`should run ${TASKS} sleep tasks submitted through the front node on both workers, each exactly once`, async () => {
    const w = wire!;
    const started = Date.now();
    const created = await mapLimit(Array.from({ length: TASKS }), 25, () => create2025(w, 'sleep', { ms: 50 }, { timeoutMs: 20_000 }));
    const ids = created.map((c) => c.taskId);
    expect(new Set(ids).size, 'task ids are unique').toBe(TASKS);
    const createdMs = Date.now() - started;

    // tasks/result blocks until each task is terminal
    const results = await mapLimit(ids, 25, async (taskId) => ({
      taskId,
      result: ok(await w.request('tasks/result', { taskId }, { timeoutMs: 30_000 })),
    }));
    console.log(`[nats-cluster-work] ${TASKS} tasks created in ${createdMs} ms, all results in ${Date.now() - started} ms`);
    const wrong = results.filter(({ result }) => textOf(result) !== 'slept 50 ms' || result['isError'] === true);
    expect(wrong, `results that are not 'slept 50 ms'\n${diag()}`).toEqual([]);

    // the front node runs no handlers; each task ran exactly once, on a worker, as attempt 1
    expect(front.taskRuns(), `the front node logged "task run" lines\n${diag()}`).toEqual([]);
    const runs: { node: ClusterNode; line: LogLine }[] = workers.flatMap((node) => node.taskRuns().map((line) => ({ node, line })));
    const perTask = new Map<string, number>();
    for (const { line } of runs) perTask.set(String(line['taskId']), (perTask.get(String(line['taskId'])) ?? 0) + 1);
    const notOnce = ids.filter((id) => perTask.get(id) !== 1).map((id) => ({ id, runs: perTask.get(id) ?? 0 }));
    expect(notOnce, `tasks without exactly one "task run" line across the workers\n${diag()}`).toEqual([]);
    expect(runs.length, `"task run" lines in total (${TASKS} tasks)`).toBe(TASKS);
    for (const { node, line } of runs) {
      expect(line['node'], `"task run" line on ${node.label} names another node: ${JSON.stringify(line)}`).toBe(node.nodeId);
      expect(line['attempt'], JSON.stringify(line)).toBe(1);
    }
    const [w1, w2] = workers;
    const perWorker = { [w1.label]: w1.taskRuns().length, [w2.label]: w2.taskRuns().length };
    console.log(`[nats-cluster-work] task runs per worker: ${JSON.stringify(perWorker)}`);
    expect(w1.taskRuns().length, `w1 did no work: ${JSON.stringify(perWorker)}`).toBeGreaterThan(0);
    expect(w2.taskRuns().length, `w2 did no work: ${JSON.stringify(perWorker)}`).toBeGreaterThan(0);
  }, 75_000);

  it('should report 3 nodes with their roles, tasksRun summing to 200 and 200 completed tasks in `mcp-tasks status --json`', async () => {
    const [w1, w2] = workers;
    // node records may be refreshed periodically: wait until the counters have caught up
    const status: ClusterStatus = await pollUntil(
      'status --json to show 200 tasks run and 200 completed',
      () => clusterStatus(nats!.url, prefix),
      (s) => s.nodes.reduce((sum, n) => sum + n.tasksRun, 0) === TASKS && s.counts['completed'] === TASKS,
      { timeoutMs: 15_000, intervalMs: 500, diagnostics: diag },
    );
    const context = `status: ${JSON.stringify(status.raw)}\n${diag()}`;
    expect(status.nodes, context).toHaveLength(3);
    const byId = new Map(status.nodes.map((n) => [n.nodeId, n]));
    expect(byId.get(front.nodeId)?.role, context).toBe('front');
    expect(byId.get(w1.nodeId)?.role, context).toBe('worker');
    expect(byId.get(w2.nodeId)?.role, context).toBe('worker');
    expect(byId.get(front.nodeId)?.tasksRun, context).toBe(0);
    // each worker's counter matches the handler starts it logged
    expect(byId.get(w1.nodeId)?.tasksRun, context).toBe(w1.taskRuns().length);
    expect(byId.get(w2.nodeId)?.tasksRun, context).toBe(w2.taskRuns().length);
    expect(status.counts['completed'], context).toBe(TASKS);
    const others = Object.entries(status.counts).filter(([s, n]) => s !== 'completed' && n > 0);
    expect(others, `tasks counted in other statuses: ${context}`).toEqual([]);
    for (const n of status.nodes) expect(n.lastSeen, `lastSeen of ${n.nodeId}`).toBeDefined();
  }, 30_000);
});
