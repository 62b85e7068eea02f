// The fast lane answers task requests ahead of the SDK's Protocol. It must say exactly what the
// SDK's path says: the same script of requests (good, bad, malformed, cancelled) is sent to one
// server with the lane and one without, and the two transcripts must be equal; and the lane must
// really be the one answering (the SDK never sees a task request it took).
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpError, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { placesHere } from '../../../adapters/http/session-restore.js';
import { echoTool, failTool, greetingPrompt, longJobTool, reportResource } from '../../../adapters/cli/demo-tools.js';
import { attachTaskServer, type TaskToolDefinition } from '../../../adapters/mcp-server/index.js';
import { attachTaskHost } from '../../../adapters/mcp-client/index.js';
import { FastLane } from '../../../adapters/mcp-server/fast-lane.js';
import { isHandlingRequest } from '../../../adapters/mcp-server/sdk-internals.js';
import { createTaskRuntime, type TaskRuntime, type TaskRuntimeOptions } from '../../../runtime/index.js';

type Message = Record<string, unknown> & { id?: unknown; method?: string; result?: Record<string, unknown>; error?: { code: number; message: string } };

const SEP = 'modelcontextprotocol.io/task';
const owner = { session: null, principal: null };
const instant: TaskToolDefinition = { name: 'instant', inputSchema: z.object({}), taskSupport: 'optional', run: async () => ({ content: [{ type: 'text', text: 'done' }] }) };
const taskOnly: TaskToolDefinition = { ...instant, name: 'task_only', taskSupport: 'required' };
/** A tool whose result the SDK's CallToolResultSchema reshapes (an unknown key in a block, no structured check). */
const sloppy: TaskToolDefinition = {
  ...instant,
  name: 'sloppy',
  run: async () => ({ content: [{ type: 'text', text: 'x', bogus: 1 } as never] }),
};
/** A tool whose result the SDK refuses (an unknown content type). */
const broken: TaskToolDefinition = { ...instant, name: 'broken', run: async () => ({ content: [{ type: 'nope' } as never] }) };

const runtimes: TaskRuntime[] = [];
afterEach(async () => {
  for (const r of runtimes.splice(0)) await r.dispose();
});

/** A server (with or without the lane) and a raw peer on the in-memory transport. */
async function connect(fastLane: boolean, options: TaskRuntimeOptions = {}) {
  // A clock that stands still: timestamps and suggested intervals are the same on both sides.
  const runtime = createTaskRuntime({ now: () => 1_700_000_000_000, ...options });
  runtimes.push(runtime);
  const server = new Server({ name: 't', version: '0' }, { capabilities: {} });
  attachTaskServer(server, { runtime, fastLane, tools: [instant, taskOnly, sloppy, broken, longJobTool, failTool, echoTool], prompts: [greetingPrompt], resources: [reportResource] });
  const [peer, serverSide] = InMemoryTransport.createLinkedPair();
  const seen: Message[] = [];
  peer.onmessage = (m) => seen.push(m);
  await server.connect(serverSide);
  await peer.start();
  const send = (m: object): Promise<void> => peer.send(m as JSONRPCMessage);
  const answer = (id: unknown): Promise<Message> =>
    vi.waitFor(
      () => {
        const found = seen.find((m) => m.id === id && m.method === undefined);
        if (!found) throw new Error(`no answer to ${String(id)} yet`);
        return found;
      },
      { timeout: 3_000, interval: 2 },
    );
  let next = 1;
  const ask = async (method: string, params?: unknown): Promise<Message> => {
    const id = next++;
    await send({ jsonrpc: '2.0', id, method, ...(params !== undefined && { params }) });
    return answer(id);
  };
  /** A message after which nothing more can be on its way: a ping's answer comes after it. */
  const settle = (): Promise<Message> => ask('ping');
  const ended = async (taskId: string): Promise<void> => {
    await vi.waitFor(async () => {
      const task = await runtime.get(taskId, owner, { countsAsPoll: false });
      if (!['completed', 'failed', 'cancelled'].includes(task.status)) throw new Error(`${taskId} is ${task.status}`);
    });
    // Status notifications go out a turn or two of the loop after a change (after the reply):
    // both paths have sent theirs before the script goes on.
    for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
  };
  await send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });
  await answer(0);
  await send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return { server, runtime, seen, send, ask, answer, settle, ended, nextId: () => next++ };
}

