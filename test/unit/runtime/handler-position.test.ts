/**
 * Where a task's handler machine is, on the memory backend: the demo `long_job` tool (a
 * `machineHandler`, through the MCP server's task work context) run by `createTaskRuntime`
 * reports each state it enters. The operator's view (`observe()`) shows the position advancing
 * step by step, its timeline has a `task.handler` entry per state, and `observer.machine(key)`
 * returns the machine's graph; requesters' listeners are not woken by these moves, and a report
 * after the task ended is dropped quietly.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { longJobMachine } from '../../../adapters/cli/long-job.machine.js';
import { longJobTool } from '../../../adapters/cli/demo-tools.js';
import { taskWorkContext } from '../../../adapters/wire/task-work-context.js';
import type { HandlerPosition } from '../../../machines/index.js';
import { machineGraph } from '../../../runtime/handlers/machine-graph.js';
import { createTaskRuntime, InvalidArgumentError, type ObserverUpdate, type TaskHandlerContext, type TaskRuntime, type TaskView } from '../../../runtime/index.js';

const owner = { session: 's1', principal: null };

let runtime: TaskRuntime | null = null;
afterEach(async () => {
  await runtime?.dispose();
  runtime = null;
});

describe('the handler machine position on the memory backend', () => {
  it('should show long_job advancing step by step to the operator, with its graph and timeline, and not wake requesters', async () => {
    const rt = (runtime = createTaskRuntime());
    rt.registerHandler('tools/call:long_job', (params, ctx) => longJobTool.run(params as { seconds: number }, taskWorkContext(ctx)));
    const observer = rt.observe();
    const positions: HandlerPosition[] = [];
    observer.watch((u: ObserverUpdate) => {
      if (u.kind === 'upsert' && u.entry?.event === 'task.handler') positions.push(u.task.handler!);
    });
    const views: TaskView[] = [];
    rt.subscribe(({ task }) => views.push(task), { taskId: 'j', owner });
    await rt.create({ taskId: 'j', owner, dialect: '2025-11-25', method: 'tools/call', label: 'long_job', handler: 'tools/call:long_job', params: { seconds: 0.2 } });
    const outcome = await rt.waitForOutcome('j', owner, { timeout: 10_000 });
    expect(outcome.task.status).toBe('completed');

    // One report per state: `working` at steps 1 to 10 (each step re-enters it), then `done`.
    expect(positions.map((p) => [p.step, p.states.join(','), p.status])).toEqual([
      ...Array.from({ length: 10 }, (_, i) => [i + 1, 'long_job.working', 'active']),
      [11, 'long_job.done', 'done'],
    ]);
    // Memory keeps no checkpoints (no other node could resume the task).
    expect(positions.every((p) => p.machine === 'long_job' && !p.checkpoint)).toBe(true);
    const [task] = await observer.list();
    expect(task!.handler).toEqual(positions.at(-1));
    expect(await observer.machine(task!.handler!.graph)).toEqual(machineGraph(longJobMachine));
    expect(await observer.machine('no-such-graph')).toBeNull();

    const timeline = await observer.timeline(task!.key);
    const handlerEntries = timeline.filter((e) => e.event === 'task.handler');
    expect(handlerEntries.map((e) => e.handler?.step)).toEqual(positions.map((p) => p.step));
    expect(timeline.filter((e) => e.event !== 'task.handler').every((e) => e.handler === undefined)).toBe(true);

    // Requesters hear of every other change (status, progress with its message, partial results),
    // none of which is a handler move alone.
    expect(views.length).toBeGreaterThan(0);
    for (let i = 1; i < views.length; i++) {
      const [a, b] = [views[i - 1]!, views[i]!];
      const news = a.status !== b.status || a.statusMessage !== b.statusMessage || a.progress !== b.progress || a.partials !== b.partials || a.pendingInputs !== b.pendingInputs;
      expect(news, `change ${i} is a handler move only: ${JSON.stringify(b.handler)}`).toBe(true);
    }
  });

  it('should drop a report made after the task ended, and refuse a malformed one', async () => {
    const rt = (runtime = createTaskRuntime());
    let kept: TaskHandlerContext | null = null;
    const graph = machineGraph(longJobMachine);
    rt.registerHandler('work', (_params, ctx) => {
      kept = ctx;
      ctx.handlerState!(graph, { states: ['long_job.working'], status: 'active', step: 1, checkpoint: false });
      expect(() => ctx.handlerState!(graph, { states: ['long_job.working'], status: 'running' as 'active', step: 2, checkpoint: false })).toThrow(InvalidArgumentError);
      expect(() => ctx.handlerState!({} as typeof graph, { states: [], status: 'active', step: 2, checkpoint: false })).toThrow(InvalidArgumentError);
      return Promise.resolve('ok');
    });
    await rt.create({ taskId: 't', owner, dialect: 'sep-1686', method: 'tools/call', handler: 'work' });
    const outcome = await rt.waitForOutcome('t', owner);
    expect(outcome.task.status).toBe('completed');
    expect(outcome.task.handler?.step).toBe(1);
    // Ended: nothing changes, nothing throws.
    expect(() => kept!.handlerState!(graph, { states: ['long_job.done'], status: 'done', step: 2, checkpoint: false })).not.toThrow();
    expect((await rt.get('t', owner)).handler?.step).toBe(1);
  });
});
