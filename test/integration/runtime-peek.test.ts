/**
 * `runtime.peek`: one look at a task, no wait, on both backends (issue 43, item 6). `tasks/result`
 * of a running task used to learn that it runs by catching the `TaskTimeoutError` of
 * `waitForOutcome({ timeout: 0 })`; it now reads once and is told `running` or `ended`.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createNatsTaskRuntime } from '../../runtime/backends/nats/nats-runtime.js';
import { createTaskRuntime, TaskFailure, TaskNotFoundError, TaskLimitError, type TaskRuntime } from '../../runtime/index.js';
import { startNatsServer, type NatsServer } from './harness/nats-server.js';

const owner = { session: 's1', principal: null };
const releases: (() => void)[] = [];

function register(runtime: TaskRuntime): void {
  runtime.registerHandler('hold', () => new Promise((resolve) => releases.push(() => resolve({ content: [{ type: 'text', text: 'held' }] }))));
  runtime.registerHandler('fail', async () => {
    throw new TaskFailure('gave up');
  });
}

let nats: NatsServer;
const opened: TaskRuntime[] = [];
beforeAll(async () => {
  nats = await startNatsServer();
});
afterAll(async () => {
  await Promise.allSettled(opened.map((r) => r.dispose()));
  await nats?.stop();
});

const backends: { name: string; open: () => Promise<TaskRuntime> }[] = [
  { name: 'memory', open: async () => createTaskRuntime({ limits: { pollsPerSecond: 1 } }) },
  { name: 'nats', open: async () => createNatsTaskRuntime({ nats: { servers: nats.url }, prefix: 'peek', nodeId: 'peek-1', limits: { pollsPerSecond: 1 } }) },
];

describe.each(backends)('runtime.peek ($name)', ({ open }) => {
  let runtime: TaskRuntime;
  beforeAll(async () => {
    runtime = await open();
    register(runtime);
    opened.push(runtime);
  });

  it('tells a running task as it runs, then its outcome once it ended, without a wait', async () => {
    await runtime.create({ taskId: 'p1', owner, dialect: '2025-11-25', method: 'tools/call', handler: 'hold', params: {} });
    await vi.waitFor(() => expect(releases).toHaveLength(1), { timeout: 5_000, interval: 10 });
    const waits = vi.spyOn(runtime, 'waitForOutcome');
    const running = await runtime.peek('p1', owner, { countsAsPoll: false });
    expect(running).toEqual({ running: expect.objectContaining({ taskId: 'p1', status: 'working' }) });
    releases.shift()!();
    await runtime.waitForTerminal('p1', owner, { countsAsPoll: false });
    const ended = await runtime.peek('p1', owner, { countsAsPoll: false });
    expect(ended).toEqual({ ended: expect.objectContaining({ hasResult: true, result: { content: [{ type: 'text', text: 'held' }] } }) });
    expect('ended' in ended && ended.ended.task.status).toBe('completed');
    expect(waits).not.toHaveBeenCalled();
    waits.mockRestore();
  });

  it('gives a failed task\'s failure as its outcome, and what a look-up gives for an unknown id', async () => {
    await runtime.create({ taskId: 'p2', owner, dialect: '2025-11-25', method: 'tools/call', handler: 'fail', params: {} });
    await runtime.waitForTerminal('p2', owner, { countsAsPoll: false });
    const ended = await runtime.peek('p2', owner, { countsAsPoll: false });
    expect('ended' in ended && ended.ended).toMatchObject({ hasResult: false, task: { status: 'failed', error: 'gave up' } });
    await expect(runtime.peek('nope', owner, { countsAsPoll: false })).rejects.toBeInstanceOf(TaskNotFoundError);
    // Another requester's task is not found either.
    await expect(runtime.peek('p2', { session: 's2', principal: null }, { countsAsPoll: false })).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it('is a requester\'s poll unless the server reads: charged against pollsPerSecond', async () => {
    const other = { session: 's3', principal: null };
    await runtime.create({ taskId: 'p3', owner: other, dialect: '2025-11-25', method: 'tools/call', handler: 'fail', params: {} });
    await runtime.waitForTerminal('p3', other, { countsAsPoll: false });
    const outcomes = await Promise.allSettled(Array.from({ length: 6 }, () => runtime.peek('p3', other)));
    expect(outcomes.some((o) => o.status === 'rejected' && o.reason instanceof TaskLimitError)).toBe(true);
    // The server's own look is never refused.
    await expect(runtime.peek('p3', other, { countsAsPoll: false })).resolves.toHaveProperty('ended');
  });
});
