import { afterEach, describe, expect, it } from 'vitest';
import { createTaskRuntime, InvalidArgumentError, TaskTerminalError, type InputRequest, type TaskRuntime } from '../../../runtime/index.js';

const owner = { session: 's', principal: null };
/** The work of a new task starts on the next turn of the event loop. */
const workStarted = () => new Promise<void>((resolve) => setImmediate(resolve));
let runtime: TaskRuntime;
afterEach(async () => {
  await runtime.dispose();
});

/** A runtime whose handler asks for two inputs at once and returns both answers. */
function setUp(): { asked: InputRequest[]; failures: unknown[] } {
  runtime = createTaskRuntime();
  const asked: InputRequest[] = [];
  const failures: unknown[] = [];
  runtime.onInputRequest((r) => asked.push(r));
  runtime.registerHandler('two', async (_p, ctx) => {
    try {
      return await Promise.all([ctx.requestInput('elicitation/create', { q: 1 }), ctx.requestInput('sampling/createMessage', { q: 2 })]);
    } catch (error) {
      failures.push(error);
      throw error;
    }
  });
  return { asked, failures };
}

describe('input requests', () => {
  it('should stay input_required until every input is answered, then complete with the answers', async () => {
    const { asked } = setUp();
    await runtime.create({ taskId: 't', owner, dialect: 'sep-1686', method: 'tools/call', handler: 'two', params: {} });
    await workStarted();
    expect(asked.map((a) => [a.taskId, a.method, a.params])).toEqual([
      ['t', 'elicitation/create', { q: 1 }],
      ['t', 'sampling/createMessage', { q: 2 }],
    ]);
    expect((await runtime.get('t', owner)).status).toBe('input_required');
    expect((await runtime.pendingInputRequests('t', owner)).map((r) => r.inputId)).toEqual([asked[0]!.inputId, asked[1]!.inputId]);
    expect((await runtime.answerInput('t', owner, asked[1]!.inputId, { result: 'B' })).status).toBe('input_required');
    expect((await runtime.answerInput('t', owner, asked[0]!.inputId, { result: 'A' })).status).toBe('working');
    await runtime.waitForTerminal('t', owner, { timeout: 2000 });
    expect((await runtime.result('t', owner)).result).toEqual(['A', 'B']);
  });

  it('should refuse an answer to an input that is not pending', async () => {
    const { asked } = setUp();
    await runtime.create({ taskId: 't', owner, dialect: 'sep-1686', method: 'tools/call', handler: 'two', params: {} });
    await workStarted();
    await runtime.answerInput('t', owner, asked[0]!.inputId, { result: 'A' });
    await expect(runtime.answerInput('t', owner, asked[0]!.inputId, { result: 'again' })).rejects.toThrow(InvalidArgumentError);
    await expect(runtime.answerInput('t', owner, 'input-99', { result: 'x' })).rejects.toThrow(/not pending/);
  });

  it('should discard pending inputs when the task is cancelled, and refuse late answers', async () => {
    const { asked, failures } = setUp();
    await runtime.create({ taskId: 't', owner, dialect: 'sep-1686', method: 'tools/call', handler: 'two', params: {} });
    await workStarted();
    await runtime.cancel('t', owner);
    expect(await runtime.pendingInputRequests('t', owner)).toEqual([]);
    await expect(runtime.answerInput('t', owner, asked[0]!.inputId, { result: 'late' })).rejects.toThrow(InvalidArgumentError);
    await Promise.resolve();
    expect(failures[0]).toBeInstanceOf(TaskTerminalError);
    expect((await runtime.get('t', owner)).status).toBe('cancelled');
  });

  it('should fail the task when the requester answers with an error the handler does not catch', async () => {
    const { asked } = setUp();
    await runtime.create({ taskId: 't', owner, dialect: 'sep-1686', method: 'tools/call', handler: 'two', params: {} });
    await workStarted();
    await runtime.answerInput('t', owner, asked[0]!.inputId, { error: new Error('Client does not support elicitation') });
    const done = await runtime.waitForTerminal('t', owner, { timeout: 2000 });
    expect(done).toMatchObject({ status: 'failed', error: 'Client does not support elicitation' });
  });
});
