/**
 * `TaskClientV2` in the 2026-07-28 dialect (the tasks extension): the requester machine over a
 * raw dispatch, against `serve` (its stateless dispatcher) on memory and NATS and against
 * `serve --sdk v2` (the SDK v2 embedding): results, statuses, input answered through
 * `onInputRequest` with `tasks/update`, a direct answer, cancel, resume on a new client.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRawDispatch, TaskClientV2 } from '../../adapters/mcp-client-v2/index.js';
import type { InputRequestHandler, TaskClientOptions } from '../../adapters/mcp-client-v2/index.js';
import { startNatsServer, type NatsServer } from './harness/nats-server.js';
import { spawnHttpServer, type HttpServerProcess } from './harness/process.js';

const AUTH = ['--auth-token', 'tok-a=alice', '--conformance'];
const HEADERS = { authorization: 'Bearer tok-a' };
let v1: HttpServerProcess;
let v1Nats: HttpServerProcess;
let v2: HttpServerProcess;
let nats: NatsServer;

beforeAll(async () => {
  nats = await startNatsServer({ jetstream: true });
  [v1, v1Nats, v2] = await Promise.all([spawnHttpServer(AUTH), spawnHttpServer([...AUTH, '--nats', nats.url]), spawnHttpServer([...AUTH, '--sdk', 'v2'])]);
}, 60_000);
afterAll(async () => {
  await Promise.allSettled([v1?.close(), v1Nats?.close(), v2?.close()]);
  await nats?.stop();
});

/** A v2 client on the 2026-07-28 era (what an agent built on v2 holds) and its task client. */
async function open(url: string, onInputRequest?: InputRequestHandler, extra: TaskClientOptions = {}): Promise<{ tasks: TaskClientV2; close(): Promise<void> }> {
  const client = new Client({ name: 'task-client-v2-ext', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: HEADERS } }));
  expect(client.getProtocolEra()).toBe('modern');
  const tasks = new TaskClientV2(client, {
    dialect: '2026-07-28',
    rawDispatch: createRawDispatch(url, { headers: HEADERS }),
    pollFrequency: 50,
    ...(onInputRequest && { onInputRequest }),
    ...extra,
  });
  return { tasks, close: () => client.close() };
}

const text = (result: { content: unknown[] }): string => (result.content[0] as { text: string }).text;