/** Every request of the script, good and bad, in order; returns the transcript. */
async function script(fastLane: boolean): Promise<{ transcript: Message[]; laneSaw: boolean[] }> {
  const p = await connect(fastLane);
  const laneSaw: boolean[] = [];
  // 2025-11-25: create, read, result, list.
  const created = await p.ask('tools/call', { name: 'instant', arguments: {}, task: { ttl: 60_000 } });
  const taskA = (created.result!['task'] as { taskId: string }).taskId;
  await p.ended(taskA);
  await p.ask('tasks/get', { taskId: taskA });
  await p.ask('tasks/result', { taskId: taskA });
  await p.ask('tasks/list', {});
  const failed = await p.ask('tools/call', { name: 'fail', arguments: { message: 'nope' }, task: {} });
  const taskF = (failed.result!['task'] as { taskId: string }).taskId;
  await p.ended(taskF);
  await p.ask('tasks/result', { taskId: taskF });
  // SEP-1686: one round trip (and notifications/tasks/created), then its task read back.
  await p.ask('tools/call', { name: 'instant', arguments: {}, _meta: { [SEP]: { taskId: 'sep-1', keepAlive: 60_000 } } });
  await p.ask('tasks/get', { taskId: 'sep-1' });
  await p.ask('tasks/result', { taskId: 'sep-1' });
  await p.ask('prompts/get', { name: 'greeting', arguments: { name: 'Ada' }, _meta: { [SEP]: { taskId: 'sep-prompt' } } });
  const report = await p.ask('resources/read', { uri: reportResource.uri, task: {} });
  // It takes 100 ms: its end (and the status notification of it) is waited for, on both sides.
  const reportTask = (report.result!['task'] as { taskId: string }).taskId;
  await p.ended(reportTask);
  await vi.waitFor(() => expect(p.seen.some((m) => (m['params'] as { taskId?: string; status?: string } | undefined)?.status === 'completed' && (m['params'] as { taskId?: string }).taskId === reportTask)).toBe(true));
  // Refused, each with its error.
  for (const [method, params] of [
    ['tasks/get', {}],
    ['tasks/get', { taskId: 5 }],
    ['tasks/get', { taskId: 'nope' }],
    ['tasks/get', undefined],
    ['tasks/result', { taskId: 'nope' }],
    ['tasks/cancel', { taskId: taskA }],
    ['tasks/list', { cursor: 'bogus' }],
    ['tasks/delete', { taskId: 'nope' }],
    ['tools/call', { name: 'instant', arguments: {}, task: 'x' }],
    ['tools/call', { name: 'nope', arguments: {}, task: {} }],
    ['tools/call', { name: 'instant', arguments: {}, task: {}, _meta: { [SEP]: { taskId: 'twice' } } }],
    ['tools/call', { name: 'echo', arguments: { text: 'hi' }, task: {} }],
    ['tools/call', { name: 'instant', arguments: {}, _meta: { [SEP]: { taskId: '' } } }],
    ['tools/call', { name: 'instant', arguments: {}, _meta: { [SEP]: { taskId: 'sep-1' } } }],
    ['tools/call', { name: 'echo', arguments: 'x', task: {} }],
    ['prompts/get', { name: 'greeting', arguments: { name: 5 }, task: {} }],
    ['resources/read', { uri: 'nope://x', task: {} }],
  ] as const) {
    await p.ask(method, params);
  }
  // What the SDK's tools/call wrapper checks: the request's fields (refused with its own error)
  // and a SEP-1686 answer (parsed: unknown keys of blocks dropped, unknown block types refused).
  for (const params of [
    { name: 'instant', arguments: {}, task: { ttl: null } },
    { name: 'instant', arguments: null, task: {} },
    { name: 'instant', arguments: [], task: {} },
    { name: 5, task: {} },
    { name: 'sloppy', arguments: {}, _meta: { [SEP]: { taskId: 'sep-sloppy' } } },
    { name: 'broken', arguments: {}, _meta: { [SEP]: { taskId: 'sep-broken' } } },
  ]) {
    await p.ask('tools/call', params);
  }
  // Plain calls are the SDK's on both sides, even when they carry a task request the tool ignores.
  await p.ask('tools/call', { name: 'echo', arguments: { text: 'hi' }, _meta: { [SEP]: { taskId: 'ignored' } } });
  await p.ask('tools/call', { name: 'task_only', arguments: {} });
  // Malformed as JSON-RPC: the SDK answers none of them (it reports them to onerror); nor may the lane.
  await p.send({ jsonrpc: '2.0', id: 1.5, method: 'tasks/get', params: { taskId: taskA } });
  await p.send({ jsonrpc: '2.0', id: 'm1', method: 'tasks/get', params: [taskA] });
  await p.send({ jsonrpc: '2.0', id: 'm2', method: 'tasks/get', params: { taskId: taskA }, extra: 1 });
  await p.send({ jsonrpc: '2.0', id: 'm3', method: 'tasks/get', params: { taskId: taskA, _meta: { progressToken: true } } });
  await p.send(null as unknown as object);
  await p.settle();
  // Refused at once and cancelled right behind, in one go (as two lines of one stdio read): no answer.
  const refusedId = p.nextId();
  void p.send({ jsonrpc: '2.0', id: refusedId, method: 'tools/call', params: { name: 'nope', arguments: {}, task: {} } });
  void p.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: refusedId } });
  await p.settle();
  // Cancelled right behind its request: never answered, and its task ends cancelled.
  const sepId = p.nextId();
  await p.send({ jsonrpc: '2.0', id: sepId, method: 'tools/call', params: { name: 'long_job', arguments: { seconds: 5 }, _meta: { [SEP]: { taskId: 'sep-cancel' } } } });
  await p.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: sepId, reason: 'no' } });
  await p.ended('sep-cancel');
  await p.ask('tasks/get', { taskId: 'sep-cancel' });
  // A blocking tasks/result, cancelled: no answer, and the task goes on until cancelled itself.
  const long = await p.ask('tools/call', { name: 'long_job', arguments: { seconds: 5 }, task: {} });
  const taskL = (long.result!['task'] as { taskId: string }).taskId;
  // Its first step's status notification goes out after the reply (on the SDK's path, a turn of
  // the loop later): waited for, so that both transcripts hold it.
  await vi.waitFor(() => expect(p.seen.some((m) => m.method === 'notifications/tasks/status' && (m['params'] as { taskId?: string }).taskId === taskL)).toBe(true));
  const resultId = p.nextId();
  await p.send({ jsonrpc: '2.0', id: resultId, method: 'tasks/result', params: { taskId: taskL } });
  await vi.waitFor(() => expect(FastLane.of(p.server)?.handles(resultId) === true || isHandlingRequest(p.server, resultId)).toBe(true));
  laneSaw.push(FastLane.of(p.server)?.handles(resultId) === true, isHandlingRequest(p.server, resultId));
  // A cancel for it is this node's to take, whichever path holds the request.
  laneSaw.push(placesHere(p.server, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: resultId } }));
  await p.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: resultId } });
  await p.ask('tasks/cancel', { taskId: taskL });
  await p.ask('tasks/delete', { taskId: 'sep-1' });
  await p.ask('tasks/get', { taskId: 'sep-1' });
  await p.settle();
  return { transcript: normalized(p.seen), laneSaw };
}

