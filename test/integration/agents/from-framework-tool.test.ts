/**
 * The other direction: an AI SDK tool (`tool({ inputSchema, execute })`) and a LangChain tool
 * (`tool(fn, { schema })`) served through `attachTaskServer` (SDK v1 server, memory runtime) and
 * called as tasks by a real SDK client through `TaskClient`: the output is the result (an object
 * as JSON text and `structuredContent`), a cancel of the task fires the framework's own abort
 * signal, and a throwing tool is an `isError` result (SEP-1686: completed; 2025-11-25: failed
 * with the result kept, as for any task tool).
 */
import { tool as aiTool, jsonSchema } from 'ai';
import { tool as lcTool } from '@langchain/core/tools';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fromAiSdkTool } from '../../../adapters/agents/ai-sdk/index.js';
import { fromLangChainTool } from '../../../adapters/agents/langchain/from-langchain-tool.js';
import { TaskClient } from '../../../adapters/mcp-client/index.js';
import { attachTaskServer } from '../../../adapters/mcp-server/index.js';
import { createTaskRuntime, type TaskRuntime } from '../../../index.js';

/** A promise and its resolve, to hear from inside a tool. */
function signalled<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const aiStarted = signalled<string>();
const aiAborted = signalled<string>();
const lcStarted = signalled<void>();
const lcAborted = signalled<void>();

const weather = aiTool({
  description: 'The weather in a city',
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }, { toolCallId }) => ({ city, celsius: city.length, toolCallId }),
});
const waitAi = aiTool({
  description: 'Waits until aborted',
  inputSchema: jsonSchema<{ label: string }>({ type: 'object', properties: { label: { type: 'string' } }, required: ['label'] }),
  execute: ({ label }, { abortSignal }) =>
    new Promise<string>((_resolve, reject) => {
      abortSignal?.addEventListener('abort', () => (aiAborted.resolve(label), reject(new Error('aborted'))), { once: true });
      aiStarted.resolve(label);
    }),
});
const failAi = aiTool({
  inputSchema: z.object({ why: z.string() }),
  execute: async ({ why }): Promise<string> => {
    throw new Error(`cannot: ${why}`);
  },
});
const add = lcTool(async ({ a, b }: { a: number; b: number }) => `${a + b}`, { name: 'add', description: 'Adds two numbers', schema: z.object({ a: z.number(), b: z.number() }) });
const waitLc = lcTool(
  async (_input: Record<string, never>, config) =>
    new Promise<string>((_resolve, reject) => {
      config.signal?.addEventListener('abort', () => (lcAborted.resolve(), reject(new Error('aborted'))), { once: true });
      lcStarted.resolve();
    }),
  { name: 'wait_lc', description: 'Waits until aborted', schema: z.object({}) },
);
const failLc = lcTool(
  async ({ id }: { id: string }): Promise<string> => {
    throw new Error(`no record ${id}`);
  },
  { name: 'lookup', description: 'Looks a record up', schema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } },
);

let runtime: TaskRuntime;
let client: Client;
let tasks: TaskClient;
beforeAll(async () => {
  runtime = createTaskRuntime();
  const server = new Server({ name: 'framework-tools', version: '1.0.0' });
  attachTaskServer(server, {
    runtime,
    tools: [
      fromAiSdkTool(weather, { name: 'weather' }),
      fromAiSdkTool(waitAi, { name: 'wait_ai', taskSupport: 'required' }),
      fromAiSdkTool(failAi, { name: 'fail_ai', description: 'Always fails' }),
      fromLangChainTool(add),
      fromLangChainTool(waitLc, { taskSupport: 'required' }),
      fromLangChainTool(failLc),
    ],
  });
  client = new Client({ name: 'framework-tools-client', version: '1.0.0' });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(b), client.connect(a)]);
  tasks = new TaskClient(client, { pollFrequency: 20 });
});
afterAll(async () => {
  tasks?.dispose();
  await client?.close();
  await runtime?.dispose();
});

