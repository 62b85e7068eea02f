/**
 * Per-requester limits hold across a NATS cluster, not per node: one session used through two
 * `serve --http 0 --nats URL` nodes is capped in running tasks and poll rate as a whole.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeNodes, describeNodes, freshPrefix, startNodes, type ClusterNode } from './harness/cluster.js';
import { attachHttpSession, attachHttpWire } from './harness/http-wire.js';
import { startNatsServer, type NatsServer } from './harness/nats-server.js';
import { create2025, getTask, statusOf } from './harness/task-calls.js';
import type { Wire } from './harness/types.js';

const LIMITED = -32029;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('NATS cluster: limits per requester across nodes', () => {
  let nats: NatsServer | undefined;
  let nodes: ClusterNode[] = [];
  const wires: Wire[] = [];
  /** One session, through node A and through node B. */
  let viaA: Wire & { readonly sessionId: string | undefined };
  let viaB: Wire;
  /** Another session, on node B. */
  let other: Wire;
  const diag = (): string => describeNodes(nodes);

  beforeAll(async () => {
    nats = await startNatsServer({ jetstream: true });
    const prefix = freshPrefix('limits');
    const flags = ['--max-running-tasks', '2', '--max-polls-per-second', '5', '--max-creates-per-second', 'off', '--max-lists-per-second', 'off'];
    nodes = await startNodes(['A', 'B'].map((label) => ({ label, nats: nats!.url, prefix, flags })));
    const [a, b] = nodes as [ClusterNode, ClusterNode];
    viaA = await attachHttpWire(a.url, diag);
    viaB = attachHttpSession(b.url, viaA.sessionId!, { serverStderr: diag });
    other = await attachHttpWire(b.url, diag);
    wires.push(viaB, viaA, other);
  }, 60_000);

  afterAll(async () => {
    for (const w of wires) await w.close().catch(() => undefined);
    await closeNodes(nodes);
    await nats?.stop();
  }, 30_000);

  it('caps running tasks across nodes, frees a slot when a task ends, and leaves other requesters alone', async () => {
    const first = await create2025(viaA, 'long_job', { seconds: 30 });
    const second = await create2025(viaB, 'long_job', { seconds: 30 });
    const call = { name: 'long_job', arguments: { seconds: 30 }, task: { ttl: 60_000 } };
    for (const wire of [viaA, viaB]) {
      const refused = await wire.request('tools/call', call);
      expect(refused.error, diag()).toMatchObject({
        code: LIMITED,
        message: 'Limit exceeded: maxConcurrentTasks (2 running tasks per requester); retry once one of your tasks has ended',
        data: { limit: 'maxConcurrentTasks', retryAfterMs: null },
      });
    }
    // Another requester on the same nodes has its own count.
    const others = await create2025(other, 'long_job', { seconds: 30 });
    expect((await other.request('tasks/cancel', { taskId: others.taskId })).error).toBeUndefined();
    // The refusals left the running tasks as they were.
    expect(statusOf(await getTask(viaB, first.taskId))).toBe('working');
    expect((await viaB.request('tasks/cancel', { taskId: first.taskId })).error).toBeUndefined();
    const third = await create2025(viaA, 'long_job', { seconds: 30 });
    expect(statusOf(await getTask(viaA, second.taskId))).toBe('working');
    for (const t of [second, third]) await viaA.request('tasks/cancel', { taskId: t.taskId });
  });

  it('counts polls made through either node against one rate', async () => {
    await sleep(2_100); // full buckets on both nodes
    const task = await create2025(viaA, 'sleep', { ms: 1 });
    // 3 s of polls, alternating nodes, 60 a second in all: per node (30/s each) a rate of 5/s with
    // bursts of 10 would admit 2 x (10 + 15) = 50; shared, about 10 + 15 = 25.
    let admitted = 0;
    let refused = 0;
    const started = Date.now();
    for (let i = 0; Date.now() - started < 3_000; i++) {
      const answer = await (i % 2 === 0 ? viaA : viaB).request('tasks/get', { taskId: task.taskId });
      if (answer.error?.code === LIMITED) refused++;
      else if (answer.result !== undefined) admitted++;
      else throw new Error(`unexpected answer: ${JSON.stringify(answer)}`);
      await sleep(1000 / 60);
    }
    expect(refused).toBeGreaterThan(0);
    expect(admitted, `admitted ${admitted}, refused ${refused}`).toBeLessThanOrEqual(36);
    expect(admitted).toBeGreaterThanOrEqual(20);
  });
});
