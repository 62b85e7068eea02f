/**
 * Subtasks and intermediate results through the runtime API (the core's rules; the integration
 * suites run the same over both backends through `serve`): the wait modes, a parent ending first,
 * the depth cap, partial-result bounds.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createTaskRuntime, InvalidArgumentError, SubtaskFailedError, type TaskHandlerContext, type TaskRuntime, type TaskRuntimeOptions } from '../../../runtime/index.js';

const owner = { session: 's1', principal: null };
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

let runtime: TaskRuntime | null = null;
afterEach(async () => {
  await runtime?.dispose();
  runtime = null;
});

/** A runtime with `sleep {ms}`, `boom` and a parent whose work is `parent`. */
function withParent(parent: (params: unknown, ctx: TaskHandlerContext) => Promise<unknown>, options: TaskRuntimeOptions = {}): TaskRuntime {
  const rt = createTaskRuntime(options);
  rt.registerHandler('sleep', async (params, ctx) => {
    await new Promise((resolve, reject) => {
      const timer = setTimeout(resolve, (params as { ms: number }).ms);
      ctx.signal.addEventListener('abort', () => (clearTimeout(timer), reject(new Error('aborted'))), { once: true });
    });
    return (params as { ms: number }).ms;
  });
  rt.registerHandler('boom', async () => {
    throw new Error('boom');
  });
  rt.registerHandler('parent', parent);
  runtime = rt;
  return rt;
}

const start = (rt: TaskRuntime, taskId = 'p'): Promise<unknown> => rt.create({ taskId, owner, dialect: 'sep-1686', method: 'tools/call', handler: 'parent' });

describe('subtasks', () => {
  it("'all' gives every outcome in order; the parent records each child's end", async () => {
    const rt = withParent(async (_p, ctx) => {
      const kids = [await ctx.spawnTask('sleep', { ms: 30 }), await ctx.spawnTask('sleep', { ms: 5 })];
      return (await ctx.waitForSubtasks(kids, 'all')).map((o) => o.result);
    });
    await start(rt);
    const out = await rt.waitForOutcome('p', owner);
    expect(out.result).toEqual([30, 5]);
    expect(out.task.children?.map((c) => c.status)).toEqual(['completed', 'completed']);
    for (const c of out.task.children!) expect((await rt.get(c.taskId, owner)).parentId).toBe('p');
  });

  it("'any' gives the first to end; the children left are cancelled when the parent ends", async () => {
    const rt = withParent(async (_p, ctx) => {
      const kids = [await ctx.spawnTask('sleep', { ms: 60_000 }), await ctx.spawnTask('sleep', { ms: 5 })];
      const [first] = await ctx.waitForSubtasks(kids, 'any');
      return first!.result;
    });
    await start(rt);
    const out = await rt.waitForOutcome('p', owner);
    expect(out.result).toBe(5);
    const slow = out.task.children![0]!.taskId;
    expect((await rt.waitForTerminal(slow, owner, { timeout: 2_000 })).status).toBe('cancelled');
  });

  it("'first-error' rejects with the failed child, and the parent's work decides what that means", async () => {
    const rt = withParent(async (_p, ctx) => {
      const kids = [await ctx.spawnTask('sleep', { ms: 60_000 }), await ctx.spawnTask('boom', {})];
      try {
        await ctx.waitForSubtasks(kids, 'first-error');
        return 'no error';
      } catch (error) {
        return error instanceof SubtaskFailedError ? `${error.subtaskId === kids[1]!.taskId} ${error.status}` : String(error);
      }
    });
    await start(rt);
    expect((await rt.waitForOutcome('p', owner)).result).toBe('true failed');
  });

  it('refuses a subtask deeper than maxTaskDepth, naming the cap', async () => {
    const rt = withParent(
      async (params, ctx) => {
        const depth = (params as { depth: number } | null)?.depth ?? 0;
        if (depth === 3) return 'bottom';
        const child = await ctx.spawnTask('parent', { depth: depth + 1 });
        const [o] = await ctx.waitForSubtasks([child]);
        if (o!.task.status !== 'completed') throw new Error(o!.task.error ?? 'child failed');
        return o!.result;
      },
      { maxTaskDepth: 2 },
    );
    await start(rt);
    const out = await rt.waitForOutcome('p', owner);
    expect(out.task.status).toBe('failed');
    expect(out.task.error).toContain('Subtasks nest at most 2 deep');
  });

  it('a spawn after the parent ended is refused, and a child of an unknown parent too', async () => {
    let ctxOut: TaskHandlerContext | null = null;
    const rt = withParent(async (_p, ctx) => {
      ctxOut = ctx;
      return 'done';
    });
    await start(rt);
    await rt.waitForOutcome('p', owner);
    await expect(ctxOut!.spawnTask('sleep', { ms: 1 })).rejects.toThrow(/terminal/);
    await expect(rt.create({ taskId: 'orphan', owner, dialect: 'sep-1686', method: 'tools/call', handler: 'sleep', params: { ms: 1 }, parentId: 'nobody' })).rejects.toThrow(/not found/i);
  });
});

describe('partial results', () => {
  it('are numbered, kept with the task, and bounded in count and bytes (over a bound: false, the task goes on)', async () => {
    const kept: boolean[] = [];
    const rt = withParent(
      async (_p, ctx) => {
        for (const text of ['a', 'b', 'c', 'd']) kept.push(await ctx.partial([{ type: 'text', text }]));
        kept.push(await ctx.partial('x'.repeat(200)));
        return 'ok';
      },
      { maxPartials: 3 },
    );
    await start(rt);
    const out = await rt.waitForOutcome('p', owner);
    expect(out.task.status).toBe('completed');
    expect(kept).toEqual([true, true, true, false, false]);
    expect(out.task.partials?.map((p) => [p.seq, (p.content as { text: string }[])[0]!.text])).toEqual([
      [1, 'a'],
      [2, 'b'],
      [3, 'c'],
    ]);
    const rt2 = withParent(async (_p, ctx) => [await ctx.partial('x'.repeat(40)), await ctx.partial('y'.repeat(40))], { maxPartialBytes: 64 });
    await start(rt2, 'p2');
    expect((await rt2.waitForOutcome('p2', owner)).result).toEqual([true, false]);
  });

  it('refuses a partial that is not JSON, and keeps none after the task ended', async () => {
    let ctxOut: TaskHandlerContext | null = null;
    const rt = withParent(async (_p, ctx) => {
      ctxOut = ctx;
      const cyclic: Record<string, unknown> = {};
      cyclic['self'] = cyclic;
      const refused = (content: unknown): Promise<string> =>
        ctx.partial(content).then(
          () => 'kept',
          (e: unknown) => (e instanceof InvalidArgumentError ? e.message : `not an InvalidArgumentError: ${String(e)}`),
        );
      return [await refused(cyclic), await refused(() => 1)].join(' | ');
    });
    await start(rt);
    expect(String((await rt.waitForOutcome('p', owner)).result)).toMatch(/must be JSON[\s\S]* \| A partial result must be JSON, not a function/);
    await sleep(1);
    expect(await ctxOut!.partial('late')).toBe(false);
  });
});
