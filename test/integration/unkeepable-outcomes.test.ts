/**
 * A handler whose outcome cannot be kept (a result that is not JSON: a circular object, a BigInt;
 * a failure detail that is not JSON) ends its task `failed` at once with a message naming the
 * problem, the same way on the memory backend and on NATS (a front node and a worker), instead of
 * being retried as if the store were unavailable.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNatsTaskRuntime } from '../../runtime/backends/nats/nats-runtime.js';
import { createTaskRuntime, TaskFailure, type TaskRuntime } from '../../runtime/index.js';
import { startNatsServer, type NatsServer } from './harness/nats-server.js';

const owner = { session: 's1', principal: null };

function circular(): unknown {
  const value: Record<string, unknown> = { content: [] };
  value['self'] = value;
  return value;
}

function register(runtime: TaskRuntime): void {
  runtime.registerHandler('circular', async () => circular());
  runtime.registerHandler('bigint', async () => ({ content: [], count: 10n }));
  runtime.registerHandler('circular-failure', async () => {
    throw new TaskFailure('gave up', { detail: circular() });
  });
  runtime.registerHandler('fine', async () => ({ content: [{ type: 'text', text: 'ok' }] }));
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
  { name: 'memory', open: async () => createTaskRuntime() },
  {
    name: 'nats (front + worker)',
    open: async () => {
      const prefix = `unkept${opened.length}`;
      const front = await createNatsTaskRuntime({ nats: { servers: nats.url }, prefix, role: 'front', nodeId: `${prefix}-front` });
      const worker = await createNatsTaskRuntime({ nats: { servers: nats.url }, prefix, role: 'worker', nodeId: `${prefix}-worker` });
      register(worker);
      opened.push(worker);
      return front;
    },
  },
];

describe.each(backends)('outcomes that cannot be kept ($name)', ({ open }) => {
  let runtime: TaskRuntime;
  beforeAll(async () => {
    runtime = await open();
    register(runtime);
    opened.push(runtime);
  });

  const run = async (taskId: string, handler: string) => {
    await runtime.create({ taskId, owner, dialect: 'sep-1686', method: 'tools/call', handler, params: {} });
    // Bounded well below the 120 s a retried write would take: the task must end at once.
    return runtime.waitForOutcome(taskId, owner, { timeout: 5_000 });
  };

  it('should fail a task whose result is circular, naming the problem', async () => {
    const outcome = await run('c1', 'circular');
    expect(outcome.task.status).toBe('failed');
    expect(outcome.task.statusMessage).toMatch(/result cannot be stored as JSON: .*circular/i);
    expect(outcome.hasResult).toBe(false);
  });

  it('should fail a task whose result holds a BigInt, naming the problem', async () => {
    const outcome = await run('b1', 'bigint');
    expect(outcome.task.status).toBe('failed');
    expect(outcome.task.statusMessage).toMatch(/result cannot be stored as JSON: .*BigInt/);
  });

  it('should fail a task whose failure detail is circular with that message, keeping no detail', async () => {
    const outcome = await run('f1', 'circular-failure');
    expect(outcome.task.status).toBe('failed');
    expect(outcome.task.statusMessage).toMatch(/failure detail cannot be stored as JSON/);
    expect(outcome.failure ?? null).toBeNull();
  });

  it('should refuse an update from outside whose result is not JSON, leaving the task as it was', async () => {
    // A task without a handler, as the SDK's TaskStore drives it.
    await runtime.create({ taskId: 'u1', owner, dialect: '2025-11-25', method: 'tools/call', params: {} });
    await expect(runtime.update('u1', owner, { status: 'completed', result: circular() })).rejects.toThrow(/result cannot be stored as JSON: .*circular/i);
    expect((await runtime.get('u1', owner)).status).toBe('working');
    await runtime.update('u1', owner, { status: 'completed', result: { content: [] } });
    expect((await runtime.outcome('u1', owner)).result).toEqual({ content: [] });
  });

  it('should still complete the next task of the same runtime', async () => {
    const outcome = await run('ok1', 'fine');
    expect(outcome.task.status).toBe('completed');
    expect(outcome.result).toEqual({ content: [{ type: 'text', text: 'ok' }] });
  });
});
