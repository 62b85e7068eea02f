/**
 * `runtime.close({ drainMs })` of a NATS worker, in one process against a real nats-server: the
 * worker stops taking queued work at once, its runs finish within the drain, and at the deadline
 * what still runs is handed over by the lost-run rule (a re-runnable task finishes on another
 * worker; another ends `failed` saying the node shut down, its subtasks with it). The same through
 * real `serve` processes and signals: `serve-drain.test.ts`. The races at its edges, each held open
 * by a gate on one write: a run whose take was under way as the drain began goes to a worker that
 * stays (not started on the draining one, nor lost); a run whose handler returned before the
 * deadline keeps its outcome (not handed over); a task ended by the hand-over has its subtask's
 * cancel written before close resolves.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createNatsTaskRuntime, type NatsTaskRuntime, type NatsTaskRuntimeOptions } from '../../runtime/backends/nats/nats-runtime.js';
import { hashToken } from '../../runtime/backends/nats/keys.js';
import { LeaseManager } from '../../runtime/backends/nats/leases.js';
import { RecordStore } from '../../runtime/backends/nats/record-store.js';
import { RuntimeDrainingError } from '../../runtime/index.js';
import { startNatsServer, type NatsServer } from './harness/nats-server.js';

const owner = { session: 's1', principal: null };
let server: NatsServer;
const runtimes: NatsTaskRuntime[] = [];
let prefixSeq = 0;

async function node(options: NatsTaskRuntimeOptions): Promise<NatsTaskRuntime> {
  const runtime = await createNatsTaskRuntime({ nats: { servers: server.url }, leaseTtlMs: 1_000, ...options });
  const sleep = async (p: unknown, ctx: { signal: AbortSignal }): Promise<unknown> => {
    await delay((p as { ms: number }).ms, undefined, { signal: ctx.signal });
    return { slept: (p as { ms: number }).ms, on: runtime.nodeId };
  };
  runtime.registerHandler('sleep', sleep);
  runtime.registerHandler('sleep-restartable', sleep, { retry: 'restart', maxAttempts: 3 });
  // A result too large to ride in the terminal write: stored first (putResult).
  runtime.registerHandler('big', () => Promise.resolve({ on: runtime.nodeId, pad: 'x'.repeat(8 * 1024) }));
  runtime.registerHandler('parent', async (p, ctx) => {
    const child = await ctx.spawnTask('sleep', p);
    return (await child.outcome()).result;
  });
  runtimes.push(runtime);
  return runtime;
}

const create = (r: NatsTaskRuntime, taskId: string, handler: string, params: unknown) =>
  r.create({ taskId, owner, dialect: '2025-11-25', method: 'tools/call', handler, params });

async function until(check: () => Promise<boolean>, ms = 8_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await delay(20);
  }
}

/** A gate: `reached` resolves when a caller is held at it, `open()` lets it through. */
function gate(): { reached: Promise<void>; hold: () => Promise<void>; open: () => void } {
  let reachedNow!: () => void;
  const reached = new Promise<void>((resolve) => (reachedNow = resolve));
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { reached, open, hold: () => (reachedNow(), opened) };
}

beforeAll(async () => {
  server = await startNatsServer();
});
afterEach(() => {
  vi.restoreAllMocks();
});
afterAll(async () => {
  await Promise.allSettled(runtimes.map((r) => r.dispose()));
  await server?.stop();
});

describe('NATS runtime close', () => {
  it('should let a running task finish within the drain while the worker takes no queued work', async () => {
    const prefix = `dr${++prefixSeq}`;
    const front = await node({ prefix, role: 'front', nodeId: `${prefix}-front` });
    const worker = await node({ prefix, role: 'worker', nodeId: `${prefix}-w1` });
    await create(front, 'run', 'sleep', { ms: 800 });
    await until(async () => (await front.get('run', owner)).status === 'working');
    expect((await worker.readiness()).ready).toBe(true);
    const closing = worker.close({ drainMs: 10_000 });
    await expect(create(worker, 'refused', 'sleep', { ms: 1 })).rejects.toBeInstanceOf(RuntimeDrainingError);
    expect((await worker.readiness()).reasons.join()).toMatch(/draining/);
    // Queued after the drain began: never taken by the draining worker; a new worker takes it.
    await create(front, 'queued', 'sleep', { ms: 10 });
    const done = await front.waitForOutcome('run', owner, { timeout: 8_000 });
    expect(done.task.status).toBe('completed');
    expect(done.result).toMatchObject({ on: worker.nodeId });
    await closing;
    expect((await front.get('queued', owner)).status).toBe('submitted');
    const second = await node({ prefix, role: 'worker', nodeId: `${prefix}-w2` });
    expect((await front.waitForOutcome('queued', owner, { timeout: 8_000 })).result).toMatchObject({ on: second.nodeId });
  });

  it('should hand a re-runnable task over at the deadline and end a retry-never one failed, its subtask with it', async () => {
    const prefix = `dr${++prefixSeq}`;
    const front = await node({ prefix, role: 'front', nodeId: `${prefix}-front` });
    const worker = await node({ prefix, role: 'worker', nodeId: `${prefix}-w1` });
    await create(front, 'again', 'sleep-restartable', { ms: 1_500 });
    await create(front, 'never', 'sleep', { ms: 60_000 });
    await create(front, 'family', 'parent', { ms: 60_000 });
    await until(async () => {
      const [a, n, f] = await Promise.all(['again', 'never', 'family'].map((id) => front.get(id, owner)));
      return a!.status === 'working' && n!.status === 'working' && (f!.children?.some((c) => c.status === 'working') ?? false);
    });
    const childId = (await front.get('family', owner)).children![0]!.taskId;
    // The second worker starts now: the child, queued before, ran on the first.
    const second = await node({ prefix, role: 'worker', nodeId: `${prefix}-w2` });
    await worker.close({ drainMs: 200 });
    const never = await front.waitForOutcome('never', owner, { timeout: 8_000 });
    expect(never.task).toMatchObject({ status: 'failed', statusMessage: `Node ${worker.nodeId} shut down before the task finished` });
    const family = await front.waitForOutcome('family', owner, { timeout: 8_000 });
    expect(family.task).toMatchObject({ status: 'failed', statusMessage: `Node ${worker.nodeId} shut down before the task finished` });
    const child = await front.waitForOutcome(childId, owner, { timeout: 8_000 });
    expect(child.task.status).toMatch(/failed|cancelled/);
    const again = await front.waitForOutcome('again', owner, { timeout: 8_000 });
    expect(again.task.status).toBe('completed');
    expect(again.result).toMatchObject({ on: second.nodeId });
    expect(again.task.statusMessage).toMatch(new RegExp(`Node ${worker.nodeId} shut down; running again on ${second.nodeId} \\(attempt 2 of 3\\)`));
  });
});

