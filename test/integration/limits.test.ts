/**
 * Per-requester limits of `mcp-tasks serve`, over stdio and Streamable HTTP: a request over a
 * limit gets JSON-RPC error -32029 naming the limit and when to retry, and the requester's other
 * tasks are unharmed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { connectHttp } from './harness/http-wire.js';
import { connectStdio } from './harness/stdio-wire.js';
import { create2025, getTask, statusOf } from './harness/task-calls.js';
import type { Connect, Wire } from './harness/types.js';

const LIMITED = -32029;

describe.each([
  ['stdio', connectStdio],
  ['http', connectHttp],
] as [string, Connect][])('per-requester limits over %s', (_name, connect) => {
  let wire: Wire | undefined;
  afterEach(async () => {
    await wire?.close();
    wire = undefined;
  });

  it('refuses polls over --max-polls-per-second with -32029, and the task is unharmed', async () => {
    wire = await connect(['--max-polls-per-second', '2']);
    const task = await create2025(wire, 'sleep', { ms: 10 });
    const answers = await Promise.all(Array.from({ length: 8 }, () => wire!.request('tasks/get', { taskId: task.taskId })));
    const refused = answers.filter((a) => a.error?.code === LIMITED);
    expect(answers.filter((a) => a.result !== undefined).length).toBeGreaterThanOrEqual(4); // the burst
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]!.error!.message).toMatch(/^Limit exceeded: pollsPerSecond \(2 per second per requester\); retry after \d+ ms$/);
    expect(refused[0]!.error!.data).toMatchObject({ limit: 'pollsPerSecond' });
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(statusOf(await getTask(wire, task.taskId))).toBe('completed');
  });

  it('refuses a task over --max-running-tasks until one ends', async () => {
    wire = await connect(['--max-running-tasks', '1']);
    const first = await create2025(wire, 'sleep', { ms: 400 });
    const second = await wire.request('tools/call', { name: 'sleep', arguments: { ms: 1 }, task: { ttl: 60_000 } });
    expect(second.error?.code).toBe(LIMITED);
    expect(second.error?.message).toBe('Limit exceeded: maxConcurrentTasks (1 running tasks per requester); retry once one of your tasks has ended');
    // A plain call is not a task: it is not limited by running tasks.
    expect((await wire.request('tools/call', { name: 'echo', arguments: { text: 'hi' } })).result).toBeDefined();
    for (let i = 0; i < 50 && statusOf(await getTask(wire, first.taskId)) !== 'completed'; i++) await new Promise((r) => setTimeout(r, 50));
    expect((await create2025(wire, 'sleep', { ms: 1 })).taskId).toBeTruthy();
  });
});
