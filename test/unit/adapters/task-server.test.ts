import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolResultSchema, CreateTaskResultSchema, ErrorCode, McpError, ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTaskServer, type TaskToolDefinition } from '../../../adapters/mcp-server/index.js';
import { createTaskRuntime, type TaskRuntime } from '../../../runtime/index.js';

const picky: TaskToolDefinition<{ n: z.ZodNumber }> = {
  name: 'picky',
  inputSchema: z.object({ n: z.number() }),
  run: async ({ n }) => {
    if (n < 0) throw new McpError(ErrorCode.InvalidParams, 'n must not be negative');
    if (n === 0) throw new Error('division by zero');
    return { content: [{ type: 'text', text: String(1 / n) }] };
  },
};

let runtime: TaskRuntime;
let client: Client;
afterEach(async () => {
  await client.close();
  await runtime.dispose();
});

async function connect(): Promise<Client> {
  runtime = createTaskRuntime();
  const server = createTaskServer({ name: 't', version: '0' }, { runtime, tools: [picky] });
  client = new Client({ name: 'c', version: '0' });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(b), client.connect(a)]);
  return client;
}

const TaskSchema = ResultSchema.extend({ status: z.string(), statusMessage: z.string().optional() });

async function runAsTask2025(c: Client, n: number) {
  const { task } = await c.request({ method: 'tools/call', params: { name: 'picky', arguments: { n }, task: {} } }, CreateTaskResultSchema);
  const result = c.request({ method: 'tasks/result', params: { taskId: task.taskId } }, CallToolResultSchema);
  return { taskId: task.taskId, result };
}

describe('task server errors', () => {
  it('should answer tasks/result of a 2025-11-25 task with the same JSON-RPC error the tool threw', async () => {
    const c = await connect();
    const plain = c.request({ method: 'tools/call', params: { name: 'picky', arguments: { n: -1 } } }, CallToolResultSchema);
    await expect(plain).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
    const { taskId, result } = await runAsTask2025(c, -1);
    await expect(result).rejects.toMatchObject({ code: ErrorCode.InvalidParams, message: expect.stringContaining('n must not be negative') });
    const task = await c.request({ method: 'tasks/get', params: { taskId } }, TaskSchema);
    expect(task.status).toBe('failed');
    expect(task.statusMessage).toContain('n must not be negative');
  });

  it('should answer -32603 with the message for a plain Error thrown by a task tool', async () => {
    const c = await connect();
    const { result } = await runAsTask2025(c, 0);
    await expect(result).rejects.toMatchObject({ code: ErrorCode.InternalError, message: expect.stringContaining('division by zero') });
  });

  it('should answer the original SEP-1686 request with the tool’s own error, tagged with the related task', async () => {
    const c = await connect();
    const call = c.request(
      { method: 'tools/call', params: { name: 'picky', arguments: { n: -1 }, _meta: { 'modelcontextprotocol.io/task': { taskId: 'neg' } } } },
      CallToolResultSchema,
    );
    await expect(call).rejects.toMatchObject({
      code: ErrorCode.InvalidParams,
      data: { _meta: { 'modelcontextprotocol.io/related-task': { taskId: 'neg' } } },
    });
    const task = await c.request({ method: 'tasks/get', params: { taskId: 'neg' } }, TaskSchema);
    expect(task).toMatchObject({ status: 'failed' });
  });

  it('should refuse a request that asks for a task in both dialects at once', async () => {
    const c = await connect();
    const both = c.request(
      { method: 'tools/call', params: { name: 'picky', arguments: { n: 1 }, task: {}, _meta: { 'modelcontextprotocol.io/task': { taskId: 'x' } } } },
      CallToolResultSchema,
    );
    await expect(both).rejects.toMatchObject({ code: ErrorCode.InvalidParams, message: expect.stringContaining('twice') });
  });
});
