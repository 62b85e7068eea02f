/**
 * `ctx.progress` through the runtime API (the core's rules; the integration suites run it over
 * both backends through `serve`): kept with the task, heard by listeners and the operator's view,
 * checked input, and MCP's rule that progress only increases (a report that does not is dropped).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createTaskRuntime, InvalidArgumentError, type ObserverUpdate, type TaskHandlerContext, type TaskRuntime, type TaskView } from '../../../runtime/index.js';

const owner = { session: 's1', principal: null };

let runtime: TaskRuntime | null = null;
afterEach(async () => {
  await runtime?.dispose();
  runtime = null;
});

/** A runtime whose handler `work` does what the test needs, and the task it runs. */
async function run(work: (ctx: TaskHandlerContext) => unknown): Promise<{ rt: TaskRuntime; views: TaskView[]; observed: ObserverUpdate[] }> {
  const rt = createTaskRuntime();
  runtime = rt;
  rt.registerHandler('work', async (_params, ctx) => work(ctx));
  const views: TaskView[] = [];
  rt.subscribe(({ task }) => views.push(task), { taskId: 't', owner });
  const observed: ObserverUpdate[] = [];
  rt.observe().watch((u) => observed.push(u));
  await rt.create({ taskId: 't', owner, dialect: 'sep-1686', method: 'tools/call', handler: 'work' });
  await rt.waitForOutcome('t', owner);
  return { rt, views, observed };
}

describe('ctx.progress', () => {
  it('keeps each increasing report with the task, its message as the status message, told to listeners and the operator', async () => {
    const kept: boolean[] = [];
    const { rt, views, observed } = await run((ctx) => {
      kept.push(ctx.progress(1, 4, 'one'), ctx.progress(2.5, 4), ctx.progress(4, 4, 'four'));
      return 'done';
    });
    expect(kept).toEqual([true, true, true]);
    expect(views.map((v) => v.progress).filter(Boolean)).toEqual([
      { progress: 1, total: 4, message: 'one' },
      { progress: 2.5, total: 4 },
      { progress: 4, total: 4, message: 'four' },
      { progress: 4, total: 4, message: 'four' }, // the completion carries the last report
    ]);
    const ended = await rt.get('t', owner);
    expect(ended.progress).toEqual({ progress: 4, total: 4, message: 'four' });
    expect(ended.statusMessage).toBe('four');
    const events = observed.flatMap((u) => (u.kind === 'upsert' && u.entry ? [u.entry.event] : []));
    expect(events.filter((e) => e === 'task.progress')).toHaveLength(3);
    const last = observed.at(-1);
    expect(last?.kind === 'upsert' && last.task.progress).toEqual({ progress: 4, total: 4, message: 'four' });
  });

  it('drops a report that does not increase the progress (equal or lower), saying so with false', async () => {
    const kept: boolean[] = [];
    const { rt } = await run((ctx) => {
      kept.push(ctx.progress(5, 10, 'five'), ctx.progress(5, 10, 'five again'), ctx.progress(3, 10, 'three'), ctx.progress(6));
      return 'done';
    });
    expect(kept).toEqual([true, false, false, true]);
    const ended = await rt.get('t', owner);
    expect(ended.progress).toEqual({ progress: 6 });
    expect(ended.statusMessage).toBe('five');
  });

  it('refuses what is not a finite number (or a message that is not a string) with InvalidArgumentError', async () => {
    const errors: unknown[] = [];
    await run((ctx) => {
      for (const bad of [() => ctx.progress(Number.NaN), () => ctx.progress(Infinity, 10), () => ctx.progress(1, Number.NaN), () => ctx.progress('1' as never), () => ctx.progress(1, 2, 3 as never)]) {
        try {
          bad();
        } catch (error) {
          errors.push(error);
        }
      }
      return 'done';
    });
    expect(errors).toHaveLength(5);
    for (const e of errors) expect(e).toBeInstanceOf(InvalidArgumentError);
    expect(String((errors[0] as Error).message)).toContain('progress must be a finite number');
  });

  it('keeps nothing once the task ended', async () => {
    let late: TaskHandlerContext | null = null;
    const { rt } = await run((ctx) => {
      late = ctx;
      return 'done';
    });
    expect(late!.progress(1, 1)).toBe(false);
    expect((await rt.get('t', owner)).progress).toBeUndefined();
  });
});
