import { describe, expect, it } from 'vitest';
import { toJsonRpcError } from '../../../adapters/wire/wire-errors.js';
import { RequesterLimiter, resolveLimits } from '../../../runtime/limits.js';
import { createTaskRuntime, TaskLimitError, type TaskRuntime } from '../../../runtime/index.js';

const a = { session: 'a', principal: null };
const b = { session: 'b', principal: null };

function runtimeWith(limits: Parameters<typeof createTaskRuntime>[0] extends infer O ? O extends { limits?: infer L } ? L : never : never) {
  let clock = 1_000_000;
  const runtime = createTaskRuntime({ limits, now: () => clock });
  const releases: (() => void)[] = [];
  runtime.registerHandler('hold', () => new Promise((resolve) => releases.push(() => resolve({ ok: true }))));
  runtime.registerHandler('quick', async () => ({ ok: true }));
  return { runtime, tick: (ms: number) => (clock += ms), finish: () => releases.splice(0).forEach((release) => release()) };
}

const create = (r: TaskRuntime, taskId: string, owner = a, handler = 'quick') => r.create({ taskId, owner, dialect: 'sep-1686', method: 'tools/call', handler, params: {} });

describe('per-requester limits', () => {
  it('are off for an embedding runtime that asks for none', async () => {
    const runtime = createTaskRuntime();
    runtime.registerHandler('quick', async () => ({}));
    for (let i = 0; i < 300; i++) await create(runtime, `t${i}`);
    for (let i = 0; i < 300; i++) await runtime.get('t0', a);
    await runtime.dispose();
  });

  it('refuse polls over the rate with a message naming the limit and when to retry, per requester', async () => {
    const { runtime, tick } = runtimeWith({ pollsPerSecond: 2 });
    await create(runtime, 't1');
    await create(runtime, 't1', b);
    for (let i = 0; i < 4; i++) await runtime.get('t1', a); // a burst of twice the rate
    const refused = await runtime.get('t1', a).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TaskLimitError);
    expect((refused as TaskLimitError).message).toBe('Limit exceeded: pollsPerSecond (2 per second per requester); retry after 500 ms (the server sets it: --max-polls-per-second)');
    expect((refused as TaskLimitError).retryAfterMs).toBe(500);
    await expect(runtime.result('t1', a)).rejects.toBeInstanceOf(TaskLimitError);
    // Another requester is not slowed down, and the refused one's task is unharmed.
    await expect(runtime.get('t1', b)).resolves.toMatchObject({ taskId: 't1' });
    tick(500);
    await expect(runtime.get('t1', a)).resolves.toMatchObject({ taskId: 't1' });
    await runtime.dispose();
  });

  it('refuse creations over the rate and list calls over theirs', async () => {
    const { runtime, tick } = runtimeWith({ createsPerSecond: 1, listsPerSecond: 1 });
    await create(runtime, 'c1');
    await create(runtime, 'c2');
    await expect(create(runtime, 'c3')).rejects.toThrow('Limit exceeded: createsPerSecond (1 per second per requester); retry after 1000 ms (the server sets it: --max-creates-per-second)');
    await expect(runtime.get('c3', a)).rejects.toMatchObject({ name: 'TaskNotFoundError' }); // nothing was created
    await runtime.list(a);
    await runtime.list(a);
    await expect(runtime.list(a)).rejects.toThrow('Limit exceeded: listsPerSecond');
    tick(1_000);
    await expect(create(runtime, 'c3')).resolves.toMatchObject({ taskId: 'c3' });
    await runtime.dispose();
  });

  it('refuse a task over the running-task limit until one ends', async () => {
    const { runtime, finish } = runtimeWith({ maxConcurrentTasks: 1 });
    await create(runtime, 'r1', a, 'hold');
    await expect(create(runtime, 'r2', a, 'hold')).rejects.toThrow('Limit exceeded: maxConcurrentTasks (1 running tasks per requester); retry once one of your tasks has ended (the server sets it: --max-running-tasks)');
    await expect(create(runtime, 'r2', b, 'hold')).resolves.toMatchObject({ taskId: 'r2' });
    await new Promise((resolve) => setImmediate(resolve));
    finish();
    await runtime.waitForTerminal('r1', a);
    await expect(create(runtime, 'r3', a)).resolves.toMatchObject({ taskId: 'r3' });
    await runtime.dispose();
  });

  it('reach the wire as JSON-RPC error -32029 with the limit and retry time as data', () => {
    const wire = toJsonRpcError(new TaskLimitError('pollsPerSecond', '2 per second per requester', 500));
    expect(wire.code).toBe(-32029);
    expect(wire.message).toBe('Limit exceeded: pollsPerSecond (2 per second per requester); retry after 500 ms (the server sets it: --max-polls-per-second)');
    expect(wire.data).toEqual({ limit: 'pollsPerSecond', retryAfterMs: 500 });
  });

  it('refuse a limit that is not a positive number', () => {
    expect(() => createTaskRuntime({ limits: { pollsPerSecond: 0 } })).toThrow('limit pollsPerSecond must be a positive number or null, got 0');
  });

  it('charge calls admitted elsewhere (another node) to the same bucket, and report what they admit', () => {
    let clock = 0;
    const admitted: string[] = [];
    const limiter = new RequesterLimiter(resolveLimits({ pollsPerSecond: 5 }), () => clock, (owner, kind) => admitted.push(`${kind}:${owner}`));
    limiter.admit('o', 'pollsPerSecond');
    expect(admitted).toEqual(['pollsPerSecond:o']);
    limiter.charge('o', 'pollsPerSecond', 20); // far over: the bucket goes below zero
    expect(() => limiter.admit('o', 'pollsPerSecond')).toThrow(/retry after \d+ ms/);
    limiter.admit('p', 'pollsPerSecond'); // another requester is untouched
    clock += 2_000; // 10 tokens back: still below one
    expect(() => limiter.admit('o', 'pollsPerSecond')).toThrow(TaskLimitError);
    clock += 2_000;
    limiter.admit('o', 'pollsPerSecond');
  });
});
