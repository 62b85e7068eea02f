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
/** `--max-polls-per-second`; a bucket holds twice that (the burst). */
const POLL_RATE = 5;
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
    const flags = ['--max-running-tasks', '2', '--max-polls-per-second', String(POLL_RATE), '--max-creates-per-second', 'off', '--max-lists-per-second', 'off'];
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
        message: 'Limit exceeded: maxConcurrentTasks (2 running tasks per requester); retry once one of your tasks has ended (the server sets it: --max-running-tasks)',
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
    // A session of its own starts with full buckets on both nodes: nothing to wait for.
    const pollA = await attachHttpWire(nodes[0]!.url, diag);
    const pollB = attachHttpSession(nodes[1]!.url, pollA.sessionId!, { serverStderr: diag });
    wires.unshift(pollB, pollA);
    const task = await create2025(pollA, 'sleep', { ms: 1 });
    // 3 s of polls, alternating nodes, 60 a second in all (30/s each, well over the rate).
    let admitted = 0;
    let refused = 0;
    const started = Date.now();
    for (let i = 0; Date.now() - started < 3_000; i++) {
      const answer = await (i % 2 === 0 ? pollA : pollB).request('tasks/get', { taskId: task.taskId });
      if (answer.error?.code === LIMITED) refused++;
      else if (answer.result !== undefined) admitted++;
      else throw new Error(`unexpected answer: ${JSON.stringify(answer)}`);
      await sleep(1000 / 60);
    }
    // Bounds from the time the polls really took, not the 3 s asked for: a slow run refills more.
    // Shared, the nodes admit one burst, the other node's burst at most before usage is first
    // shared, and the rate: 2 x 10 + 5/s. Counted per node, each would admit a burst and the
    // rate: 2 x (10 + 5/s), 50 in 3 s against 35 shared.
    const seconds = (Date.now() - started) / 1000;
    const burst = 2 * POLL_RATE;
    const sharedMost = Math.ceil(2 * burst + POLL_RATE * seconds) + 2;
    const detail = `admitted ${admitted}, refused ${refused} in ${seconds.toFixed(2)} s`;
    expect(refused, detail).toBeGreaterThan(0);
    expect(admitted, detail).toBeLessThanOrEqual(sharedMost);
    expect(admitted, detail).toBeGreaterThanOrEqual(burst + POLL_RATE * 2);
  });
});