describe.each([
  ['serve (SDK v1 + dispatcher, memory)', () => v1.url],
  ['serve (SDK v1 + dispatcher, NATS)', () => v1Nats.url],
  ['serve --sdk v2 (memory)', () => v2.url],
] as const)('TaskClientV2 on the 2026-07-28 wire against %s', (_name, url) => {
  it('calls a tool, follows the task the server made and takes the result tasks/get inlined', async () => {
    const peer = await open(url());
    try {
      const statuses: string[] = [];
      const pending = peer.tasks.beginCallTool({ name: 'sleep', arguments: { ms: 300 } });
      const result = await pending.result({ onTaskStatus: (t) => statuses.push(t.status) });
      expect(text(result)).toBe('slept 300 ms');
      expect(result).not.toHaveProperty('resultType');
      expect(await pending.taskId).toMatch(/\S/);
      expect(statuses).toContain('working');
      expect(statuses.at(-1)).toBe('completed');
    } finally {
      await peer.close();
    }
  });

  it('answers elicitation and sampling through onInputRequest, each request key once', async () => {
    const asked: { method: string; key: string }[] = [];
    const peer = await open(url(), async (request, { key }) => {
      asked.push({ method: request.method, key });
      if (request.method === 'elicitation/create') return { action: 'accept', content: { name: 'Ada' } };
      return { role: 'assistant', content: { type: 'text', text: 'short' }, model: 'test-model' };
    });
    try {
      const hello = await peer.tasks.beginCallTool({ name: 'ask_name', arguments: {} }).result();
      expect(text(hello)).toBe('Hello, Ada');
      const summary = await peer.tasks.beginCallTool({ name: 'summarize', arguments: { text: 'a long text' } }).result();
      expect(JSON.stringify(summary)).toContain('short');
      expect(asked.map((a) => a.method)).toEqual(['elicitation/create', 'sampling/createMessage']);
      // Keys are the server's, unique within a task: each task's one request was answered once.
      expect(asked.every((a) => a.key.length > 0)).toBe(true);
    } finally {
      await peer.close();
    }
  });

  it('answers what the server asks before it decides on a task (SEP-2322), then follows the task', async () => {
    const asked: (string | null)[] = [];
    const peer = await open(url(), async (_request, { taskId }) => (asked.push(taskId), { action: 'accept', content: { name: 'Grace' } }));
    try {
      const pending = peer.tasks.beginCallTool({ name: 'test_tool_with_task', arguments: {} });
      expect(text(await pending.result())).toBe('Hello, Grace!');
      expect(await pending.taskId).toMatch(/\S/);
      expect(asked).toEqual([null]);
    } finally {
      await peer.close();
    }
  });

  it('stops answering what the server asks before a task when cancelled or disposed meanwhile', async () => {
    const signals: AbortSignal[] = [];
    // The person never answers: the handler waits until it is told to stop.
    const waitForever: InputRequestHandler = (_request, { signal }) => (signals.push(signal), new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('stopped')))));
    const peer = await open(url(), waitForever);
    try {
      const cancelled = peer.tasks.beginCallTool({ name: 'test_tool_with_task', arguments: {} });
      const settled = cancelled.result().then(() => 'completed', (e: unknown) => (e as Error).name);
      await expect.poll(() => signals.length, { timeout: 10_000 }).toBe(1);
      cancelled.cancel();
      expect(await settled).toBe('TaskCancelledError');
      expect(signals[0]?.aborted).toBe(true);

      const disposed = peer.tasks.beginCallTool({ name: 'test_tool_with_task', arguments: {} });
      const ended = disposed.result().then(() => 'completed', (e: unknown) => (e as { code?: string }).code);
      await expect.poll(() => signals.length, { timeout: 10_000 }).toBe(2);
      peer.tasks.dispose();
      expect(await ended).toBe('disposed');
      expect(signals[1]?.aborted).toBe(true);
      expect(signals).toHaveLength(2);
    } finally {
      await peer.close();
    }
  });

  it('ends with input_failed when what the server asks before a task cannot be answered', async () => {
    // Declaring elicitation without a way to answer it: the server asks, the client cannot answer.
    const peer = await open(url(), undefined, { clientCapabilities: { elicitation: {} } });
    try {
      const error = await peer.tasks.beginCallTool({ name: 'test_tool_with_task', arguments: {} }).result().then(() => null, (e: unknown) => e as { code?: string; message?: string });
      expect(error?.code).toBe('input_failed');
      expect(error?.message).toContain('elicitation/create');
    } finally {
      await peer.close();
    }
    // Without onInputRequest nothing is declared: the server refuses before it asks (-32021).
    const bare = await open(url());
    try {
      const error = await bare.tasks.beginCallTool({ name: 'test_tool_with_task', arguments: {} }).result().then(() => null, (e: unknown) => e as { code?: string; rpcCode?: number });
      expect(error).toMatchObject({ code: 'request_failed', rpcCode: -32021 });
    } finally {
      await bare.close();
    }
  });

  it('ends failed with the JSON-RPC error a failed task carries', async () => {
    const peer = await open(url());
    try {
      const error = await peer.tasks.beginCallTool({ name: 'protocol_error_job', arguments: {} }).result().then(() => null, (e: unknown) => e as Error & { code?: string; task?: { status: string } });
      expect(error?.name).toBe('TaskFailedError');
      expect(error?.task?.status).toBe('failed');
      expect(error?.message).toContain('simulated protocol error');
    } finally {
      await peer.close();
    }
  });

  it('ends failed, naming the capability, when there is no onInputRequest (it declares none, so the server never asks)', async () => {
    const peer = await open(url());
    try {
      const error = await peer.tasks.beginCallTool({ name: 'ask_name', arguments: {} }).result().then(() => null, (e: unknown) => e as { code?: string; message?: string });
      expect(error?.code).toBe('task_failed');
      expect(error?.message).toContain("The requester did not declare the 'elicitation' capability");
    } finally {
      await peer.close();
    }
  });

  it('takes a direct answer when the server answers without a task', async () => {
    const peer = await open(url());
    try {
      const pending = peer.tasks.beginCallTool({ name: 'echo', arguments: { text: 'at once' } });
      expect(text(await pending.result())).toBe('at once');
      await expect(pending.taskId).rejects.toMatchObject({ code: 'no_task' });
    } finally {
      await peer.close();
    }
  });

  it('cancels a running task with tasks/cancel: it settles cancelled', async () => {
    const peer = await open(url());
    try {
      const pending = peer.tasks.beginCallTool({ name: 'long_job', arguments: { seconds: 30 } });
      const settled = pending.result().then(() => 'completed', (e: unknown) => (e as Error).name);
      await pending.taskId;
      pending.cancel();
      expect(await settled).toBe('TaskCancelledError');
    } finally {
      await peer.close();
    }
  });

  it('resumes a task by id on a new client and gets its result', async () => {
    const first = await open(url());
    const taskId = await first.tasks.beginCallTool({ name: 'sleep', arguments: { ms: 800 } }).taskId;
    first.tasks.dispose();
    await first.close();
    const second = await open(url());
    try {
      const result = await second.tasks.resume(taskId).result();
      expect(text(result)).toBe('slept 800 ms');
    } finally {
      await second.close();
    }
  });
});

describe('TaskClientV2 options for the 2026-07-28 dialect', () => {
  it('refuses the dialect without a raw dispatch, saying why', async () => {
    const client = new Client({ name: 'no-dispatch', version: '1.0.0' });
    expect(() => new TaskClientV2(client, { dialect: '2026-07-28' })).toThrow(/rawDispatch/);
    expect(() => new TaskClientV2(client, { dialect: '2025-11-25' }).resume('t1', { dialect: '2026-07-28' })).toThrow(/rawDispatch/);
  });
});
