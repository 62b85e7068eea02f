/**
 * The operator's view of a NATS task space (`runtime.observe()`): two nodes on one real
 * nats-server, a front node A and a worker node B, each observing the whole space.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TaskOwner } from '../../machines/index.js';
import { createNatsTaskRuntime, type NatsTaskRuntime } from '../../runtime/backends/nats/nats-runtime.js';
import { MAX_TIMELINE_ENTRIES, type ObservedTask, type ObserverUpdate, type TaskObserver } from '../../runtime/index.js';
import { startNatsServer, type NatsServer } from './harness/nats-server.js';

const alice: TaskOwner = { session: 's-alice', principal: 'alice' };
const bob: TaskOwner = { session: 's-bob', principal: null };
let server: NatsServer;
const runtimes: NatsTaskRuntime[] = [];
const observers: TaskObserver[] = [];
let prefixSeq = 0;

/** Nodes A (front) and B (worker) on a fresh prefix. */
async function pair(): Promise<{ a: NatsTaskRuntime; b: NatsTaskRuntime }> {
  const prefix = `obs${++prefixSeq}`;
  const make = async (name: string, role: 'front' | 'worker'): Promise<NatsTaskRuntime> => {
    const runtime = await createNatsTaskRuntime({ nats: { servers: server.url }, prefix, role, nodeId: `${prefix}-${name}` });
    runtime.registerHandler('sleep', async (p, ctx) => {
      await delay((p as { ms: number }).ms, undefined, { signal: ctx.signal });
      return { slept: (p as { ms: number }).ms };
    });
    runtime.registerHandler('ask', async (_p, ctx) => ({ name: await ctx.requestInput('elicitation/create', { message: 'name?' }) }));
    // 30 status messages, a question, 30 more: each message stored as a change of its own (the
    // record shows it before the next), so the timeline has more entries than it keeps.
    runtime.registerHandler('chattyAsk', async (_p, ctx) => {
      const say = async (i: number): Promise<void> => {
        ctx.setStatusMessage(`step ${i}`);
        for (let tries = 0; tries < 500 && (await runtime.get(ctx.taskId, alice)).statusMessage !== `step ${i}`; tries++) await delay(5);
      };
      for (let i = 1; i <= 30; i++) await say(i);
      const name = await ctx.requestInput('elicitation/create', { message: 'name?' });
      for (let i = 31; i <= 60; i++) await say(i);
      return { name };
    });
    runtimes.push(runtime);
    return runtime;
  };
  return { a: await make('A', 'front'), b: await make('B', 'worker') };
}

/** An observer and everything it is told. */
function observe(runtime: NatsTaskRuntime): { observer: TaskObserver; updates: ObserverUpdate[] } {
  const observer = runtime.observe();
  observers.push(observer);
  const updates: ObserverUpdate[] = [];
  observer.watch((u) => updates.push(u));
  return { observer, updates };
}

const create = (r: NatsTaskRuntime, taskId: string, handler: string, params: unknown, o: { owner?: TaskOwner; keepAlive?: number } = {}) =>
  r.create({ taskId, owner: o.owner ?? alice, dialect: '2025-11-25', method: 'tools/call', label: handler, handler, params, ...(o.keepAlive !== undefined && { keepAlive: o.keepAlive }) });

async function listed(observer: TaskObserver, taskId: string, status?: string, owner: TaskOwner = alice): Promise<ObservedTask> {
  let found: ObservedTask | undefined;
  await expect
    .poll(async () => {
      found = (await observer.list()).find((t) => t.taskId === taskId && t.owner.session === owner.session && (status === undefined || t.status === status));
      return found !== undefined;
    }, { timeout: 3_000, interval: 20 })
    .toBe(true);
  return found!;
}

const entriesOf = (updates: ObserverUpdate[], key: string) => updates.flatMap((u) => (u.kind === 'upsert' && u.task.key === key && u.entry ? [u.entry] : []));

beforeAll(async () => {
  server = await startNatsServer();
});
afterAll(async () => {
  await Promise.allSettled(observers.map((o) => o.close()));
  await Promise.allSettled(runtimes.map((r) => r.dispose()));
  await server?.stop();
});

