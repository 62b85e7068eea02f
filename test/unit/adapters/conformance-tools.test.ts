import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  type ElicitRequest,
  type ElicitResult,
  ListToolsResultSchema,
  ResultSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { conformanceTools, testToolWithTask } from '../../../adapters/cli/conformance-tools.js';
import { createTaskServer } from '../../../adapters/mcp-server/index.js';
import { createTaskRuntime, type TaskRuntime } from '../../../runtime/index.js';

let runtime: TaskRuntime;
let client: Client;
afterEach(async () => {
  await client.close();
  await runtime.dispose();
});

/** A 2025-11-25 SDK client on the in-process server; `answer` answers its elicitations. */
async function connect(answer: (request: ElicitRequest) => Promise<ElicitResult> = async () => ({ action: 'decline' })): Promise<Client> {
  runtime = createTaskRuntime({ pollFrequency: 20 });
  const server = createTaskServer({ name: 't', version: '0' }, { runtime, tools: conformanceTools });
  client = new Client({ name: 'c', version: '0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, answer);
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(b), client.connect(a)]);
  return client;
}

const TaskSchema = ResultSchema.extend({ status: z.string(), statusMessage: z.string().optional() });
const text = (result: { content: unknown[] }) => (result.content[0] as { text?: string } | undefined)?.text;

async function callPlain(c: Client, name: string, args: Record<string, unknown>) {
  return c.request({ method: 'tools/call', params: { name, arguments: args } }, CallToolResultSchema);
}

async function createTask(c: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const { task } = await c.request({ method: 'tools/call', params: { name, arguments: args, task: {} } }, CreateTaskResultSchema);
  return task.taskId;
}

async function settle(c: Client, taskId: string): Promise<string> {
  for (;;) {
    const { status } = await c.request({ method: 'tasks/get', params: { taskId } }, TaskSchema);
    if (!['working', 'input_required', 'submitted'].includes(status)) return status;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const result = (c: Client, taskId: string) => c.request({ method: 'tasks/result', params: { taskId } }, CallToolResultSchema);

describe('conformance fixtures', () => {
  it('should list the seven tools the suite calls, with the task support its scenarios expect', async () => {
    const c = await connect();
    const { tools } = await c.request({ method: 'tools/list', params: {} }, ListToolsResultSchema);
    const support = Object.fromEntries(tools.map((t) => [t.name, t.execution?.taskSupport]));
    expect(support).toEqual({
      greet: 'forbidden',
      slow_compute: 'optional',
      failing_job: 'required',
      protocol_error_job: 'optional',
      confirm_delete: 'required',
      multi_input: 'required',
      test_tool_with_task: 'required',
    });
  });

  it('should greet synchronously with "Hello, <name>!"', async () => {
    const c = await connect();
    expect(text(await callPlain(c, 'greet', { name: 'sep-2243' }))).toBe('Hello, sep-2243!');
  });

  it('should compute at once for seconds 0, and be cancellable as a task', async () => {
    const c = await connect();
    expect(text(await callPlain(c, 'slow_compute', { seconds: 0, label: 'instant' }))).toBe('Computation "instant" completed after 0 seconds. Result: 42.');
    const taskId = await createTask(c, 'slow_compute', { seconds: 60, label: 'rt-cancel' });
    await c.request({ method: 'tasks/cancel', params: { taskId } }, TaskSchema);
    expect(await settle(c, taskId)).toBe('cancelled');
  });

  it('should refuse failing_job without a task, and end its task with a tool error', async () => {
    const c = await connect();
    await expect(callPlain(c, 'failing_job', {})).rejects.toThrow();
    const taskId = await createTask(c, 'failing_job', {});
    // 2025-11-25 fails a task whose tool answered isError (the extension completes it instead).
    expect(await settle(c, taskId)).toBe('failed');
    const { statusMessage } = await c.request({ method: 'tasks/get', params: { taskId } }, TaskSchema);
    expect(statusMessage).toContain('job failed');
  });

  it('should complete a SEP-1686 failing_job task with the tool error, as the extension does', async () => {
    const c = await connect();
    const call = c.request(
      { method: 'tools/call', params: { name: 'failing_job', arguments: {}, _meta: { 'modelcontextprotocol.io/task': { taskId: 'fj' } } } },
      CallToolResultSchema,
    );
    expect(await call).toMatchObject({ isError: true, content: [{ type: 'text', text: 'job failed: simulated tool error' }] });
    expect(await settle(c, 'fj')).toBe('completed');
  });

  it('should fail protocol_error_job with JSON-RPC error -32603', async () => {
    const c = await connect();
    const taskId = await createTask(c, 'protocol_error_job', {});
    await expect(result(c, taskId)).rejects.toMatchObject({ code: -32603, message: expect.stringContaining('simulated protocol error') });
    expect(await settle(c, taskId)).toBe('failed');
  });

  it('should ask to confirm a delete, then report it', async () => {
    const asked: string[] = [];
    const c = await connect(async (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { confirm: true } };
    });
    const taskId = await createTask(c, 'confirm_delete', { filename: 'a.txt' });
    expect(text(await result(c, taskId))).toBe("deleted 'a.txt'");
    expect(asked).toEqual(["Delete 'a.txt'?"]);
  });

  it('should have two inputs pending at once in multi_input', async () => {
    let release!: () => void;
    const bothAsked = new Promise<void>((resolve) => (release = resolve));
    let asks = 0;
    const c = await connect(async (request) => {
      if (++asks === 2) release();
      await bothAsked; // neither answer arrives before both questions were asked
      const field = Object.keys(request.params.mode === 'url' ? {} : request.params.requestedSchema.properties)[0];
      return { action: 'accept', content: field === 'name' ? { name: 'Ada' } : { confirm: true } };
    });
    const taskId = await createTask(c, 'multi_input', {});
    expect(text(await result(c, taskId))).toBe('name=Ada confirmed=true');
    expect(asks).toBe(2);
  });

  it('should gather the user name before the task (MRTR hook) and greet with it', async () => {
    const round1 = testToolWithTask.beforeTask!({}, undefined);
    expect(round1).toMatchObject({ inputRequests: { user_name: { method: 'elicitation/create', params: { mode: 'form' } } } });
    expect(testToolWithTask.beforeTask!({}, { user_name: { action: 'accept', content: { name: 'Alice' } } })).toEqual({ args: { name: 'Alice' } });
    expect(testToolWithTask.beforeTask!({}, { user_name: { action: 'decline' } })).toHaveProperty('inputRequests');
    const c = await connect(async () => ({ action: 'accept', content: { name: 'Bob' } }));
    expect(text(await result(c, await createTask(c, 'test_tool_with_task', { name: 'Alice' })))).toBe('Hello, Alice!');
    // The older dialects have no MRTR round: without a name, the task itself asks.
    expect(text(await result(c, await createTask(c, 'test_tool_with_task', {})))).toBe('Hello, Bob!');
  });
});
