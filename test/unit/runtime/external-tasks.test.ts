import { afterEach, describe, expect, it } from 'vitest';
import { createTaskRuntime, TaskFailure, TaskTerminalError, InvalidArgumentError, type TaskRuntime } from '../../../runtime/index.js';

const owner = { session: 's1', principal: null };
let runtime: TaskRuntime;
afterEach(async () => {
  await runtime.dispose();
});

describe('tasks driven from outside (update)', () => {
  it('should move a task without a handler through input_required to completed and keep its result', async () => {
    runtime = createTaskRuntime();
    await runtime.create({ taskId: 'x', owner, dialect: '2025-11-25', method: 'tools/call' });
    expect((await runtime.update('x', owner, { status: 'input_required', statusMessage: 'need a name' })).status).toBe('input_required');
    expect((await runtime.get('x', owner)).statusMessage).toBe('need a name');
    expect((await runtime.update('x', owner, { status: 'working' })).status).toBe('working');
    await runtime.update('x', owner, { status: 'completed', result: { content: [] } });
    expect(await runtime.outcome('x', owner)).toMatchObject({ task: { status: 'completed' }, hasResult: true, result: { content: [] } });
    await expect(runtime.update('x', owner, { status: 'working' })).rejects.toThrow(TaskTerminalError);
  });

  it('should keep the result of a failed task when one is given', async () => {
    runtime = createTaskRuntime();
    await runtime.create({ taskId: 'f', owner, dialect: '2025-11-25', method: 'tools/call' });
    await runtime.update('f', owner, { status: 'failed', error: 'bad input', result: { isError: true } });
    expect(await runtime.outcome('f', owner)).toMatchObject({ task: { status: 'failed', error: 'bad input' }, hasResult: true });
  });

  it('should refuse outside updates to a task that runs a handler', async () => {
    runtime = createTaskRuntime();
    runtime.registerHandler('h', () => new Promise(() => undefined));
    await runtime.create({ taskId: 'h', owner, dialect: 'sep-1686', method: 'tools/call', handler: 'h', params: {} });
    await expect(runtime.update('h', owner, { status: 'completed', result: 1 })).rejects.toThrow(InvalidArgumentError);
  });

  it('should end a handler task failed with its result when the handler throws TaskFailure', async () => {
    runtime = createTaskRuntime();
    runtime.registerHandler('tool', async () => {
      throw new TaskFailure('Tool reported an error: nope', { result: { isError: true, content: [] } });
    });
    await runtime.create({ taskId: 'tf', owner, dialect: '2025-11-25', method: 'tools/call', handler: 'tool', params: {} });
    const done = await runtime.waitForTerminal('tf', owner, { timeout: 2000 });
    expect(done).toMatchObject({ status: 'failed', error: 'Tool reported an error: nope' });
    expect(await runtime.outcome('tf', owner)).toMatchObject({ hasResult: true, result: { isError: true } });
  });

  it('should treat a null keepAlive as "as long as allowed"', async () => {
    runtime = createTaskRuntime({ maxKeepAlive: 5000 });
    expect((await runtime.create({ taskId: 'n', owner, dialect: '2025-11-25', method: 'tools/call', keepAlive: null })).keepAlive).toBe(5000);
  });
});
