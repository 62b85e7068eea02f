import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createStatelessHandler, type TaskToolDefinition } from '../../../adapters/mcp-server/index.js';
import { createTaskRuntime, type TaskRuntime } from '../../../runtime/index.js';
import { ANONYMOUS_OWNER } from '../../../runtime/task-identity.js';

const EXT = 'io.modelcontextprotocol/tasks';

/** A tool that gathers a name in an MRTR round before its task starts. */
const greetLater: TaskToolDefinition<{ name: z.ZodOptional<z.ZodString> }> = {
  name: 'greet_later',
  inputSchema: z.object({ name: z.string().optional() }),
  taskSupport: 'required',
  beforeTask: (args, responses) => {
    const answer = responses?.['user_name'] as { action?: string; content?: { name?: string } } | undefined;
    return answer?.action === 'accept' && typeof answer.content?.name === 'string'
      ? { args: { ...args, name: answer.content.name } }
      : { inputRequests: { user_name: { method: 'elicitation/create', params: { message: 'Name?', requestedSchema: { type: 'object', properties: {} } } } } };
  },
  run: async ({ name }) => ({ content: [{ type: 'text', text: `Hello, ${name ?? '?'}!` }] }),
};

let runtime: TaskRuntime | undefined;
afterEach(async () => {
  await runtime?.dispose();
});

function setup() {
  runtime = createTaskRuntime();
  const handle = createStatelessHandler({ runtime, info: { name: 't', version: '1' }, tools: [greetLater] });
  let id = 0;
  const send = async (method: string, params: Record<string, unknown>, caps: Record<string, unknown>): Promise<{ status: number; body: unknown }> => {
    const reply = await handle(
      {
        id: ++id,
        method,
        params: { ...params, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': caps } },
      },
      { principal: null, signal: new AbortController().signal },
    );
    if (!('body' in reply)) throw new Error(`${method} answered with a stream`);
    return reply;
  };
  return { runtime, send };
}

describe('createStatelessHandler', () => {
  it('should gather input in an MRTR round before creating the task, then create it with the answer', async () => {
    const { runtime: rt, send } = setup();
    const caps = { elicitation: {}, extensions: { [EXT]: {} } };
    const round1 = (await send('tools/call', { name: 'greet_later', arguments: {} }, caps)).body as { result: Record<string, unknown> };
    expect(round1.result).toMatchObject({ resultType: 'input_required', inputRequests: { user_name: { method: 'elicitation/create' } } });
    expect(round1.result['taskId']).toBeUndefined();
    const inputResponses = { user_name: { action: 'accept', content: { name: 'Alice' } } };
    const round2 = (await send('tools/call', { name: 'greet_later', arguments: {}, inputResponses }, caps)).body as { result: Record<string, unknown> };
    expect(round2.result).toMatchObject({ resultType: 'task', status: 'working' });
    expect(round2.result['requestState']).toBeUndefined();
    const outcome = await rt.waitForOutcome(String(round2.result['taskId']), ANONYMOUS_OWNER);
    expect(outcome.result).toEqual({ content: [{ type: 'text', text: 'Hello, Alice!' }] });
  });

  it('should refuse the MRTR round with -32021 when the client cannot answer it', async () => {
    const { send } = setup();
    const reply = await send('tools/call', { name: 'greet_later', arguments: {} }, { extensions: { [EXT]: {} } });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ id: 1, error: { code: -32021, data: { requiredCapabilities: { elicitation: {} } } } });
  });

  it('should answer without HTTP headers (no SEP-2243 check off HTTP)', async () => {
    const { send } = setup();
    const reply = await send('tools/list', {}, {});
    expect(reply).toMatchObject({ status: 200, body: { id: 1, result: { resultType: 'complete', tools: [{ name: 'greet_later' }] } } });
  });
});
