/**
 * `runtime.close({ drainMs })` and `runtime.readiness()` on the memory backend (the core's drain:
 * the NATS backend runs the same, its hand-over tested through `serve` in the integration suite).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryPushRegistry } from '../../../runtime/push/push-registry.js';
import { createTaskRuntime, RuntimeDrainingError, type TaskChange, type TaskRuntime, type TaskRuntimeOptions } from '../../../runtime/index.js';

const owner = { session: 's1', principal: null };

let runtime: TaskRuntime | null = null;
afterEach(async () => {
  vi.restoreAllMocks();
  await runtime?.dispose();
  runtime = null;
});

/** A runtime with `sleep {ms}` (honours abort) and `parent` (spawns `sleep` children when told to). */
function sleeper(options: TaskRuntimeOptions = {}): { rt: TaskRuntime; spawn: (ms: number) => void } {
  const rt = createTaskRuntime(options);
  runtime = rt;
  const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(resolve, ms);
      signal.addEventListener('abort', () => (clearTimeout(timer), reject(new Error('aborted'))), { once: true });
    });
  rt.registerHandler('sleep', async (params, ctx) => {
    await sleep((params as { ms: number }).ms, ctx.signal);
    return { slept: (params as { ms: number }).ms };
  });
  let spawnNow: (ms: number) => void = () => undefined;
  rt.registerHandler('parent', async (_params, ctx) => {
    const ms = await new Promise<number>((resolve) => (spawnNow = resolve));
    const child = await ctx.spawnTask('sleep', { ms });
    return (await child.outcome()).result;
  });
  return { rt, spawn: (ms) => spawnNow(ms) };
}

const create = (rt: TaskRuntime, taskId: string, handler: string, params: unknown = {}): Promise<unknown> =>
  rt.create({ taskId, owner, dialect: '2025-11-25', method: 'tools/call', handler, params });

/** Polls `check` until it holds, at most `ms`. */
async function until(check: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('runtime.close', () => {
  it('should refuse new tasks at once with a retryable error, keep answering for running ones, and let them finish', async () => {
    const { rt } = sleeper();
    await create(rt, 'short', 'sleep', { ms: 300 });
    expect(await rt.readiness()).toEqual({ ready: true, reasons: [] });
    const closing = rt.close({ drainMs: 5_000, retryAfterMs: 2_000 });
    const refused = await create(rt, 'late', 'sleep', { ms: 1 }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RuntimeDrainingError);
    expect(refused).toMatchObject({ code: 'RUNTIME_DRAINING', retryAfterMs: 2_000 });
    expect((refused as Error).message).toMatch(/shutting down/);
    const readiness = await rt.readiness();
    expect(readiness.ready).toBe(false);
    expect(readiness.reasons.join()).toMatch(/draining/);
    // The running task answers as before, and ends completed across the drain.
    expect((await rt.get('short', owner)).status).toBe('working');
    const outcome = await rt.waitForOutcome('short', owner, { timeout: 5_000 });
    expect(outcome.task.status).toBe('completed');
    expect(outcome.result).toEqual({ slept: 300 });
    await closing;
    await expect(rt.get('short', owner)).rejects.toMatchObject({ name: 'RuntimeDisposedError' });
  });

  it('should end a task still running at the deadline failed, saying the server shut down, seen by its waiter and subscribers before close resolves', async () => {
    const { rt } = sleeper();
    await create(rt, 'long', 'sleep', { ms: 60_000 });
    const changes: TaskChange[] = [];
    rt.subscribe((change) => changes.push(change));
    const waited = rt.waitForOutcome('long', owner, { countsAsPoll: false });
    const started = Date.now();
    await rt.close({ drainMs: 200 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    const outcome = await waited;
    expect(outcome.task.status).toBe('failed');
    expect(outcome.task.statusMessage).toBe('The server shut down before the task finished');
    expect(changes.map((c) => [c.task.taskId, c.task.status])).toContainEqual(['long', 'failed']);
  });

  it('should still start subtasks of running tasks while draining, and end a family together at the deadline', async () => {
    const { rt, spawn } = sleeper();
    await create(rt, 'p', 'parent');
    const closing = rt.close({ drainMs: 300 });
    await expect(create(rt, 'other', 'sleep', { ms: 1 })).rejects.toBeInstanceOf(RuntimeDrainingError);
    spawn(60_000);
    await until(async () => ((await rt.get('p', owner)).children?.length ?? 0) === 1);
    const childId = (await rt.get('p', owner)).children![0]!.taskId;
    const child = rt.waitForOutcome(childId, owner, { countsAsPoll: false });
    const parent = rt.waitForOutcome('p', owner, { countsAsPoll: false });
    await closing;
    expect((await parent).task).toMatchObject({ status: 'failed', statusMessage: 'The server shut down before the task finished' });
    // Not left running: ended with its parent.
    expect(['failed', 'cancelled']).toContain((await child).task.status);
  });

  it('should end everything at once with drainMs 0, and join a second close to the first', async () => {
    const { rt } = sleeper();
    await create(rt, 'a', 'sleep', { ms: 60_000 });
    const waited = rt.waitForOutcome('a', owner, { countsAsPoll: false });
    await Promise.all([rt.close({ drainMs: 0 }), rt.close({ drainMs: 0 })]);
    expect((await waited).task.status).toBe('failed');
    expect(await rt.readiness()).toMatchObject({ ready: false });
  });

  it('should refuse a negative drain time with a clear error', async () => {
    const { rt } = sleeper();
    await expect(rt.close({ drainMs: -1 })).rejects.toThrow(/drainMs must be a non-negative number/);
  });

  it('should wait for a create admitted just before the drain began, and run its task, before disposing', async () => {
    const { rt } = sleeper({ push: { allow: ['https://hooks.example.com/'] } });
    // The create is admitted, then held registering its webhook while the drain begins.
    let registered!: () => void;
    const registering = new Promise<void>((resolve) => (registered = resolve));
    let held!: () => void;
    const holding = new Promise<void>((resolve) => (held = resolve));
    vi.spyOn(MemoryPushRegistry.prototype, 'register').mockImplementation(async () => {
      held();
      await registering;
    });
    const changes: TaskChange[] = [];
    rt.subscribe((change) => changes.push(change));
    const creating = rt.create({ taskId: 'late-admitted', owner, dialect: '2025-11-25', method: 'tools/call', handler: 'sleep', params: { ms: 50 }, push: { url: 'https://hooks.example.com/t', secret: 'a-long-random-secret' } });
    await holding;
    let closed = false;
    const closing = rt.close({ drainMs: 5_000 }).then(() => (closed = true));
    await until(async () => !(await rt.readiness()).ready);
    registered();
    // Acknowledged to its caller, and run to its end before the runtime went.
    expect(await creating).toMatchObject({ taskId: 'late-admitted' });
    await closing;
    expect(closed).toBe(true);
    expect(changes.map((c) => [c.task.taskId, c.task.status])).toContainEqual(['late-admitted', 'completed']);
  });
});