describe('NATS drain races', () => {
  it('should give a run whose take was under way as the drain began to a worker that stays', async () => {
    const prefix = `dx${++prefixSeq}`;
    const front = await node({ prefix, role: 'front', nodeId: `${prefix}-front` });
    const worker = await node({ prefix, role: 'worker', nodeId: `${prefix}-w1` });
    const g = gate();
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with its own `this`
    const acquire = LeaseManager.prototype.acquire;
    vi.spyOn(LeaseManager.prototype, 'acquire').mockImplementation(async function (this: LeaseManager, key, nodeId, ttlMs) {
      if (nodeId === worker.nodeId) await g.hold();
      return acquire.call(this, key, nodeId, ttlMs);
    });
    await create(front, 'caught', 'sleep', { ms: 10 });
    await g.reached;
    const closing = worker.close({ drainMs: 10_000 });
    await until(async () => !(await worker.readiness()).ready);
    const second = await node({ prefix, role: 'worker', nodeId: `${prefix}-w2` });
    g.open();
    await closing;
    const outcome = await front.waitForOutcome('caught', owner, { timeout: 8_000 });
    expect(outcome.task.status).toBe('completed');
    expect(outcome.result).toMatchObject({ on: second.nodeId });
  });

  it('should keep the outcome of a run whose handler returned before the deadline, its write still under way', async () => {
    const prefix = `dx${++prefixSeq}`;
    const front = await node({ prefix, role: 'front', nodeId: `${prefix}-front` });
    const worker = await node({ prefix, role: 'worker', nodeId: `${prefix}-w1` });
    const g = gate();
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with its own `this`
    const putResult = RecordStore.prototype.putResult;
    vi.spyOn(RecordStore.prototype, 'putResult').mockImplementation(async function (this: RecordStore, key, value) {
      await g.hold();
      return putResult.call(this, key, value);
    });
    await create(front, 'returned', 'big', {});
    await g.reached;
    const closing = worker.close({ drainMs: 50 });
    // Past the drain's deadline (what it does then is what is tested), the write goes on.
    await delay(300);
    g.open();
    await closing;
    const outcome = await front.waitForOutcome('returned', owner, { timeout: 8_000 });
    expect(outcome.task.status).toBe('completed');
    expect(outcome.result).toMatchObject({ on: worker.nodeId });
  });

  it('should have the subtask of a task the hand-over ended cancelled by the time close resolves', async () => {
    const prefix = `dx${++prefixSeq}`;
    const front = await node({ prefix, role: 'front', nodeId: `${prefix}-front` });
    // One slot, held by the parent: its subtask runs on the other worker, and only the parent's
    // end (the hand-over's) cancels it.
    const worker = await node({ prefix, role: 'worker', nodeId: `${prefix}-w1`, workerConcurrency: 1 });
    const other = await node({ prefix, role: 'worker', nodeId: `${prefix}-w2` });
    for (const r of [front, worker, other]) {
      r.registerHandler('parent-elsewhere', async (p, ctx) => {
        const child = await ctx.spawnTask('sleep', p);
        return (await child.outcome()).result;
      });
    }
    await create(front, 'family', 'parent-elsewhere', { ms: 60_000 });
    await until(async () => (await front.get('family', owner)).children?.some((c) => c.status === 'working') ?? false);
    const childId = (await front.get('family', owner)).children![0]!.taskId;
    // The subtask's cancel is slow to write: close must still not resolve before it is written.
    const childKey = `.${hashToken(childId)}`;
    let closing = false;
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with its own `this`
    const mutate = RecordStore.prototype.mutate;
    vi.spyOn(RecordStore.prototype, 'mutate').mockImplementation(async function (this: RecordStore, key, ...rest) {
      if (closing && key.endsWith(childKey)) await delay(1_500);
      return mutate.call(this, key, ...rest);
    });
    closing = true;
    await worker.close({ drainMs: 100 });
    expect((await front.get('family', owner)).status).toBe('failed');
    expect((await front.get(childId, owner)).status).toBe('cancelled');
  });
});
