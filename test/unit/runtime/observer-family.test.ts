/**
 * The nesting and intermediate results of a task in the operator's view of the memory backend
 * (`runtime.observe()`): a parent's subtasks and their statuses, a subtask's parent and depth, the
 * partial results its work published, in the list, the timeline and the live updates. A real
 * runtime whose handlers call `ctx.spawnTask` and `ctx.partial`.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { TaskOwner } from '../../../machines/index.js';
import { createTaskRuntime, type ObservedTask, type ObserverUpdate, type TaskObserver, type TaskRuntime } from '../../../runtime/index.js';
import { familyEvent, observedFamily, sameFamily } from '../../../runtime/observer-family.js';

const alice: TaskOwner = { session: 's-alice', principal: 'alice' };

let runtime: TaskRuntime;
let observer: TaskObserver;
afterEach(async () => {
  await observer?.close();
  await runtime?.dispose();
});

/** A runtime with `sleep`, `steps` (a partial per step) and `fan` (subtasks), observed from the start. */
function make(): { updates: ObserverUpdate[] } {
  runtime = createTaskRuntime();
  runtime.registerHandler('sleep', async (p, ctx) => {
    await delay((p as { ms: number }).ms, undefined, { signal: ctx.signal });
    return { slept: true };
  });
  runtime.registerHandler('steps', async (p, ctx) => {
    for (let i = 1; i <= (p as { steps: number }).steps; i++) await ctx.partial([{ type: 'text', text: `step ${i} done` }]);
    return { ok: true };
  });
  runtime.registerHandler('fan', async (p, ctx) => {
    const { count, ms } = p as { count: number; ms: number };
    const children = [];
    for (let i = 0; i < count; i++) children.push(await ctx.spawnTask('sleep', { ms }));
    await ctx.waitForSubtasks(children, 'all');
    return { ok: true };
  });
  observer = runtime.observe();
  const updates: ObserverUpdate[] = [];
  observer.watch((u) => updates.push(u));
  return { updates };
}

const create = (taskId: string, handler: string, params: unknown) =>
  runtime.create({ taskId, owner: alice, dialect: '2025-11-25', method: 'tools/call', label: handler, handler, params });

async function listedWhen(taskId: string, ready: (t: ObservedTask) => boolean): Promise<ObservedTask> {
  let found: ObservedTask | undefined;
  await expect
    .poll(async () => {
      found = (await observer.list()).find((t) => t.taskId === taskId);
      return found !== undefined && ready(found);
    }, { timeout: 3_000, interval: 10 })
    .toBe(true);
  return found!;
}

describe('the family of a task in runtime.observe() on the memory backend', () => {
  it('should show a top-level task with no parent, depth 0, and no children nor partials', async () => {
    make();
    await create('t1', 'sleep', { ms: 1 });
    const task = await listedWhen('t1', (t) => t.status === 'completed');
    expect(task).toMatchObject({ parentId: null, depth: 0, children: [], partials: [] });
  });

  it("should show a parent's subtasks with their statuses, and each subtask's parent and depth", async () => {
    const { updates } = make();
    await create('p1', 'fan', { count: 2, ms: 30 });
    const parent = await listedWhen('p1', (t) => t.status === 'completed');
    expect(parent.children).toHaveLength(2);
    expect(parent.children.map((c) => c.status)).toEqual(['completed', 'completed']);
    expect(parent).toMatchObject({ parentId: null, depth: 0 });
    for (const child of parent.children) {
      const listed = await listedWhen(child.taskId, (t) => t.status === 'completed');
      expect(listed).toMatchObject({ parentId: 'p1', depth: 1, children: [], owner: alice, label: 'sleep' });
    }
    // Each move of a child is a `task.child` step of the parent, told live and kept in its timeline.
    const key = parent.key;
    const live = updates.flatMap((u) => (u.kind === 'upsert' && u.task.key === key && u.entry?.event === 'task.child' ? [u.task] : []));
    expect(live.length).toBeGreaterThanOrEqual(2);
    expect(live.at(-1)!.children.map((c) => c.status)).toEqual(['completed', 'completed']);
    expect((await observer.timeline(key)).some((e) => e.event === 'task.child')).toBe(true);
  });

  it('should show the partial results a task published, numbered, each one live', async () => {
    const { updates } = make();
    const started = Date.now();
    await create('s1', 'steps', { steps: 3 });
    const task = await listedWhen('s1', (t) => t.status === 'completed');
    expect(task.partials.map((p) => [p.seq, p.content])).toEqual([
      [1, [{ type: 'text', text: 'step 1 done' }]],
      [2, [{ type: 'text', text: 'step 2 done' }]],
      [3, [{ type: 'text', text: 'step 3 done' }]],
    ]);
    for (const p of task.partials) expect(p.at).toBeGreaterThanOrEqual(started);
    const seen = updates.flatMap((u) => (u.kind === 'upsert' && u.task.key === task.key && u.entry?.event === 'task.partial' ? [u.task.partials.length] : []));
    expect(seen).toEqual([1, 2, 3]);
    expect((await observer.timeline(task.key)).filter((e) => e.event === 'task.partial')).toHaveLength(3);
  });
});

describe('observedFamily, familyEvent and sameFamily', () => {
  const child = { taskId: 'c1', status: 'working' as const };
  const partial = { seq: 1, at: 5, content: 'x' };

  it('should read what the context holds, and take what a view lacks from what was shown', () => {
    expect(observedFamily({})).toEqual({ parentId: null, depth: 0, children: [], partials: [] });
    const shown = observedFamily({ parentId: 'p', depth: 2, children: [child], partials: [partial] });
    expect(observedFamily({}, shown)).toEqual(shown);
    expect(observedFamily({ children: [] }, shown).children).toEqual([]);
  });

  it('should name a new partial task.partial, a child change task.child, and nothing else', () => {
    expect(familyEvent({}, { partials: [partial] })).toBe('task.partial');
    expect(familyEvent({ children: [child] }, { children: [{ ...child, status: 'completed' }] })).toBe('task.child');
    expect(familyEvent({}, { children: [child] })).toBe('task.child');
    expect(familyEvent({ children: [child], partials: [partial] }, { children: [child], partials: [partial] })).toBeNull();
    expect(sameFamily({ children: [child] }, { children: [{ ...child }] })).toBe(true);
    expect(sameFamily({ partials: [partial] }, { partials: [partial, { ...partial, seq: 2 }] })).toBe(false);
  });
});
