/**
 * Per-requester limits of `mcp-tasks serve`, over stdio, Streamable HTTP and a NATS front node with
 * a separate worker node: a request over a limit gets JSON-RPC error -32029 naming the limit and
 * when to retry, and the requester's other tasks are unharmed.
 */
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { connectHttp } from './harness/http-wire.js';
import { ok } from './harness/json.js';
import { connectNatsHttp, stopSharedNats } from './harness/nats-front-worker.js';
import { connectStdio } from './harness/stdio-wire.js';
import { create2025, createSep, getTask, statusOf, textOf } from './harness/task-calls.js';
import type { Connect, Wire } from './harness/types.js';

const LIMITED = -32029;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls tasks/get until the task is terminal; returns its state. */
async function settle(wire: Wire, taskId: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 100; i++) {
    const state = await getTask(wire, taskId);
    if (['completed', 'failed', 'cancelled'].includes(statusOf(state))) return state;
    await sleep(30);
  }
  throw new Error(`task ${taskId} did not end`);
}

afterAll(stopSharedNats);

describe.each([
  ['stdio', connectStdio],
  ['http', connectHttp],
  ['nats (front + worker)', connectNatsHttp],
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
    expect(refused[0]!.error!.message).toMatch(/^Limit exceeded: pollsPerSecond \(2 per second per requester\); retry after \d+ ms \(the server sets it: --max-[a-z-]+\)$/);
    expect(refused[0]!.error!.data).toMatchObject({ limit: 'pollsPerSecond' });
    // Once the budget has refilled (a refused poll uses none of it), tasks/get answers again.
    const later = await vi.waitFor(
      async () => {
        const answer = await wire!.request('tasks/get', { taskId: task.taskId });
        expect(answer.error?.code, 'still over the poll rate').not.toBe(LIMITED);
        return answer;
      },
      { timeout: 5_000, interval: 100 },
    );
    expect(statusOf(ok(later))).toBe('completed');
  });

  it('refuses a task over --max-running-tasks until one ends', async () => {
    wire = await connect(['--max-running-tasks', '1']);
    const first = await create2025(wire, 'sleep', { ms: 400 });
    const second = await wire.request('tools/call', { name: 'sleep', arguments: { ms: 1 }, task: { ttl: 60_000 } });
    expect(second.error?.code).toBe(LIMITED);
    expect(second.error?.message).toBe('Limit exceeded: maxConcurrentTasks (1 running tasks per requester); retry once one of your tasks has ended (the server sets it: --max-running-tasks)');
    // A plain call is not a task: it is not limited by running tasks.
    expect((await wire.request('tools/call', { name: 'echo', arguments: { text: 'hi' } })).result).toBeDefined();
    for (let i = 0; i < 50 && statusOf(await getTask(wire, first.taskId)) !== 'completed'; i++) await new Promise((r) => setTimeout(r, 50));
    expect((await create2025(wire, 'sleep', { ms: 1 })).taskId).toBeTruthy();
  });

  it('refuses creations over --max-creates-per-second, and the tasks created before are unharmed', async () => {
    wire = await connect(['--max-creates-per-second', '1']);
    const call = { name: 'sleep', arguments: { ms: 1 }, task: { ttl: 60_000 } };
    const answers = await Promise.all(Array.from({ length: 5 }, () => wire!.request('tools/call', call)));
    const created = answers.filter((a) => a.result !== undefined);
    const refused = answers.filter((a) => a.error?.code === LIMITED);
    expect(created.length).toBe(2); // the burst: twice the rate
    expect(refused.length).toBe(3);
    expect(refused[0]!.error!.message).toMatch(/^Limit exceeded: createsPerSecond \(1 per second per requester\); retry after \d+ ms \(the server sets it: --max-[a-z-]+\)$/);
    expect(refused[0]!.error!.data).toMatchObject({ limit: 'createsPerSecond', retryAfterMs: expect.any(Number) });
    for (const a of created) expect(statusOf(await settle(wire, (a.result!['task'] as { taskId: string }).taskId))).toBe('completed');
  });

  it('refuses tasks/list over --max-lists-per-second, and tasks/get still answers', async () => {
    wire = await connect(['--max-lists-per-second', '1']);
    const task = await create2025(wire, 'sleep', { ms: 1 });
    const answers = await Promise.all(Array.from({ length: 4 }, () => wire!.request('tasks/list', {})));
    expect(answers.filter((a) => a.result !== undefined).length).toBe(2);
    const refused = answers.find((a) => a.error?.code === LIMITED);
    expect(refused?.error?.message).toMatch(/^Limit exceeded: listsPerSecond \(1 per second per requester\); retry after \d+ ms \(the server sets it: --max-[a-z-]+\)$/);
    expect(statusOf(await settle(wire, task.taskId))).toBe('completed');
  });

  it('lowers a ttl over --max-keep-alive to the maximum and reports the value it keeps', async () => {
    wire = await connect(['--max-keep-alive', '5000']);
    const task = await create2025(wire, 'sleep', { ms: 1 }, { ttl: 600_000 });
    expect((await getTask(wire, task.taskId))['ttl']).toBe(5000);
  });

  it('refuses a task id over --max-task-id-length, for creation and look-ups alike, and other tasks are unharmed', async () => {
    wire = await connect(['--max-task-id-length', '40']);
    const fine = await createSep(wire, 'sleep', { ms: 1 }, { taskId: 'x'.repeat(40) });
    const long = 'y'.repeat(41);
    const create = await wire.request('tools/call', { name: 'sleep', arguments: { ms: 1 }, _meta: { 'modelcontextprotocol.io/task': { taskId: long, keepAlive: 60_000 } } });
    const message = 'Limit exceeded: maxTaskIdLength (task ids of at most 40 characters); a retry will not pass: use a shorter task id (the server sets it: --max-task-id-length)';
    expect(create.error).toMatchObject({ code: LIMITED, message, data: { limit: 'maxTaskIdLength', retryAfterMs: null } });
    expect((await wire.request('tasks/get', { taskId: long })).error).toMatchObject({ code: LIMITED, message });
    expect(statusOf(await settle(wire, fine.taskId))).toBe('completed');
  });

  it('fails a task whose result is over --max-result-bytes, saying so, and keeps smaller results intact', async () => {
    wire = await connect(['--max-result-bytes', '300']);
    const small = await create2025(wire, 'fail', { message: 'short' });
    const large = await create2025(wire, 'fail', { message: 'z'.repeat(400) });
    expect(statusOf(await settle(wire, small.taskId))).toBe('failed');
    const refused = await settle(wire, large.taskId);
    expect(statusOf(refused)).toBe('failed');
    expect(refused['statusMessage']).toBe('Limit exceeded: maxResultBytes (results of at most 300 bytes of JSON); the task failed: ask for a smaller result (the server sets it: --max-result-bytes)');
    const kept = await wire.request('tasks/result', { taskId: small.taskId });
    expect(textOf(kept.result!)).toBe('short');
    const notKept = await wire.request('tasks/result', { taskId: large.taskId });
    expect(JSON.stringify(notKept)).not.toContain('zzzz');
    expect(JSON.stringify(notKept)).toContain('maxResultBytes');
  });

  it('never counts the server\'s own wait for a SEP-1686 reply as a poll: tasks complete under a tight poll rate', async () => {
    wire = await connect(['--max-polls-per-second', '1']);
    const tasks = await Promise.all(Array.from({ length: 5 }, () => createSep(wire!, 'sleep', { ms: 20 })));
    const replies = await Promise.all(tasks.map((t) => wire!.responseFor(t.requestId, 10_000)));
    for (const reply of replies) expect(textOf(reply.result!)).toBe('slept 20 ms');
  });
});
