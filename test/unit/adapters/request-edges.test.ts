import { setTimeout as delay } from 'node:timers/promises';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createTaskServer } from '../../../adapters/mcp-server/index.js';
import { askNameTool, longJobTool } from '../../../adapters/cli/demo-tools.js';
import { createTaskRuntime, type TaskRuntime } from '../../../runtime/index.js';

type Message = JSONRPCMessage & { id?: string | number; method?: string; params?: Record<string, unknown>; result?: Record<string, unknown>; error?: { code: number; message: string } };

let runtime: TaskRuntime;
afterEach(async () => {
  await runtime.dispose();
});

/** A raw peer on the SDK's in-memory transport, so that message order is ours to choose. */
async function rawPeer(): Promise<{ send(m: object): Promise<void>; seen: Message[] }> {
  runtime = createTaskRuntime({ pollFrequency: 20 });
  const server = createTaskServer({ name: 't', version: '0' }, { runtime, tools: [askNameTool, longJobTool] });
  const [client, serverSide] = InMemoryTransport.createLinkedPair();
  const seen: Message[] = [];
  client.onmessage = (m) => seen.push(m as Message);
  await server.connect(serverSide);
  await client.start();
  const send = (m: object) => client.send({ jsonrpc: '2.0', ...m } as JSONRPCMessage);
  await send({ id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 'raw', version: '0' } } });
  await send({ method: 'notifications/initialized' });
  return { send, seen };
}

const owner = { session: null, principal: null };

describe('request edge cases', () => {
  it('should cancel a SEP-1686 task whose notifications/cancelled arrives right behind its request', async () => {
    const peer = await rawPeer();
    const call = peer.send({ id: 1, method: 'tools/call', params: { name: 'long_job', arguments: { seconds: 5 }, _meta: { 'modelcontextprotocol.io/task': { taskId: 'racy' } } } });
    const cancel = peer.send({ method: 'notifications/cancelled', params: { requestId: 1, reason: 'changed my mind' } });
    await Promise.all([call, cancel]);
    await delay(100);
    expect((await runtime.get('racy', owner)).status).toBe('cancelled');
  });

  it('should still deliver input over tasks/result when the request carries a related-task key', async () => {
    const peer = await rawPeer();
    await peer.send({ id: 1, method: 'tools/call', params: { name: 'ask_name', arguments: {}, task: {} } });
    await delay(50);
    const created = peer.seen.find((m) => m.id === 1)?.result as { task: { taskId: string } };
    const taskId = created.task.taskId;
    await peer.send({ id: 2, method: 'tasks/result', params: { taskId, _meta: { 'io.modelcontextprotocol/related-task': { taskId } } } });
    await delay(50);
    const ask = peer.seen.find((m) => m.method === 'elicitation/create');
    expect(ask?.params?.['_meta']).toEqual({ 'io.modelcontextprotocol/related-task': { taskId } });
    await peer.send({ id: ask!.id!, result: { action: 'accept', content: { name: 'Ada' } } });
    await delay(50);
    const result = peer.seen.find((m) => m.id === 2);
    expect(result?.error).toBeUndefined();
    expect(result?.result?.['content']).toEqual([{ type: 'text', text: 'Hello, Ada' }]);
  });

  it('should run a SEP-1686 task whose request also carries a 2025-11-25 related-task key', async () => {
    const peer = await rawPeer();
    const meta = { 'modelcontextprotocol.io/task': { taskId: 'both-keys' }, 'io.modelcontextprotocol/related-task': { taskId: 'x' } };
    await peer.send({ id: 1, method: 'tools/call', params: { name: 'ask_name', arguments: {}, _meta: meta } });
    await delay(50);
    expect(peer.seen.some((m) => m.method === 'notifications/tasks/created')).toBe(true);
    const ask = peer.seen.find((m) => m.method === 'elicitation/create');
    await peer.send({ id: ask!.id!, result: { action: 'accept', content: { name: 'Bo' } } });
    await delay(50);
    expect(peer.seen.find((m) => m.id === 1)?.result?.['content']).toEqual([{ type: 'text', text: 'Hello, Bo' }]);
  });

  it('should hand a pending input over to another open tasks/result when the first one is cancelled', async () => {
    const peer = await rawPeer();
    await peer.send({ id: 1, method: 'tools/call', params: { name: 'ask_name', arguments: {}, task: {} } });
    await delay(50);
    const taskId = (peer.seen.find((m) => m.id === 1)?.result as { task: { taskId: string } }).task.taskId;
    await peer.send({ id: 2, method: 'tasks/result', params: { taskId } });
    await peer.send({ id: 3, method: 'tasks/result', params: { taskId } });
    await delay(50);
    const asks = () => peer.seen.filter((m) => m.method === 'elicitation/create');
    expect(asks()).toHaveLength(1); // sent once, over the first call
    await peer.send({ method: 'notifications/cancelled', params: { requestId: 2, reason: 'client gave up on this call' } });
    await delay(50);
    expect(asks()).toHaveLength(2); // given back, and sent again over the second call
    await peer.send({ id: asks()[1]!.id!, result: { action: 'accept', content: { name: 'Cy' } } });
    await delay(50);
    expect(peer.seen.find((m) => m.id === 3)?.result?.['content']).toEqual([{ type: 'text', text: 'Hello, Cy' }]);
  });

  it('should answer CreateTaskResult with working even when the work asks for input at once, then push input_required', async () => {
    const peer = await rawPeer();
    await peer.send({ id: 1, method: 'tools/call', params: { name: 'ask_name', arguments: {}, task: {} } });
    await delay(50);
    const created = peer.seen.find((m) => m.id === 1)?.result as { task: { taskId: string; status: string } };
    expect(created.task.status).toBe('working');
    const pushed = peer.seen.filter((m) => m.method === 'notifications/tasks/status').map((m) => m.params?.['status']);
    expect(pushed).toContain('input_required');
  });
});

