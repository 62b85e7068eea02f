/**
 * The operator's view of the memory backend (`runtime.observe()`): every owner's tasks, their
 * timelines and live updates, on a real runtime.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TaskOwner } from '../../../machines/index.js';
import {
  createTaskRuntime,
  MAX_TIMELINE_ENTRIES,
  type ObservedTask,
  type ObserverUpdate,
  type TaskObserver,
  type TaskRuntime,
  type TaskRuntimeOptions,
} from '../../../runtime/index.js';

const alice: TaskOwner = { session: 's-alice', principal: 'alice' };
const bob: TaskOwner = { session: 's-bob', principal: null };

let runtime: TaskRuntime;
let observer: TaskObserver;
afterEach(async () => {
  await observer?.close();
  await runtime.dispose();
});

/** A runtime with an observer opened at once (as the inspector does at startup). */
function make(options: TaskRuntimeOptions = {}): { updates: ObserverUpdate[] } {
  runtime = createTaskRuntime(options);
  runtime.registerHandler('echo', async (params) => ({ echoed: params }));
  runtime.registerHandler('boom', async () => {
    throw new Error('kaput');
  });
  runtime.registerHandler('ask', async (_p, ctx) => ({ name: await ctx.requestInput('elicitation/create', { message: 'name?' }) }));
  runtime.registerHandler('hold', (_p, ctx) => new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('aborted')))));
  runtime.registerHandler('chatty', async (p, ctx) => {
    for (let i = 1; i <= (p as { steps: number }).steps; i++) ctx.setStatusMessage(`step ${i}`);
    return { ok: true };
  });
  observer = runtime.observe();
  const updates: ObserverUpdate[] = [];
  observer.watch((u) => updates.push(u));
  return { updates };
}

const create = (taskId: string, handler = 'echo', owner = alice, extra: { keepAlive?: number; params?: unknown } = {}) =>
  runtime.create({ taskId, owner, dialect: 'sep-1686', method: 'tools/call', label: handler, handler, params: extra.params ?? {}, keepAlive: extra.keepAlive });

async function keyOf(taskId: string, session = alice.session): Promise<string> {
  const task = (await observer.list()).find((t) => t.taskId === taskId && t.owner.session === session);
  if (!task) throw new Error(`task ${taskId} not listed`);
  return task.key;
}

const steps = async (key: string) => (await observer.timeline(key)).map((e) => `${e.event}:${e.previous ?? '-'}→${e.status}`);

