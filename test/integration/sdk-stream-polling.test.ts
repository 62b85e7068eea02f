/**
 * A real SDK 1.x client's `callToolStream` against our embedded server, with the server's own
 * poll interval: work that ends at once is seen ended by the stream's first `tasks/get` (the SDK
 * sleeps the suggested interval after a poll that sees `working`).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTaskServer, type TaskToolDefinition } from '../../adapters/mcp-server/index.js';
import { createTaskRuntime, type TaskRuntime } from '../../runtime/index.js';

const text = (t: string): CallToolResult => ({ content: [{ type: 'text', text: t }] });
const instant: TaskToolDefinition = { name: 'instant', inputSchema: z.object({}), taskSupport: 'optional', run: async () => text('done') };
const short: TaskToolDefinition<{ ms: z.ZodNumber }> = {
  name: 'short',
  inputSchema: z.object({ ms: z.number() }),
  taskSupport: 'optional',
  run: async ({ ms }) => {
    await delay(ms);
    return text(`slept ${ms}`);
  },
};

let runtime: TaskRuntime;
let close: () => Promise<void>;
afterEach(async () => {
  await close();
  await runtime.dispose();
});

async function connect(): Promise<{ client: Client; polls: () => { at: number; status: string; pollInterval: number }[] }> {
  runtime = createTaskRuntime(); // the default poll interval: 1000 ms
  const server = createTaskServer({ name: 't', version: '0' }, { runtime, tools: [instant, short] });
  const client = new Client({ name: 'c', version: '0' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  // Every tasks/get answer the client receives, as the server suggested it.
  const seen: { at: number; status: string; pollInterval: number }[] = [];
  const pending = new Map<unknown, true>();
  const originalSend = clientSide.send.bind(clientSide);
  clientSide.send = async (message, options) => {
    if ('method' in message && message.method === 'tasks/get' && 'id' in message) pending.set(message.id, true);
    return originalSend(message, options);
  };
  const originalReceive = serverSide.send.bind(serverSide);
  serverSide.send = async (message, options) => {
    if ('id' in message && pending.delete(message.id) && 'result' in message) {
      const r = message.result as { status: string; pollInterval: number };
      seen.push({ at: performance.now(), status: r.status, pollInterval: r.pollInterval });
    }
    return originalReceive(message, options);
  };
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  close = async () => {
    await client.close();
    await server.close();
  };
  return { client, polls: () => seen };
}

async function stream(client: Client, name: string, args: Record<string, unknown>): Promise<string[]> {
  const types: string[] = [];
  for await (const m of client.experimental.tasks.callToolStream({ name, arguments: args }, CallToolResultSchema, { task: { ttl: 60_000 } })) {
    types.push(m.type === 'taskStatus' ? `taskStatus:${m.task.status}` : m.type);
    if (m.type === 'error') throw m.error;
  }
  return types;
}

describe('SDK callToolStream against the embedded runtime', () => {
  it('should see instant work ended at its first tasks/get, never sleeping a poll interval', async () => {
    const { client, polls } = await connect();
    for (let i = 0; i < 20; i++) {
      const types = await stream(client, 'instant', {});
      expect(types[0]).toBe('taskCreated');
      expect(types.at(-1)).toBe('result');
      // A poll that saw `working` would be followed by a sleep of the suggested interval.
      expect(types).not.toContain('taskStatus:working');
    }
    expect(polls().every((p) => p.status === 'completed')).toBe(true);
  });
});