describe('fromAiSdkTool', () => {
  it('should list the tool with its schema and run it as a task, an object output as JSON text and structuredContent', async () => {
    const { tools } = await client.listTools();
    const listed = tools.find((t) => t.name === 'weather');
    expect(listed?.description).toBe('The weather in a city');
    expect(listed?.inputSchema.properties).toEqual({ city: { type: 'string' } });
    const call = tasks.callTool({ name: 'weather', arguments: { city: 'Oslo' } }, { dialect: 'sep-1686' });
    const result = await call.result();
    expect(await call.started).toEqual({ kind: 'task', taskId: call.taskId });
    // The task id is the AI SDK's toolCallId.
    expect(result.structuredContent).toEqual({ city: 'Oslo', celsius: 4, toolCallId: call.taskId });
    expect(result.content).toEqual([{ type: 'text', text: JSON.stringify(result.structuredContent) }]);
  });

  it("should fire the tool's abortSignal when the task is cancelled", async () => {
    const call = tasks.callTool({ name: 'wait_ai', arguments: { label: 'ai-1' } }, { dialect: '2025-11-25' });
    expect(await aiStarted.promise).toBe('ai-1');
    await call.cancel('no longer needed');
    expect(await aiAborted.promise).toBe('ai-1');
    await expect(call.result()).rejects.toThrow(/cancelled/);
    expect((await tasks.getTask(call.taskId!)).status).toBe('cancelled');
  });

  it('should answer a throwing tool with isError: a completed SEP-1686 task, a failed 2025-11-25 task keeping the result', async () => {
    const sep = await tasks.callTool({ name: 'fail_ai', arguments: { why: 'no disk' } }, { dialect: 'sep-1686' }).result();
    expect(sep).toMatchObject({ isError: true, content: [{ type: 'text', text: 'cannot: no disk' }] });
    const spec = tasks.callTool({ name: 'fail_ai', arguments: { why: 'no disk' } }, { dialect: '2025-11-25' });
    // The requester gets the result the failed task kept.
    expect(await spec.result()).toMatchObject({ isError: true });
    expect((await tasks.getTask(spec.taskId!)).status).toBe('failed');
    const kept = await client.request({ method: 'tasks/result', params: { taskId: spec.taskId! } }, CallToolResultSchema);
    expect(kept).toMatchObject({ isError: true, content: [{ type: 'text', text: 'cannot: no disk' }] });
  });

  it('should refuse arguments its schema refuses before any task exists', async () => {
    const refused = await tasks.callTool({ name: 'weather', arguments: { city: 7 } }, { dialect: 'sep-1686' }).result().catch((error: unknown) => error);
    expect(String(refused)).toMatch(/city/);
  });
});

describe('fromLangChainTool', () => {
  it('should serve the tool under its own name, a string output as text', async () => {
    const listed = (await client.listTools()).tools.find((t) => t.name === 'add');
    expect(listed?.description).toBe('Adds two numbers');
    const result = await tasks.callTool({ name: 'add', arguments: { a: 2, b: 3 } }, { dialect: '2025-11-25' }).result();
    expect(result.content).toEqual([{ type: 'text', text: '5' }]);
    expect(result.structuredContent).toBeUndefined();
  });

  it("should fire the signal LangChain hands the tool's function when the task is cancelled", async () => {
    const call = tasks.callTool({ name: 'wait_lc', arguments: {} }, { dialect: 'sep-1686' });
    await lcStarted.promise;
    await call.cancel();
    await lcAborted.promise;
    await expect(call.result()).rejects.toThrow(/cancelled/);
  });

  it('should answer a throwing tool (a JSON-schema one) with isError', async () => {
    const result = await tasks.callTool({ name: 'lookup', arguments: { id: 'r9' } }, { dialect: 'sep-1686' }).result();
    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'no record r9' }] });
  });
});