describe('runtime.observe() on the memory backend', () => {
  it('should list every owner’s tasks with what an operator needs', async () => {
    make();
    await create('t1', 'echo', alice);
    await create('t1', 'hold', bob);
    await runtime.waitForTerminal('t1', alice);
    const tasks = await observer.list();
    expect(tasks.map((t) => [t.taskId, t.owner.session, t.status])).toEqual([
      ['t1', 's-alice', 'completed'],
      ['t1', 's-bob', 'working'],
    ]);
    const done = tasks[0]!;
    expect(done).toMatchObject({ method: 'tools/call', label: 'echo', dialect: 'sep-1686', owner: alice, node: 'local', hasResult: true, error: null, pendingInputs: [] });
    expect(done.expiresAt).toBeGreaterThan(done.updatedAt);
    // Unique across owners, and safe in a URL.
    expect(new Set(tasks.map((t) => t.key)).size).toBe(2);
    for (const t of tasks) expect(t.key).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(await observer.result(done.key)).toEqual({ hasResult: true, result: { echoed: {} }, error: null });
  });

  it('should keep a timeline of created, start and complete with times and the node', async () => {
    make({ audit: { node: 'api-1' } });
    const before = Date.now();
    await create('t1');
    await runtime.waitForTerminal('t1', alice);
    const timeline = await observer.timeline(await keyOf('t1'));
    expect(timeline.map((e) => [e.event, e.previous, e.status, e.node])).toEqual([
      ['task.created', null, 'submitted', 'api-1'],
      ['task.start', 'submitted', 'working', 'api-1'],
      ['task.complete', 'working', 'completed', 'api-1'],
    ]);
    for (const [i, e] of timeline.entries()) {
      expect(e.at).toBeGreaterThanOrEqual(i === 0 ? before : timeline[i - 1]!.at);
      expect(e.at).toBeLessThanOrEqual(Date.now());
    }
  });

  it('should show input requests and answers, live and in the timeline', async () => {
    const { updates } = make();
    await create('t1', 'ask');
    const [request] = await vi.waitFor(
      async () => {
        const pending = await runtime.pendingInputRequests('t1', alice);
        expect(pending).toHaveLength(1);
        return pending;
      },
      { timeout: 2_000, interval: 5 },
    );
    const key = await keyOf('t1');
    expect((await observer.list())[0]).toMatchObject({ status: 'input_required', pendingInputs: [request!.inputId] });
    await runtime.answerInput('t1', alice, request!.inputId, { result: 'Ada' });
    await runtime.waitForTerminal('t1', alice);
    expect(await steps(key)).toEqual([
      'task.created:-→submitted',
      'task.start:submitted→working',
      'task.input.request:working→input_required',
      'task.input.response:input_required→working',
      'task.complete:working→completed',
    ]);
    const live = updates.flatMap((u) => (u.kind === 'upsert' && u.task.key === key ? [u.entry?.event] : []));
    expect(live).toEqual(['task.created', 'task.start', 'task.input.request', 'task.input.response', 'task.complete']);
  });

  it('should deliver a failure, a cancel and a delete live', async () => {
    const { updates } = make();
    await create('bad', 'boom');
    await runtime.waitForTerminal('bad', alice);
    const bad = await keyOf('bad');
    expect((await observer.timeline(bad)).at(-1)).toMatchObject({ event: 'task.fail', status: 'failed', message: 'kaput' });
    expect(await observer.result(bad)).toEqual({ hasResult: false, error: 'kaput' });

    await create('t2', 'hold', bob);
    const key = await keyOf('t2', bob.session);
    await runtime.cancel('t2', bob, 'operator said so');
    const cancel = updates.at(-1);
    expect(cancel).toMatchObject({ kind: 'upsert', task: { key, status: 'cancelled', statusMessage: 'operator said so' }, entry: { event: 'task.cancel', previous: 'working', message: 'operator said so' } });
    await runtime.delete('t2', bob);
    expect(updates.at(-1)).toEqual({ kind: 'removed', key });
    expect((await observer.list()).map((t) => t.taskId)).toEqual(['bad']);
    expect(await observer.timeline(key)).toEqual([]);
    expect(await observer.result(key)).toEqual({ hasResult: false });
  });

  it('should report a task removed when its keepAlive runs out', async () => {
    const { updates } = make();
    await create('short', 'echo', alice, { keepAlive: 30 });
    await runtime.waitForTerminal('short', alice);
    const key = await keyOf('short');
    await expect.poll(() => updates.at(-1), { timeout: 2_000 }).toEqual({ kind: 'removed', key });
    expect(await observer.list()).toEqual([]);
  });

  it('should keep a long timeline bounded: the creation, every step the task took, and the latest reports', async () => {
    make();
    await create('long', 'chatty', alice, { params: { steps: 120 } });
    await runtime.waitForTerminal('long', alice);
    const timeline = await observer.timeline(await keyOf('long'));
    expect(timeline).toHaveLength(MAX_TIMELINE_ENTRIES);
    expect(timeline[0]).toMatchObject({ event: 'task.created', message: null });
    // Its start stays steppable: reports are given up first.
    expect(timeline[1]).toMatchObject({ event: 'task.start', status: 'working' });
    expect(timeline[2]).toMatchObject({ event: 'task.message', message: 'step 74' }); // 47 messages: steps 74 to 120
    expect(timeline.at(-2)).toMatchObject({ event: 'task.message', message: 'step 120' });
    expect(timeline.at(-1)).toMatchObject({ event: 'task.complete', status: 'completed', message: 'step 120' });
  });

  it('should show a task that moved before the first observer as its creation and where it was when seen', async () => {
    runtime = createTaskRuntime();
    runtime.registerHandler('hold', (_p, ctx) => new Promise((_r, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('x')))));
    await runtime.create({ taskId: 'early', owner: alice, dialect: 'ext', method: 'tools/call', handler: 'hold' });
    observer = runtime.observe();
    const key = await keyOf('early');
    expect(await steps(key)).toEqual(['task.created:-→submitted', 'task.start:submitted→working']);
    await runtime.cancel('early', alice);
    expect(await steps(key)).toEqual(['task.created:-→submitted', 'task.start:submitted→working', 'task.cancel:working→cancelled']);
  });

  it('should pass observe through the audit and stop updates once closed', async () => {
    const { updates } = make({ audit: {} });
    await create('t1');
    await runtime.waitForTerminal('t1', alice);
    const seen = updates.length;
    expect(seen).toBeGreaterThanOrEqual(3);
    const other = runtime.observe();
    const otherUpdates: ObservedTask[] = [];
    other.watch((u) => u.kind === 'upsert' && otherUpdates.push(u.task));
    await observer.close();
    await create('t2');
    await runtime.waitForTerminal('t2', alice);
    expect(updates.length).toBe(seen);
    expect(otherUpdates.map((t) => t.taskId)).toContain('t2');
    await other.close();
  });
});