describe('runtime.observe() on the NATS backend', () => {
  it('shows a task created on A and run on B on both nodes, live, with the worker as its node', async () => {
    const { a, b } = await pair();
    const onA = observe(a);
    const onB = observe(b);
    expect(await onA.observer.list()).toEqual([]);
    expect(await onB.observer.list()).toEqual([]);
    const started = Date.now();
    await create(a, 't1', 'sleep', { ms: 100 });
    // Seen on both nodes within a second of its creation.
    await expect.poll(() => onA.updates.length > 0 && onB.updates.length > 0, { timeout: 1_000, interval: 10 }).toBe(true);
    expect(Date.now() - started).toBeLessThan(1_000);
    await a.waitForTerminal('t1', alice, { timeout: 5_000 });
    for (const { observer, updates } of [onA, onB]) {
      const task = await listed(observer, 't1', 'completed');
      expect(task).toMatchObject({ method: 'tools/call', label: 'sleep', dialect: '2025-11-25', owner: alice, node: b.nodeId, error: null });
      await expect.poll(async () => (await observer.list())[0]?.hasResult, { timeout: 2_000 }).toBe(true);
      // Live: each change once, in order, named by the node that made it.
      await expect.poll(() => entriesOf(updates, task.key).map((e) => [e.event, e.node]), { timeout: 2_000 }).toEqual([
        ['task.created', a.nodeId],
        ['task.start', b.nodeId],
        ['task.complete', b.nodeId],
      ]);
      const timeline = await observer.timeline(task.key);
      expect(timeline.map((e) => [e.event, e.previous, e.status, e.node])).toEqual([
        ['task.created', null, 'submitted', a.nodeId],
        ['task.start', 'submitted', 'working', b.nodeId],
        ['task.complete', 'working', 'completed', b.nodeId],
      ]);
      expect(timeline[0]!.at).toBeGreaterThanOrEqual(started);
      expect(timeline[1]!.at).toBeGreaterThanOrEqual(timeline[0]!.at);
      expect(timeline[2]!.at - timeline[1]!.at).toBeGreaterThanOrEqual(90);
      expect(await observer.result(task.key)).toEqual({ hasResult: true, result: { slept: 100 }, error: null });
    }
  });

  it('lists every owner’s tasks and delivers a cancel, a delete and an expiry live', async () => {
    const { a, b } = await pair();
    const onA = observe(a);
    const onB = observe(b);
    await create(a, 'long', 'sleep', { ms: 30_000 });
    await create(a, 'long', 'sleep', { ms: 30_000 }, { owner: bob });
    await create(a, 'short', 'sleep', { ms: 1 }, { keepAlive: 300 });
    const long = await listed(onB.observer, 'long', 'working');
    const tasks = await onA.observer.list();
    expect(tasks.filter((t) => t.taskId === 'long').map((t) => t.owner.session).sort()).toEqual(['s-alice', 's-bob']);

    await a.cancel('long', alice, 'operator stop');
    await expect.poll(() => entriesOf(onB.updates, long.key).at(-1), { timeout: 5_000, interval: 10 }).toMatchObject({
      event: 'task.cancel',
      previous: 'working',
      status: 'cancelled',
      node: a.nodeId,
      message: 'operator stop',
    });
    await a.delete('long', alice);
    for (const { updates } of [onA, onB]) {
      await expect.poll(() => updates.some((u) => u.kind === 'removed' && u.key === long.key), { timeout: 5_000, interval: 10 }).toBe(true);
    }
    expect((await onB.observer.list()).some((t) => t.key === long.key)).toBe(false);
    expect(await onB.observer.timeline(long.key)).toEqual([]);

    const short = await listed(onA.observer, 'short', 'completed');
    await expect.poll(() => onA.updates.some((u) => u.kind === 'removed' && u.key === short.key), { timeout: 5_000, interval: 20 }).toBe(true);
    expect((await onA.observer.list()).map((t) => [t.taskId, t.owner.session])).toEqual([['long', 's-bob']]);
    await a.cancel('long', bob);
  });

  it('gives a task created before the observer its full timeline, input requests included', async () => {
    const { a, b } = await pair();
    await create(a, 'q', 'ask', {});
    await expect.poll(async () => (await a.get('q', alice)).status, { timeout: 3_000 }).toBe('input_required');
    const [request] = await a.pendingInputRequests('q', alice);
    await a.answerInput('q', alice, request!.inputId, { result: 'Ada' });
    await a.waitForTerminal('q', alice, { timeout: 5_000 });

    const { observer } = observe(a);
    const task = await listed(observer, 'q');
    expect(task).toMatchObject({ status: 'completed', node: b.nodeId, hasResult: true, pendingInputs: [] });
    expect((await observer.timeline(task.key)).map((e) => [e.event, e.status, e.node])).toEqual([
      ['task.created', 'submitted', a.nodeId],
      ['task.start', 'working', b.nodeId],
      ['task.input.request', 'input_required', b.nodeId],
      ['task.input.response', 'working', a.nodeId],
      ['task.complete', 'completed', b.nodeId],
    ]);
    expect(await observer.result(task.key)).toMatchObject({ hasResult: true, result: { name: 'Ada' } });
    expect(await observer.timeline('not-a-key')).toEqual([]);
  });

  it('keeps every step a long task took in its bounded timeline, giving up the oldest reports first', async () => {
    const { a, b } = await pair();
    await create(a, 'chat', 'chattyAsk', {});
    await expect.poll(async () => (await a.get('chat', alice)).status, { timeout: 10_000 }).toBe('input_required');
    const [request] = await a.pendingInputRequests('chat', alice);
    await a.answerInput('chat', alice, request!.inputId, { result: 'Ada' });
    await a.waitForTerminal('chat', alice, { timeout: 15_000 });
    const { observer } = observe(a);
    const timeline = await observer.timeline((await listed(observer, 'chat')).key);
    expect(timeline).toHaveLength(MAX_TIMELINE_ENTRIES);
    const steps = timeline.filter((e) => e.event !== 'task.message');
    expect(steps.map((e) => [e.event, e.node])).toEqual([
      ['task.created', a.nodeId],
      ['task.start', b.nodeId],
      ['task.input.request', b.nodeId],
      ['task.input.response', a.nodeId],
      ['task.complete', b.nodeId],
    ]);
    // 45 messages kept, the latest: steps 16 to 60.
    const messages = timeline.filter((e) => e.event === 'task.message').map((e) => e.message);
    expect(messages).toHaveLength(45);
    expect([messages[0], messages.at(-1)]).toEqual(['step 16', 'step 60']);
  }, 30_000);
});
