import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createTaskServer, type TaskToolDefinition } from '../../../adapters/mcp-server/index.js';
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
  const instant: TaskToolDefinition = { name: 'instant', inputSchema: z.object({}), taskSupport: 'optional', run: async () => ({ content: [{ type: 'text', text: 'done' }] }) };
  const server = createTaskServer({ name: 't', version: '0' }, { runtime, tools: [askNameTool, longJobTool, instant] });
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

/**
 * Waits (bounded) until `find` gives something; what it must be is asserted afterwards. Every
 * message here travels in memory, so a wait is only ever for the server's next turns.
 */
function arrived<T>(what: string, find: () => T | undefined): Promise<T> {
  return vi.waitFor(
    () => {
      const found = find();
      if (found === undefined) throw new Error(`${what} has not arrived`);
      return found;
    },
    { timeout: 3_000, interval: 5 },
  );
}

const responseTo = (peer: { seen: Message[] }, id: number | string) => arrived(`the response to ${id}`, () => peer.seen.find((m) => m.id === id && m.method === undefined));

describe('request edge cases', () => {
  it('should cancel a SEP-1686 task whose notifications/cancelled arrives right behind its request', async () => {
    const peer = await rawPeer();
    const call = peer.send({ id: 1, method: 'tools/call', params: { name: 'long_job', arguments: { seconds: 5 }, _meta: { 'modelcontextprotocol.io/task': { taskId: 'racy' } } } });
    const cancel = peer.send({ method: 'notifications/cancelled', params: { requestId: 1, reason: 'changed my mind' } });
    await Promise.all([call, cancel]);
    // Until it has ended (a cancel that got lost would leave it working for its 5 s).
    const ended = await vi.waitFor(
      async () => {
        const task = await runtime.get('racy', owner);
        expect(task.status).not.toBe('working');
        return task;
      },
      { timeout: 3_000, interval: 5 },
    );
    expect(ended.status).toBe('cancelled');
  });

  it('should still deliver input over tasks/result when the request carries a related-task key', async () => {
    const peer = await rawPeer();
    await peer.send({ id: 1, method: 'tools/call', params: { name: 'ask_name', arguments: {}, task: {} } });
    const created = (await responseTo(peer, 1)).result as { task: { taskId: string } };
    const taskId = created.task.taskId;
    await peer.send({ id: 2, method: 'tasks/result', params: { taskId, _meta: { 'io.modelcontextprotocol/related-task': { taskId } } } });
    const ask = await arrived('elicitation/create', () => peer.seen.find((m) => m.method === 'elicitation/create'));
    expect(ask.params?.['_meta']).toEqual({ 'io.modelcontextprotocol/related-task': { taskId } });
    await peer.send({ id: ask.id!, result: { action: 'accept', content: { name: 'Ada' } } });
    const result = await responseTo(peer, 2);
    expect(result?.error).toBeUndefined();
    expect(result?.result?.['content']).toEqual([{ type: 'text', text: 'Hello, Ada' }]);
  });

  it('should run a SEP-1686 task whose request also carries a 2025-11-25 related-task key', async () => {
    const peer = await rawPeer();
    const meta = { 'modelcontextprotocol.io/task': { taskId: 'both-keys' }, 'io.modelcontextprotocol/related-task': { taskId: 'x' } };
    await peer.send({ id: 1, method: 'tools/call', params: { name: 'ask_name', arguments: {}, _meta: meta } });
    await arrived('notifications/tasks/created', () => peer.seen.find((m) => m.method === 'notifications/tasks/created'));
    const ask = await arrived('elicitation/create', () => peer.seen.find((m) => m.method === 'elicitation/create'));
    await peer.send({ id: ask.id!, result: { action: 'accept', content: { name: 'Bo' } } });
    expect((await responseTo(peer, 1)).result?.['content']).toEqual([{ type: 'text', text: 'Hello, Bo' }]);
  });

  it('should hand a pending input over to another open tasks/result when the first one is cancelled', async () => {
    const peer = await rawPeer();
    await peer.send({ id: 1, method: 'tools/call', params: { name: 'ask_name', arguments: {}, task: {} } });
    const taskId = ((await responseTo(peer, 1)).result as { task: { taskId: string } }).task.taskId;
    const asks = () => peer.seen.filter((m) => m.method === 'elicitation/create');
    await vi.waitFor(async () => expect(await runtime.pendingInputRequests(taskId, owner)).toHaveLength(1), { timeout: 3_000, interval: 5 });
    // A tasks/result looks up the pending input requests, sends them, and waits for the outcome.
    // Once both calls wait, and their look-ups (no I/O: settled within this turn) are done, a
    // second copy of the question would be out already.
    const waits = vi.spyOn(runtime, 'waitForOutcome');
    await peer.send({ id: 2, method: 'tasks/result', params: { taskId } });
    await peer.send({ id: 3, method: 'tasks/result', params: { taskId } });
    await arrived('both tasks/result waiting', () => (waits.mock.calls.filter(([id]) => id === taskId).length >= 2 ? true : undefined));
    await arrived('elicitation/create', () => asks()[0]);
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(asks()).toHaveLength(1); // sent once, over the first call
    await peer.send({ method: 'notifications/cancelled', params: { requestId: 2, reason: 'client gave up on this call' } });
    await arrived('the elicitation sent again', () => asks()[1]);
    expect(asks()).toHaveLength(2); // given back, and sent again over the second call
    await peer.send({ id: asks()[1]!.id!, result: { action: 'accept', content: { name: 'Cy' } } });
    expect((await responseTo(peer, 3)).result?.['content']).toEqual([{ type: 'text', text: 'Hello, Cy' }]);
    // The task has ended and both deliverers have stopped: these were all the copies ever sent.
    expect(asks()).toHaveLength(2);
  });

  it('should answer CreateTaskResult with working even when the work asks for input at once, then push input_required', async () => {
    const peer = await rawPeer();
    await peer.send({ id: 1, method: 'tools/call', params: { name: 'ask_name', arguments: {}, task: {} } });
    const created = (await responseTo(peer, 1)).result as { task: { taskId: string; status: string } };
    expect(created.task.status).toBe('working');
    const pushed = () => peer.seen.filter((m) => m.method === 'notifications/tasks/status').map((m) => m.params?.['status']);
    await arrived('an input_required status notification', () => (pushed().includes('input_required') ? true : undefined));
    expect(pushed()).toContain('input_required');
  });

  it('should push one status notification for work that ended before its CreateTaskResult left, the latest', async () => {
    const peer = await rawPeer();
    await peer.send({ id: 1, method: 'tools/call', params: { name: 'instant', arguments: {}, task: {} } });
    const created = (await responseTo(peer, 1)).result as { task: { taskId: string; status: string } };
    expect(created.task.status).toBe('working');
    const pushed = () => peer.seen.filter((m) => m.method === 'notifications/tasks/status').map((m) => m.params?.['status']);
    await arrived('the completed status notification', () => (pushed().includes('completed') ? true : undefined));
    // Held changes leave together, right after the reply: a later answer comes after all of them.
    await peer.send({ id: 2, method: 'tasks/get', params: { taskId: created.task.taskId } });
    await responseTo(peer, 2);
    // Not `working` first: the CreateTaskResult said so already, and each notification is the whole task.
    expect(pushed()).toEqual(['completed']);
  });
});
