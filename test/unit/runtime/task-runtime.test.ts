import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createTaskRuntime,
  DuplicateTaskIdError,
  InvalidCursorError,
  TaskExpiredError,
  TaskNotCompletedError,
  TaskNotFoundError,
  TaskTerminalError,
  TaskTimeoutError,
  type TaskChange,
  type TaskRuntime,
  type TaskRuntimeOptions,
} from '../../../runtime/index.js';

const alice = { session: 's-alice', principal: null };
const bob = { session: 's-bob', principal: null };

let runtime: TaskRuntime;
afterEach(async () => {
  await runtime.dispose();
  vi.useRealTimers();
});

/**
 * Fakes the clock the runtime's deadlines run on (Date.now, its default `now`, and setTimeout)
 * before the runtime is made; setImmediate stays real, so work still starts on the next turn.
 * A test can then stand just before a deadline, or far past one, without waiting for it.
 */
const fakeClock = () => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });

function make(options: TaskRuntimeOptions = {}): TaskRuntime {
  runtime = createTaskRuntime(options);
  runtime.registerHandler('echo', async (params) => ({ echoed: params }));
  runtime.registerHandler('boom', async () => {
    throw new Error('kaput');
  });
  runtime.registerHandler('wait', (_params, ctx) => new Promise((resolve, reject) => {
    ctx.setStatusMessage('waiting');
    const timer = setTimeout(() => resolve({ waited: true }), 60_000);
    ctx.signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(new Error('aborted'));
    });
  }));
  return runtime;
}

/** The work of a new task starts on the next turn of the event loop. */
const workStarted = () => new Promise<void>((resolve) => setImmediate(resolve));

const create = (taskId: string, handler = 'echo', owner = alice, keepAlive?: number) =>
  runtime.create({ taskId, owner, dialect: 'sep-1686', method: 'tools/call', label: handler, handler, params: { taskId }, keepAlive });

