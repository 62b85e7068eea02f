import { afterEach, describe, expect, it } from 'vitest';
import { createTaskRuntime, InputUnsupportedError, InvalidArgumentError, type InputRequest, type TaskRuntime, type TaskStatus } from '../../../runtime/index.js';

const owner = { session: 's', principal: null };
let runtime: TaskRuntime;
afterEach(async () => {
  await runtime.dispose();
});

/** A runtime whose `ask` handler asks once, and the statuses and input requests every task went through. */
function setUp(): { asked: InputRequest[]; statuses: Map<string, TaskStatus[]>; caught: unknown[] } {
  runtime = createTaskRuntime();
  const asked: InputRequest[] = [];
  const statuses = new Map<string, TaskStatus[]>();
  const caught: unknown[] = [];
  runtime.onInputRequest((r) => asked.push(r));
  runtime.subscribe(({ task }) => statuses.set(task.taskId, [...(statuses.get(task.taskId) ?? []), task.status]));
  runtime.registerHandler('ask', async (params, ctx) => ctx.requestInput((params as { method: string }).method, { q: 1 }));
  runtime.registerHandler('ask-or-not', async (_p, ctx) => {
    try {
      return await ctx.requestInput('elicitation/create', { q: 1 });
    } catch (error) {
      caught.push(error);
      return 'went on without';
    }
  });
  runtime.registerHandler('parent', async (_p, ctx) => {
    const child = await ctx.spawnTask('ask', { method: 'elicitation/create' });
    return (await ctx.waitForSubtasks([child]))[0]!.task.status;
  });
  return { asked, statuses, caught };
}

const create = (taskId: string, handler: string, params: unknown, requesterCapabilities?: readonly string[]) =>
  runtime.create({ taskId, owner, dialect: 'sep-1686', method: 'tools/call', handler, params, ...(requesterCapabilities && { requesterCapabilities }) });

describe('what a requester can be asked', () => {
  it('should fail the work at once, naming the capability, when the requester did not declare it: never input_required, nothing asked', async () => {
    const { asked, statuses } = setUp();
    await create('e', 'ask', { method: 'elicitation/create' }, ['sampling']);
    await create('s', 'ask', { method: 'sampling/createMessage' }, []);
    const e = await runtime.waitForTerminal('e', owner, { timeout: 2000 });
    const s = await runtime.waitForTerminal('s', owner, { timeout: 2000 });
    expect(e).toMatchObject({ status: 'failed', error: "The requester did not declare the 'elicitation' capability, so this task cannot ask it (elicitation/create)" });
    expect(s).toMatchObject({ status: 'failed', error: expect.stringContaining("'sampling' capability") as unknown });
    expect(asked).toEqual([]);
    expect(statuses.get('e')).not.toContain('input_required');
    expect(statuses.get('s')).not.toContain('input_required');
  });

  it('should ask a requester that declared the capability, and one whose capabilities are not known', async () => {
    const { asked } = setUp();
    await create('declared', 'ask', { method: 'elicitation/create' }, ['elicitation']);
    await create('unknown', 'ask', { method: 'sampling/createMessage' });
    await expect.poll(() => asked.map((a) => a.taskId).sort()).toEqual(['declared', 'unknown']);
    expect((await runtime.get('declared', owner)).status).toBe('input_required');
    expect((await runtime.get('unknown', owner)).status).toBe('input_required');
  });

  it('should let the work decide what follows the refusal', async () => {
    const { caught, statuses } = setUp();
    await create('t', 'ask-or-not', {}, []);
    await runtime.waitForTerminal('t', owner, { timeout: 2000 });
    expect((await runtime.result('t', owner)).result).toBe('went on without');
    expect(caught[0]).toBeInstanceOf(InputUnsupportedError);
    expect(caught[0]).toMatchObject({ capability: 'elicitation', method: 'elicitation/create' });
    expect(statuses.get('t')).not.toContain('input_required');
  });

  it("should give a subtask its parent's requester capabilities", async () => {
    const { asked, statuses } = setUp();
    await create('p', 'parent', {}, ['sampling']);
    await runtime.waitForTerminal('p', owner, { timeout: 2000 });
    expect((await runtime.result('p', owner)).result).toBe('failed');
    expect(asked).toEqual([]);
    for (const [, seen] of statuses) expect(seen).not.toContain('input_required');
  });

  it('should refuse requesterCapabilities that are not a list of names', async () => {
    setUp();
    await expect(runtime.create({ taskId: 'x', owner, dialect: 'sep-1686', method: 'tools/call', handler: 'ask', params: {}, requesterCapabilities: 'elicitation' as never })).rejects.toThrow(
      InvalidArgumentError,
    );
  });
});
