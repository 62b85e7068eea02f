/**
 * Cluster nodes ride out NATS trouble:
 * (a) the (single, file-storage) nats-server restarts while tasks run: every task whose creation
 *     was acknowledged still completes and its result is readable;
 * (b) on a 3-server JetStream cluster with `--nats-replicas 3`, one server is SIGKILLed while tasks
 *     run: every task still completes and its result is readable.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { closeNodes, describeNodes, freshPrefix, mapLimit, pollUntil, startNodes, type ClusterNode } from './harness/cluster.js';
import { attachHttpWire } from './harness/http-wire.js';
import { ok, type Rec } from './harness/json.js';
import { startNatsCluster, startNatsServer, type NatsCluster, type NatsServer } from './harness/nats-server.js';
import { create2025, getTask, statusOf, TERMINAL_2025, textOf, type CreatedTask } from './harness/task-calls.js';
import type { Wire } from './harness/types.js';

/** Two role-both nodes, each with its own session (so this suite does not depend on session sharing). */
interface Pair {
  readonly nodes: readonly ClusterNode[];
  /** A session on node A and one on node B. */
  readonly wires: readonly [Wire, Wire];
}

/** A task and the session (wire) that created it. */
interface Owned {
  readonly task: CreatedTask;
  readonly wire: Wire;
}

/** Creates `sleep {ms}` on wire `i % 2`. */
async function createOn(pair: Pair, i: number, ms: number, timeoutMs?: number): Promise<Owned> {
  const wire = pair.wires[i % 2]!;
  const task = await create2025(wire, 'sleep', { ms }, timeoutMs === undefined ? {} : { timeoutMs });
  return { task, wire };
}

async function startPair(label: string, nats: string | readonly string[], flags: readonly string[], diag: () => string): Promise<Pair> {
  const prefix = freshPrefix(label);
  const nodes = await startNodes([
    { label: `${label}-A`, nats, prefix, flags },
    { label: `${label}-B`, nats, prefix, flags },
  ]);
  const [a, b] = nodes as [ClusterNode, ClusterNode];
  try {
    const onA = await attachHttpWire(a.url, diag);
    const onB = await attachHttpWire(b.url, diag);
    return { nodes, wires: [onA, onB] };
  } catch (e) {
    await closeNodes(nodes);
    throw e;
  }
}

async function closePair(pair: Pair | undefined): Promise<void> {
  if (pair === undefined) return;
  for (const w of [...pair.wires].reverse()) await w.close().catch(() => undefined);
  await closeNodes(pair.nodes);
}

/**
 * Every task reaches `completed` (tasks/get by its own session, retried while NATS is unavailable)
 * and its result reads `expected`.
 */
async function expectAllCompleted(tasks: readonly Owned[], expected: string, timeoutMs: number, diag: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const finals = await mapLimit(tasks, 10, async ({ task: { taskId }, wire }) => {
    const state: Rec = await pollUntil(
      `task ${taskId} to end`,
      () => getTask(wire, taskId, 5_000),
      (s) => TERMINAL_2025.includes(statusOf(s)),
      { timeoutMs: Math.max(1_000, deadline - Date.now()), intervalMs: 200, diagnostics: diag },
    );
    return { taskId, status: statusOf(state), statusMessage: state['statusMessage'] };
  });
  const notCompleted = finals.filter((f) => f.status !== 'completed');
  expect(notCompleted, `tasks that did not complete\n${diag()}`).toEqual([]);

  const texts = await mapLimit(tasks, 10, async ({ task: { taskId }, wire }) => {
    const result = await pollUntil(
      `the result of ${taskId}`,
      async () => ok(await wire.request('tasks/result', { taskId }, { timeoutMs: 5_000 })),
      () => true,
      { timeoutMs: 10_000, intervalMs: 200, diagnostics: diag },
    );
    return { taskId, text: textOf(result) };
  });
  expect(texts.filter((t) => t.text !== expected), `results that are not '${expected}'\n${diag()}`).toEqual([]);
}

describe('NATS cluster: a nats-server restart while tasks run (file storage)', () => {
  let nats: NatsServer | undefined;
  let pair: Pair | undefined;
  const diag = (): string => describeNodes(pair?.nodes ?? [], nats === undefined ? {} : { 'nats-server log': nats.log().slice(-1_500) });

  beforeAll(async () => {
    nats = await startNatsServer({ jetstream: true });
    pair = await startPair('restart', nats.url, [], diag);
  }, 40_000);

  afterAll(async () => {
    await closePair(pair);
    await nats?.stop();
  }, 30_000);

  beforeEach((ctx) => {
    ctx.onTestFailed(() => {
      console.error(`[nats-cluster-restart] ${ctx.task.name} failed; logs:\n${diag()}`);
    });
  });

  it('should complete every acknowledged task and keep its result readable', async () => {
    const p = pair!;
    // ten tasks acknowledged before the restart, ten more created while it happens
    const before = await mapLimit(Array.from({ length: 10 }), 10, (_, i) => createOn(p, i, 1_500));
    const pidBefore = nats!.pid;
    const restarting = nats!.restart();
    const during = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => createOn(p, i, 1_500, 8_000)),
    );
    await restarting;
    expect(nats!.pid).not.toBe(pidBefore);
    const acknowledged = [...before, ...during.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []))];
    const refused = during.flatMap((r) => (r.status === 'rejected' ? [String(r.reason).split('\n')[0]] : []));
    console.log(
      `[nats-cluster-restart] ${acknowledged.length} of 20 creations acknowledged (10 before the restart)` +
        (refused.length > 0 ? `; first refusal: ${refused[0]}` : ''),
    );
    expect(new Set(acknowledged.map((t) => t.task.taskId)).size).toBe(acknowledged.length);

    await expectAllCompleted(acknowledged, 'slept 1500 ms', 30_000, diag);
  }, 75_000);
});

describe('NATS cluster: one of three JetStream servers SIGKILLed while tasks run (--nats-replicas 3)', () => {
  let cluster: NatsCluster | undefined;
  let pair: Pair | undefined;
  const diag = (): string => describeNodes(pair?.nodes ?? [], cluster === undefined ? {} : { 'nats-server logs': cluster.log() });

  beforeAll(async () => {
    cluster = await startNatsCluster(3);
    pair = await startPair('r3', cluster.urls, ['--nats-replicas', '3'], diag);
  }, 60_000);

  afterAll(async () => {
    await closePair(pair);
    await cluster?.stop();
  }, 30_000);

  beforeEach((ctx) => {
    ctx.onTestFailed(() => {
      console.error(`[nats-cluster-restart] ${ctx.task.name} failed; logs:\n${diag()}`);
    });
  });

  it('should complete every task and keep every result readable', async () => {
    const p = pair!;
    const c = cluster!;
    const tasks = await mapLimit(Array.from({ length: 20 }), 10, (_, i) => createOn(p, i, 2_000));
    // the metadata leader if one says so, else the first server
    const victim = c.servers.find((s) => s.log().includes('Self is new JetStream cluster metadata leader')) ?? c.servers[0]!;
    console.log(`[nats-cluster-restart] SIGKILL nats-server ${victim.url} with ${tasks.length} tasks running`);
    await victim.kill();

    await expectAllCompleted(tasks, 'slept 2000 ms', 30_000, diag);
  }, 75_000);
});