describe('createTaskRuntime', () => {
  it("should give the server's own wait the outcome of a task kept for 0 ms, which a requester sees expired", async () => {
    make();
    await runtime.create({ taskId: 'z', owner: alice, dialect: 'sep-1686', method: 'tools/call', handler: 'echo', params: { n: 1 }, keepAlive: 0 });
    // Ended within a few microtasks; its retention (0 ms) is over at once, its timer not run yet.
    for (let i = 0; i < 5; i++) await Promise.resolve();
    await expect(runtime.get('z', alice)).rejects.toBeInstanceOf(TaskExpiredError);
    const outcome = await runtime.waitForOutcome('z', alice, { countsAsPoll: false });
    expect(outcome).toMatchObject({ hasResult: true, result: { echoed: { n: 1 } } });
    expect(outcome.task.status).toBe('completed');
  });

  it('should run a task to completed and return its result', async () => {
    make();
    const created = await create('t1');
    expect(created.status).toBe('working');
    const done = await runtime.waitForTerminal('t1', alice, { timeout: 2000 });
    expect(done.status).toBe('completed');
    expect(await runtime.result('t1', alice)).toMatchObject({ result: { echoed: { taskId: 't1' } } });
  });

  it('should refuse the result of a task that is not completed', async () => {
    make();
    await create('t1', 'wait');
    await expect(runtime.result('t1', alice)).rejects.toThrow(TaskNotCompletedError);
    await expect(runtime.result('t1', alice)).rejects.toThrow("Task status is 'working', not 'completed'");
  });

  it('should end a task failed with the error when its handler throws', async () => {
    make();
    await create('t1', 'boom');
    const done = await runtime.waitForTerminal('t1', alice, { timeout: 2000 });
    expect(done).toMatchObject({ status: 'failed', error: 'kaput' });
    await expect(runtime.result('t1', alice)).rejects.toThrow(TaskNotCompletedError);
  });

  it('should refuse a duplicate task id for the same owner but allow it for another owner', async () => {
    make();
    await create('same', 'wait');
    await expect(create('same')).rejects.toThrow(DuplicateTaskIdError);
    await create('same', 'echo', bob);
    expect((await runtime.waitForTerminal('same', bob, { timeout: 2000 })).status).toBe('completed');
    expect((await runtime.get('same', alice)).status).toBe('working');
  });

  it('should answer not found to another owner, for every operation', async () => {
    make();
    await create('secret', 'wait');
    await expect(runtime.get('secret', bob)).rejects.toThrow(TaskNotFoundError);
    await expect(runtime.result('secret', bob)).rejects.toThrow(TaskNotFoundError);
    await expect(runtime.cancel('secret', bob)).rejects.toThrow(TaskNotFoundError);
    await expect(runtime.delete('secret', bob)).rejects.toThrow(TaskNotFoundError);
    expect((await runtime.list(bob)).tasks).toEqual([]);
    expect((await runtime.get('secret', alice)).status).toBe('working');
  });

  it('should cancel a running task and abort its handler', async () => {
    make();
    let aborted = false;
    runtime.registerHandler('watch', (_p, ctx) => new Promise(() => ctx.signal.addEventListener('abort', () => (aborted = true))));
    await create('c1', 'watch');
    await workStarted();
    const view = await runtime.cancel('c1', alice, 'no longer needed');
    expect(view.status).toBe('cancelled');
    expect(view.statusMessage).toBe('no longer needed');
    expect(aborted).toBe(true);
    await expect(runtime.cancel('c1', alice)).rejects.toThrow(TaskTerminalError);
  });

  it('should keep terminal tasks as records, not live actors', async () => {
    make();
    await create('a', 'wait');
    await create('b');
    await runtime.waitForTerminal('b', alice, { timeout: 2000 });
    expect(runtime.stats()).toEqual({ live: 1, retained: 1 });
    await runtime.cancel('a', alice);
    expect(runtime.stats()).toEqual({ live: 0, retained: 2 });
  });

  it('should report the status message the handler sets', async () => {
    make();
    await create('m', 'wait');
    await workStarted();
    expect((await runtime.get('m', alice)).statusMessage).toBe('waiting');
  });

  it('should cap the requested keepAlive at the maximum and report the actual value', async () => {
    make({ maxKeepAlive: 1000, defaultKeepAlive: 500 });
    expect((await create('big', 'echo', alice, 10_000)).keepAlive).toBe(1000);
    expect((await create('small', 'echo', alice, 200)).keepAlive).toBe(200);
    expect((await create('default')).keepAlive).toBe(500);
  });

  it('should report null keepAlive when retention is unlimited', async () => {
    make({ maxKeepAlive: null, defaultKeepAlive: 500 });
    expect((await create('forever', 'echo', alice, 10 ** 12)).keepAlive).toBe(10 ** 12);
  });

  it('should expire a terminal task keepAlive ms after it ended, and say so', async () => {
    fakeClock();
    make();
    await create('short', 'echo', alice, 50);
    const done = await runtime.waitForTerminal('short', alice, { timeout: 2000 });
    expect(done.expiresAt).toBe(done.updatedAt + 50);
    expect((await runtime.get('short', alice)).status).toBe('completed');
    // One ms before its deadline it is still there; on the deadline it is gone.
    await vi.advanceTimersByTimeAsync(done.expiresAt! - Date.now() - 1);
    expect((await runtime.get('short', alice)).status).toBe('completed');
    await vi.advanceTimersByTimeAsync(1);
    await expect(runtime.get('short', alice)).rejects.toThrow(TaskExpiredError);
    expect((await runtime.list(alice)).tasks.map((t) => t.taskId)).not.toContain('short');
    expect(runtime.stats()).toEqual({ live: 0, retained: 0 });
  });

  it('should never evict a running task, whatever its keepAlive', async () => {
    fakeClock();
    make();
    await create('running', 'wait', alice, 0);
    await workStarted();
    // Far past a keepAlive of 0 (the 'wait' work itself ends at 60 s): any deadline set for the
    // running task has fired by now.
    await vi.advanceTimersByTimeAsync(10_000);
    expect((await runtime.get('running', alice)).status).toBe('working');
    await runtime.cancel('running', alice);
    await vi.advanceTimersByTimeAsync(0);
    await expect(runtime.get('running', alice)).rejects.toThrow(TaskExpiredError);
  });

  it('should allow an id again after its task expired or was deleted', async () => {
    fakeClock();
    make();
    await create('reuse', 'echo', alice, 10);
    await runtime.waitForTerminal('reuse', alice, { timeout: 2000 });
    await vi.advanceTimersByTimeAsync(10);
    await expect(runtime.get('reuse', alice)).rejects.toThrow(TaskExpiredError);
    await create('reuse');
    await runtime.waitForTerminal('reuse', alice, { timeout: 2000 });
    await runtime.delete('reuse', alice);
    await expect(runtime.get('reuse', alice)).rejects.toThrow(TaskNotFoundError);
    await create('reuse');
    expect((await runtime.get('reuse', alice)).taskId).toBe('reuse');
  });

  it('should say "expired" for the most recent expiredMemory expired ids, then "not found"', async () => {
    fakeClock();
    runtime = createTaskRuntime({ expiredMemory: 2 });
    runtime.registerHandler('echo', async (params) => params);
    for (const id of ['a', 'b', 'c']) {
      await create(id, 'echo', alice, 10);
      await runtime.waitForTerminal(id, alice, { timeout: 2000 });
      await vi.advanceTimersByTimeAsync(10);
    }
    await expect(runtime.get('c', alice)).rejects.toThrow(TaskExpiredError);
    await expect(runtime.get('b', alice)).rejects.toThrow(TaskExpiredError);
    await expect(runtime.get('a', alice)).rejects.toThrow(TaskNotFoundError);
  });

  it('should cancel then delete a running task, and not let its old deadline touch a new task of the same id', async () => {
    fakeClock();
    make({ defaultKeepAlive: 30 });
    await create('d', 'wait');
    await runtime.delete('d', alice);
    await expect(runtime.get('d', alice)).rejects.toThrow(TaskNotFoundError);
    await create('d', 'wait');
    await workStarted();
    // Far past the deleted task's deadline (30 ms after its cancel), short of the work's own 60 s.
    await vi.advanceTimersByTimeAsync(10_000);
    expect((await runtime.get('d', alice)).status).toBe('working');
  });

  it('should page through every task exactly once, oldest first, skipping deleted ones', async () => {
    make({ pageSize: 7 });
    const ids = Array.from({ length: 30 }, (_, i) => `p${String(i).padStart(2, '0')}`);
    for (const id of ids) await create(id, 'wait');
    await runtime.delete('p03', alice);
    await runtime.delete('p20', alice);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await runtime.list(alice, { cursor });
      expect(page.tasks.length).toBeLessThanOrEqual(7);
      seen.push(...page.tasks.map((t) => t.taskId));
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== undefined);
    expect(seen).toEqual(ids.filter((id) => id !== 'p03' && id !== 'p20'));
    expect(pages).toBe(4);
  });

  it('should refuse cursors it did not issue', async () => {
    make();
    await create('x');
    for (const bad of ['nope', '', 'bXRhMTo5OTk5', Buffer.from('mta1:-1').toString('base64url'), 'a'.repeat(500)]) {
      await expect(runtime.list(alice, { cursor: bad })).rejects.toThrow(InvalidCursorError);
    }
  });

  it('should tell subscribers about every status change', async () => {
    make();
    const changes: TaskChange[] = [];
    runtime.subscribe((c) => changes.push(c));
    await create('s');
    await runtime.waitForTerminal('s', alice, { timeout: 2000 });
    expect(changes.map((c) => [c.previous, c.task.status])).toEqual([
      [null, 'submitted'],
      ['submitted', 'working'],
      ['working', 'completed'],
    ]);
  });

  it('should time out a wait with a typed error', async () => {
    make();
    await create('slow', 'wait');
    await expect(runtime.waitForTerminal('slow', alice, { timeout: 20 })).rejects.toThrow(TaskTimeoutError);
    const controller = new AbortController();
    const waiting = runtime.waitForTerminal('slow', alice, { signal: controller.signal });
    controller.abort(new Error('stop waiting'));
    await expect(waiting).rejects.toThrow('stop waiting');
  });

  it('should keep a cancelled task cancelled, without a result, when its handler finishes anyway', async () => {
    make();
    let finished: Promise<unknown> | undefined;
    runtime.registerHandler('stubborn', () => {
      finished = (async () => {
        await delay(40); // ignores its abort signal
        return { late: true };
      })();
      return finished;
    });
    await create('s1', 'stubborn');
    await workStarted();
    await runtime.cancel('s1', alice);
    // The late result is back, and the runtime has taken it in: its reaction to the handler's
    // promise runs in microtasks, all of which are done by the next turn of the event loop.
    expect(finished, 'the handler ran before the cancel').toBeDefined();
    await finished;
    await workStarted();
    expect(await runtime.outcome('s1', alice)).toMatchObject({ task: { status: 'cancelled' }, hasResult: false, result: undefined });
  });

  it('should give waiters the outcome even when the task is deleted as it ends', async () => {
    make();
    await create('del', 'wait');
    const waiting = runtime.waitForOutcome('del', alice, { timeout: 2000 });
    await runtime.delete('del', alice);
    expect(await waiting).toMatchObject({ task: { status: 'cancelled' }, hasResult: false });
  });

  it('should run tasks normally when a subscriber throws', async () => {
    make();
    runtime.subscribe(() => {
      throw new Error('bad listener');
    });
    await create('l1');
    expect((await runtime.waitForTerminal('l1', alice, { timeout: 2000 })).status).toBe('completed');
  });

  it('should deliver a task-scoped subscription only that task of that owner', async () => {
    make();
    const seen: string[] = [];
    runtime.subscribe((c) => seen.push(`${c.task.taskId}:${c.task.status}`), { taskId: 'mine', owner: alice });
    await create('other');
    await create('mine', 'echo', bob);
    await create('mine');
    await runtime.waitForTerminal('mine', alice, { timeout: 2000 });
    await runtime.waitForTerminal('other', alice, { timeout: 2000 });
    expect(seen).toEqual(['mine:submitted', 'mine:working', 'mine:completed']);
  });
});

