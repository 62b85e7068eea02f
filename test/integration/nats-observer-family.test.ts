/**
 * The nesting and intermediate results of a task in the operator's view of a NATS task space: a
 * front node A and a worker node B on one real nats-server, each observing the whole space. The
 * same fields as on the memory backend (`test/unit/runtime/observer-family.test.ts`): a parent's
 * subtasks and their statuses, a subtask's parent and depth, the partial results, live.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TaskOwner } from '../../machines/index.js';
import { createNatsTaskRuntime, type NatsTaskRuntime } from '../../runtime/backends/nats/nats-runtime.js';
import type { ObservedTask, ObserverUpdate, TaskObserver } from '../../runtime/index.js';
import { startNatsServer, type NatsServer } from './harness/nats-server.js';

const alice: TaskOwner = { session: 's-alice', principal: 'alice' };
let server: NatsServer;
const runtimes: NatsTaskRuntime[] = [];
const observers: TaskObserver[] = [];
let prefixSeq = 0;

/** Nodes A (front) and B (worker) on a fresh prefix, with `sleep`, `steps` and `fan`. */
async function pair(): Promise<{ a: NatsTaskRuntime; b: NatsTaskRuntime }> {
  const prefix = `obsfam${++prefixSeq}`;
  const make = async (name: string, role: 'front' | 'worker'): Promise<NatsTaskRuntime> => {
    const runtime = await createNatsTaskRuntime({ nats: { servers: server.url }, prefix, role, nodeId: `${prefix}-${name}` });
    runtime.registerHandler('sleep', async (p, ctx) => {
      await delay((p as { ms: number }).ms, undefined, { signal: ctx.signal });
      return { slept: true };
    });
    runtime.registerHandler('steps', async (p, ctx) => {
      for (let i = 1; i <= (p as { steps: number }).steps; i++) {
        await ctx.partial([{ type: 'text', text: `step ${i} done` }]);
        await delay(50);
      }
      return { ok: true };
    });
    runtime.registerHandler('fan', async (p, ctx) => {
      const { count, ms } = p as { count: number; ms: number };
      const children = [];
      for (let i = 0; i < count; i++) children.push(await ctx.spawnTask('sleep', { ms }));
      await ctx.waitForSubtasks(children, 'all');
      return { ok: true };
    });
    runtimes.push(runtime);
    return runtime;
  };
  return { a: await make('A', 'front'), b: await make('B', 'worker') };
}

function observe(runtime: NatsTaskRuntime): { observer: TaskObserver; updates: ObserverUpdate[] } {
  const observer = runtime.observe();
  observers.push(observer);
  const updates: ObserverUpdate[] = [];
  observer.watch((u) => updates.push(u));
  return { observer, updates };
}

const create = (r: NatsTaskRuntime, taskId: string, handler: string, params: unknown) =>
  r.create({ taskId, owner: alice, dialect: '2025-11-25', method: 'tools/call', label: handler, handler, params });

async function listedWhen(observer: TaskObserver, taskId: string, ready: (t: ObservedTask) => boolean): Promise<ObservedTask> {
  let found: ObservedTask | undefined;
  await expect
    .poll(async () => {
      found = (await observer.list()).find((t) => t.taskId === taskId && t.owner.session === alice.session);
      return found !== undefined && ready(found);
    }, { timeout: 5_000, interval: 20 })
    .toBe(true);
  return found!;
}

beforeAll(async () => {
  server = await startNatsServer();
});
afterAll(async () => {
  await Promise.allSettled(observers.map((o) => o.close()));
  await Promise.allSettled(runtimes.map((r) => r.dispose()));
  await server?.stop();
});

describe('the family of a task in runtime.observe() on the NATS backend', () => {
  it("should show on both nodes a parent's subtasks with their statuses, and each subtask's parent and depth", async () => {
    const { a, b } = await pair();
    const observed = [observe(a), observe(b)];
    await create(a, 'p1', 'fan', { count: 2, ms: 50 });
    await a.waitForTerminal('p1', alice, { timeout: 10_000 });
    for (const { observer, updates } of observed) {
      const parent = await listedWhen(observer, 'p1', (t) => t.status === 'completed' && t.children.every((c) => c.status === 'completed'));
      expect(parent).toMatchObject({ parentId: null, depth: 0, partials: [] });
      expect(parent.children).toHaveLength(2);
      for (const child of parent.children) {
        const listed = await listedWhen(observer, child.taskId, (t) => t.status === 'completed');
        expect(listed).toMatchObject({ parentId: 'p1', depth: 1, children: [], partials: [], label: 'sleep' });
      }
      // Told live: some update of the parent listed its children while it still ran.
      const running = updates.some((u) => u.kind === 'upsert' && u.task.key === parent.key && u.task.status === 'working' && u.task.children.length > 0);
      expect(running).toBe(true);
    }
  });

  it('should show on both nodes the partial results the worker published, each one live', async () => {
    const { a, b } = await pair();
    const observed = [observe(a), observe(b)];
    await create(a, 's1', 'steps', { steps: 3 });
    await a.waitForTerminal('s1', alice, { timeout: 10_000 });
    for (const { observer, updates } of observed) {
      const task = await listedWhen(observer, 's1', (t) => t.status === 'completed' && t.partials.length === 3);
      expect(task.partials.map((p) => [p.seq, p.content])).toEqual([1, 2, 3].map((n) => [n, [{ type: 'text', text: `step ${n} done` }]]));
      expect(task).toMatchObject({ parentId: null, depth: 0, children: [] });
      // The partials reached the observer while the task ran, not only with its end, and never went back.
      const counts = updates.flatMap((u) => (u.kind === 'upsert' && u.task.key === task.key && u.task.status === 'working' ? [u.task.partials.length] : []));
      expect(counts.some((n) => n >= 1 && n < 3), `partials seen while working: ${counts.join(',')}`).toBe(true);
      expect(counts).toEqual([...counts].sort((x, y) => x - y));
    }
  });
});
