/**
 * `startTask`, the in-process way to start a task and await it (no wire fields), on both backends
 * with the same expectations: the memory runtime, and a NATS front whose worker (another runtime
 * on a real nats-server) runs the work.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTaskRuntime, defineTaskTool, IN_PROCESS_OWNER, registerTaskWork, startTask, TaskNotCompletedError, TaskNotFoundError, type TaskRuntime } from '../../index.js';
import { inProcessNodes } from './harness/nats-nodes.js';

/** Set by `hold` when its signal fires (the worker is in this process on both backends). */
const aborted = new Set<string>();
const started = new Set<string>();

const tools = [
  defineTaskTool({
    name: 'count_words',
    inputSchema: z.object({ text: z.string() }),
    run: async ({ text }, ctx) => ({ content: [{ type: 'text', text: `${text.split(/\s+/).length} words` }], structuredContent: { taskId: ctx.taskId } }),
  }),
  defineTaskTool({
    name: 'hold',
    inputSchema: z.object({ tag: z.string() }),
    run: ({ tag }, ctx) =>
      new Promise((_resolve, reject) => {
        started.add(tag);
        ctx.signal.addEventListener('abort', () => (aborted.add(tag), reject(new Error('aborted'))), { once: true });
      }),
  }),
  defineTaskTool({
    name: 'boom',
    inputSchema: z.object({}),
    run: () => Promise.reject(new Error('the disk is full')),
  }),
];

const nodes = inProcessNodes((runtime) => registerTaskWork(runtime, { tools }));
let seq = 0;
/** Memory runtimes to dispose of (the NATS nodes are the harness's). */
const memory: TaskRuntime[] = [];
afterAll(() => Promise.all(memory.map((r) => r.dispose())));

/** A front runtime whose tasks the backend's worker runs. */
const backends: Record<string, () => Promise<TaskRuntime>> = {
  memory: async () => {
    const runtime = createTaskRuntime();
    registerTaskWork(runtime, { tools });
    memory.push(runtime);
    return runtime;
  },
  nats: async () => {
    const prefix = `start${Date.now()}x${++seq}`;
    await nodes.node({ prefix, role: 'worker', nodeId: `${prefix}-worker` });
    return nodes.node({ prefix, role: 'front', nodeId: `${prefix}-front` });
  },
};

/** Polls (bounded) until `check` holds. */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe.each(Object.keys(backends))('startTask on %s', (backend) => {
  it('should start a tool as a task of the in-process owner and resolve with its result', async () => {
    const runtime = await backends[backend]!();
    const task = await startTask(runtime, 'tools/call:count_words', { text: 'one two three' });
    expect(task.owner).toEqual(IN_PROCESS_OWNER);
    expect(await task.result({ timeout: 10_000 })).toEqual({ content: [{ type: 'text', text: '3 words' }], structuredContent: { taskId: task.taskId } });
    const view = await runtime.get(task.taskId, IN_PROCESS_OWNER);
    expect(view).toMatchObject({ status: 'completed', method: 'tools/call', label: 'count_words' });
    expect((await runtime.list(IN_PROCESS_OWNER)).tasks.map((t) => t.taskId)).toContain(task.taskId);
  });

  it("should cancel the task, aborting its work's signal, and reject result() with TaskNotCompletedError", async () => {
    const runtime = await backends[backend]!();
    const tag = `${backend}-hold`;
    const task = await startTask(runtime, 'tools/call:hold', { tag });
    await until(() => started.has(tag), `${tag} to start`);
    await task.cancel('enough');
    await until(() => aborted.has(tag), `${tag}'s signal to abort`);
    const outcome = await task.outcome({ timeout: 10_000 });
    expect(outcome.task.status).toBe('cancelled');
    await expect(task.result()).rejects.toBeInstanceOf(TaskNotCompletedError);
    // Cancelling an ended task does nothing.
    await task.cancel();
  });

  it('should reject result() of a failed task with the reason as its cause, under the owner given', async () => {
    const runtime = await backends[backend]!();
    const owner = { session: 'jobs', principal: 'ops' };
    const task = await startTask(runtime, 'tools/call:boom', {}, { owner, keepAlive: 60_000, taskId: `boom-${backend}` });
    expect(task.taskId).toBe(`boom-${backend}`);
    const error = await task.result({ timeout: 10_000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TaskNotCompletedError);
    expect((error as TaskNotCompletedError).status).toBe('failed');
    expect(String(((error as Error).cause as Error).message)).toContain('the disk is full');
    // Another owner does not see it.
    await expect(runtime.get(task.taskId, IN_PROCESS_OWNER)).rejects.toBeInstanceOf(TaskNotFoundError);
  });
});