/**
 * The transcript with the 2025-11-25 task ids (random) named by their order of appearance, and
 * in a fixed order: answers by request id, then the notifications (the SDK's path sends the ones
 * held for a CreateTaskResult on the next turn of the loop, the lane right after the answer).
 */
function normalized(seen: Message[]): Message[] {
  const ids = new Map<string, string>();
  const text = JSON.stringify(seen).replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (uuid) => {
    if (!ids.has(uuid)) ids.set(uuid, `task-${ids.size + 1}`);
    return ids.get(uuid)!;
  });
  const messages = JSON.parse(text) as Message[];
  const answers = messages.filter((m) => m.method === undefined);
  const notes = messages.filter((m) => m.method !== undefined).map((m) => JSON.stringify(m)).sort();
  return [...answers, ...notes.map((n) => JSON.parse(n) as Message)];
}

describe('the fast lane', () => {
  it('should answer every task request with exactly what the SDK path answers, and leave malformed ones alone', async () => {
    const sdk = await script(false);
    const lane = await script(true);
    // The SDK checks tools/call's own fields first; the lane leaves any request those checks
    // refuse to the SDK, which words the error itself, so both sides say the same.
    expect(sdk.transcript.filter((m) => m.error?.message.startsWith('MCP error -32602: Invalid tools/call request'))).toHaveLength(6);
    expect(lane.transcript).toEqual(sdk.transcript);
    // A cancel right behind a SEP-1686 request reached the task on both paths.
    expect(sdk.transcript.map((m) => m.result).find((r) => r?.['taskId'] === 'sep-cancel')).toMatchObject({ status: 'cancelled' });
    // The script did what it says: answers and errors, not silence.
    const answers = sdk.transcript.filter((m) => m.method === undefined);
    expect(answers.filter((m) => m.error).map((m) => m.error!.code)).toEqual(expect.arrayContaining([-32602, -32601]));
    expect(answers.some((m) => m.id === 'm1' || m.id === 'm2' || m.id === 'm3' || m.id === 1.5 || m.id === null)).toBe(false);
    const sloppyAnswer = answers.find((m) => (m.result?.['_meta'] as Record<string, { taskId?: string }> | undefined)?.['modelcontextprotocol.io/related-task']?.taskId === 'sep-sloppy');
    expect(sloppyAnswer?.result?.['content']).toEqual([{ type: 'text', text: 'x' }]);
    expect(answers.filter((m) => m.error?.message.includes('Invalid tools/call result'))).toHaveLength(1);
    expect(sdk.transcript.filter((m) => m.method === 'notifications/tasks/created')).toHaveLength(5);
    // Which path held the blocking tasks/result: the lane, never the SDK, when there is one.
    expect(sdk.laneSaw).toEqual([false, true, true]);
    expect(lane.laneSaw).toEqual([true, false, true]);
  });

  it('should answer a 2025-11-25 task request without the SDK seeing it', async () => {
    const p = await connect(true);
    const sdkHandler = vi.fn();
    // What the SDK would run for tools/call: never reached for a task request on the lane.
    const sdkSide = p.server as unknown as { _onrequest: (...args: unknown[]) => void };
    const original = sdkSide._onrequest.bind(p.server);
    sdkSide._onrequest = (...args: unknown[]) => {
      sdkHandler((args[0] as Message).method);
      original(...args);
    };
    const created = await p.ask('tools/call', { name: 'instant', arguments: {}, task: {} });
    await p.ask('tasks/result', { taskId: (created.result!['task'] as { taskId: string }).taskId });
    await p.ask('tools/call', { name: 'echo', arguments: { text: 'plain' } });
    expect(sdkHandler.mock.calls).toEqual([['tools/call']]);
  });

  it('should abort the requests in flight when the connection closes, and answer none of them', async () => {
    const p = await connect(true);
    const long = await p.ask('tools/call', { name: 'long_job', arguments: { seconds: 5 }, task: {} });
    const taskId = (long.result!['task'] as { taskId: string }).taskId;
    const resultId = p.nextId();
    await p.send({ jsonrpc: '2.0', id: resultId, method: 'tasks/result', params: { taskId } });
    await vi.waitFor(() => expect(FastLane.of(p.server)?.handles(resultId)).toBe(true));
    // The application's own onclose, set after attaching, takes nothing from the lane.
    p.server.onclose = () => undefined;
    await p.server.close();
    expect(FastLane.of(p.server)?.handles(resultId)).toBe(false);
    // Its task is not the request's: it runs on (a dropped connection never cancels a task).
    expect((await p.runtime.get(taskId, owner, { countsAsPoll: false })).status).toBe('working');
    expect(p.seen.some((m) => m.id === resultId)).toBe(false);
  });

  it('should leave a method to the SDK once the application replaces or removes its handler', async () => {
    const p = await connect(true);
    const denied = (): never => {
      throw new McpError(-32001, 'denied');
    };
    p.server.setRequestHandler(z.object({ method: z.literal('tasks/list') }), denied);
    p.server.setRequestHandler(z.object({ method: z.literal('tools/call') }).passthrough(), denied);
    p.server.removeRequestHandler('tasks/get');
    expect((await p.ask('tasks/list', {})).error).toEqual({ code: -32001, message: 'MCP error -32001: denied' });
    expect((await p.ask('tools/call', { name: 'instant', arguments: {}, task: {} })).error?.code).toBe(-32001);
    expect((await p.ask('tasks/get', { taskId: 'x' })).error).toEqual({ code: -32601, message: 'Method not found' });
    // The methods it did not touch stay on the lane.
    expect((await p.ask('tasks/result', { taskId: 'x' })).error?.message).toMatch(/not found/i);
  });

  it('should show a handler set on the transport before connect every message, the lane\'s too', async () => {
    const runtime = createTaskRuntime();
    runtimes.push(runtime);
    const server = new Server({ name: 't', version: '0' }, { capabilities: {} });
    attachTaskServer(server, { runtime, tools: [instant] });
    const [peer, serverSide] = InMemoryTransport.createLinkedPair();
    const heard: string[] = [];
    serverSide.onmessage = (m) => heard.push(String((m as Message).method));
    const answers: Message[] = [];
    peer.onmessage = (m) => answers.push(m);
    await server.connect(serverSide);
    await peer.start();
    await peer.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'instant', arguments: {}, task: {} } });
    await peer.send({ jsonrpc: '2.0', id: 2, method: 'tasks/list', params: {} });
    await vi.waitFor(() => expect(answers.filter((m) => m.id === 1 || m.id === 2)).toHaveLength(2));
    expect(heard).toEqual(['tools/call', 'tasks/list']);
    expect(FastLane.of(server)).toBeDefined();
  });

  it('should keep what a client host passes to connect (the initialize timeout)', async () => {
    const runtime = createTaskRuntime();
    runtimes.push(runtime);
    const client = new Client({ name: 'c', version: '0' });
    attachTaskHost(client, { runtime, elicitation: async () => ({ action: 'decline' }) });
    // Nobody answers initialize on the other side: the timeout given to connect must end it.
    const [clientSide] = InMemoryTransport.createLinkedPair();
    await expect(client.connect(clientSide, { timeout: 50 })).rejects.toThrow(/timed out/i);
  });

  it('should count a tasks/result of a running task as the poll it is (audit)', async () => {
    const p = await connect(true, { audit: { suspicion: { fastPolls: 3 } } });
    // A SEP-1686 call is answered when its task ends: sent, not waited for.
    await p.send({ jsonrpc: '2.0', id: p.nextId(), method: 'tools/call', params: { name: 'long_job', arguments: { seconds: 5 }, _meta: { [SEP]: { taskId: 'polled' } } } });
    await vi.waitFor(async () => expect((await p.runtime.get('polled', owner, { countsAsPoll: false })).status).toBe('working'));
    for (let i = 0; i < 6; i++) expect((await p.ask('tasks/result', { taskId: 'polled' })).error?.code).toBe(-32602);
    expect(p.runtime.security().totals.fastPolls).toBeGreaterThanOrEqual(3);
    await p.runtime.cancel('polled', owner);
  });

  it('should send a status notification only of what no answer on the connection has said', async () => {
    const gates: (() => void)[] = [];
    const gated: TaskToolDefinition = { ...instant, name: 'gated', run: () => new Promise((resolve) => gates.push(() => resolve({ content: [{ type: 'text', text: 'opened' }] }))) };
    const runtime = createTaskRuntime();
    runtimes.push(runtime);
    const server = new Server({ name: 't', version: '0' }, { capabilities: {} });
    attachTaskServer(server, { runtime, tools: [gated] });
    const [peer, serverSide] = InMemoryTransport.createLinkedPair();
    const seen: Message[] = [];
    peer.onmessage = (m) => seen.push(m);
    await server.connect(serverSide);
    await peer.start();
    const turns = async (): Promise<void> => {
      for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
    };
    const answered = (id: number): Promise<Message> => vi.waitFor(() => seen.find((m) => m.id === id && m.method === undefined) ?? Promise.reject(new Error('not yet')));
    const notesOf = (taskId: string) => seen.filter((m) => m.method === 'notifications/tasks/status' && (m['params'] as { taskId: string }).taskId === taskId).map((m) => (m['params'] as { status: string }).status);
    const create = async (id: number): Promise<string> => {
      await peer.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'gated', arguments: {}, task: {} } });
      return ((await answered(id)).result!['task'] as { taskId: string }).taskId;
    };
    // Ends while the requester waits in tasks/result: the answer says it; no notification does.
    const fetched = await create(1);
    await vi.waitFor(() => expect(gates).toHaveLength(1));
    await peer.send({ jsonrpc: '2.0', id: 2, method: 'tasks/result', params: { taskId: fetched } });
    gates[0]!();
    expect((await answered(2)).result?.['content']).toEqual([{ type: 'text', text: 'opened' }]);
    await turns();
    expect(notesOf(fetched)).toEqual([]);
    // Ends while nobody asks: the requester hears of it from a notification.
    const unseen = await create(3);
    await vi.waitFor(() => expect(gates).toHaveLength(2));
    gates[1]!();
    await vi.waitFor(() => expect(notesOf(unseen)).toEqual(['completed']));
  });
});
