/**
 * `RuntimeTaskStore` as the SDK's own `TaskStore`: the SDK's `McpServer` with
 * `server.experimental.tasks.registerToolTask(...)` runs on it, and a real SDK `Client` drives it
 * (InMemoryTransport; one case over Streamable HTTP with two sessions).
 *
 * What it must do beyond the SDK's InMemoryTaskStore: never evict a running task when its ttl
 * elapses, and scope every call to the session id the SDK passes.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTaskStore, type TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { RuntimeTaskStore } from '../../adapters/mcp-server/index.js';
import { createTaskRuntime, type TaskRuntime, type TaskRuntimeOptions } from '../../runtime/index.js';
import { metaOf, sleep } from './harness/json.js';
import { expectPollInterval } from './harness/poll-interval.js';

const RELATED = 'io.modelcontextprotocol/related-task';
const INVALID_PARAMS = -32602;
const TASK_POLL = 50;




async function expectMcpError(promise: Promise<unknown>, code: number): Promise<McpError> {
  let value: unknown;
  try {
    value = await promise;
  } catch (error) {
    if (!(error instanceof McpError)) throw new Error(`expected McpError ${code}, got ${String(error)}`);
    expect(error.code, error.message).toBe(code);
    return error;
  }
  throw new Error(`expected McpError ${code}, got a result: ${JSON.stringify(value)}`);
}

/**
 * Work the test holds open: `createTask` leaves here how to finish the task, and the test calls it
 * when it chooses. It resolves to whether the store took the result.
 */
type Held = Map<string, () => Promise<boolean>>;

/**
 * An SDK McpServer on `store` with one task tool, `work {ms}`, written the way the SDK's own example
 * (examples/server/simpleStreamableHttp.js, tool `delay`) writes it: createTask makes the task in
 * `extra.taskStore` and stores the result out of band; getTask/getTaskResult read the store. With
 * `hold`, the result is stored when the test releases the work (see {@link Held}), not after `ms`.
 */
function buildServer(store: TaskStore, timers: Set<NodeJS.Timeout>, held: Held = new Map()): McpServer {
  const server = new McpServer(
    { name: 'task-store-test', version: '0.0.0' },
    { capabilities: { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } }, taskStore: store },
  );
  server.experimental.tasks.registerToolTask(
    'work',
    {
      description: 'works ms milliseconds; with `fail`, ends with an isError result carrying that text',
      inputSchema: { ms: z.number(), fail: z.string().optional(), hold: z.boolean().optional() },
      execution: { taskSupport: 'required' },
    },
    {
      async createTask({ ms, fail, hold }, { taskStore, taskRequestedTtl }) {
        const task = await taskStore.createTask({ ttl: taskRequestedTtl ?? null, pollInterval: TASK_POLL });
        // A cancelled (or evicted) task refuses the result: that refusal is expected here.
        const finish = (): Promise<boolean> =>
          (fail === undefined
            ? taskStore.storeTaskResult(task.taskId, 'completed', { content: [{ type: 'text', text: `worked ${ms} ms` }] })
            : taskStore.storeTaskResult(task.taskId, 'failed', { content: [{ type: 'text', text: fail }], isError: true })
          ).then(
            () => true,
            () => false,
          );
        if (hold === true) {
          held.set(task.taskId, finish);
          return { task };
        }
        const timer = setTimeout(() => {
          timers.delete(timer);
          void finish();
        }, ms);
        timers.add(timer);
        return { task };
      },
      async getTask(_args, { taskId, taskStore }) {
        return taskStore.getTask(taskId);
      },
      async getTaskResult(_args, { taskId, taskStore }) {
        return (await taskStore.getTaskResult(taskId)) as CallToolResult;
      },
    },
  );
  return server;
}

interface Linked {
  client: Client;
  /** Finishes held work (`hold: true`): resolves to whether the store took its result. */
  readonly release: (taskId: string) => Promise<boolean>;
  close(): Promise<void>;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  const pending = cleanups.splice(0);
  for (const cleanup of pending.reverse()) await cleanup();
});

/** McpServer on `store` + SDK Client over InMemoryTransport.createLinkedPair(). */
async function linked(store: TaskStore): Promise<Linked> {
  const timers = new Set<NodeJS.Timeout>();
  const held: Held = new Map();
  const server = buildServer(store, timers, held);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'task-store-client', version: '0.0.0' }, { capabilities: {} });
  await client.connect(clientSide);
  const close = async (): Promise<void> => {
    for (const t of timers) clearTimeout(t);
    await client.close();
    await server.close();
  };
  cleanups.push(close);
  const release = (taskId: string): Promise<boolean> => {
    const finish = held.get(taskId);
    if (!finish) throw new Error(`no held work for task ${taskId}`);
    held.delete(taskId);
    return finish();
  };
  return { client, release, close };
}

function runtimeStore(options: TaskRuntimeOptions = {}): { runtime: TaskRuntime; store: RuntimeTaskStore } {
  const runtime = createTaskRuntime(options);
  cleanups.push(() => runtime.dispose());
  return { runtime, store: new RuntimeTaskStore(runtime) };
}

async function createWork(client: Client, ms: number, ttl: number, hold = false): Promise<string> {
  const created = await client.request({ method: 'tools/call', params: { name: 'work', arguments: { ms, hold }, task: { ttl } } }, CreateTaskResultSchema);
  expect(created.task.status).toBe('working');
  return created.task.taskId;
}

async function waitStatus(client: Client, taskId: string, status: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const task = await client.experimental.tasks.getTask(taskId);
    if (task.status === status) return;
    if (Date.now() > deadline) throw new Error(`task ${taskId} never became ${status}: ${JSON.stringify(task)}`);
    await sleep(20);
  }
}

/** Polls until `tasks/get` says the task is gone (-32602), within `timeoutMs`. */
async function waitEvicted(client: Client, taskId: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const gone = await client.experimental.tasks.getTask(taskId).then(
      () => false,
      (error: unknown) => {
        if (error instanceof McpError && error.code === INVALID_PARAMS) return true;
        throw error;
      },
    );
    if (gone) return;
    if (Date.now() > deadline) throw new Error(`task ${taskId} was not evicted within ${timeoutMs} ms`);
    await sleep(20);
  }
}

describe('RuntimeTaskStore behind the SDK McpServer (InMemoryTransport)', () => {
  it('callToolStream runs a registerToolTask tool to its result', async () => {
    const { store } = runtimeStore();
    const { client } = await linked(store);
    const messages = [];
    for await (const m of client.experimental.tasks.callToolStream({ name: 'work', arguments: { ms: 150 } }, CallToolResultSchema, {
      task: { ttl: 60_000 },
    })) {
      messages.push(m);
    }
    const types = messages.map((m) => m.type);
    expect(types[0], JSON.stringify(messages)).toBe('taskCreated');
    expect(types.at(-1), JSON.stringify(messages)).toBe('result');
    expect(types.slice(1, -1).every((t) => t === 'taskStatus')).toBe(true);
    const first = messages[0];
    if (first?.type !== 'taskCreated') throw new Error('no taskCreated');
    expect(first.task).toMatchObject({ status: 'working', ttl: 60_000 });
    expectPollInterval(first.task.pollInterval, TASK_POLL, { status: first.task.status, created: Date.parse(first.task.createdAt) });
    expect(Number.isNaN(Date.parse(first.task.createdAt))).toBe(false);
    const statuses = messages.flatMap((m) => (m.type === 'taskStatus' ? [m.task.status] : []));
    expect(statuses.at(-1)).toBe('completed');
    for (const s of statuses) expect(['working', 'completed']).toContain(s);
    const last = messages.at(-1);
    if (last?.type !== 'result') throw new Error('no result');
    expect(last.result.content).toEqual([{ type: 'text', text: 'worked 150 ms' }]);
    expect(metaOf(last.result)?.[RELATED]).toEqual({ taskId: first.task.taskId });
  });

  it('a result stored as failed makes the task failed with a statusMessage, and tasks/result returns the isError result', async () => {
    const { store } = runtimeStore();
    const { client } = await linked(store);
    const created = await client.request(
      { method: 'tools/call', params: { name: 'work', arguments: { ms: 50, fail: 'disk full' }, task: { ttl: 60_000 } } },
      CreateTaskResultSchema,
    );
    const taskId = created.task.taskId;
    await waitStatus(client, taskId, 'failed');
    expect((await client.experimental.tasks.getTask(taskId)).statusMessage ?? '').toContain('disk full');
    const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: 'text', text: 'disk full' }]);
    expect(metaOf(result)?.[RELATED]).toEqual({ taskId });
  });

  it('tasks/list pages through 25 tasks: every id exactly once, no nextCursor at the end', async () => {
    const { store } = runtimeStore({ pageSize: 7 });
    const { client } = await linked(store);
    const created: string[] = [];
    for (let i = 0; i < 25; i++) created.push(await createWork(client, i % 2 === 0 ? 0 : 5_000, 60_000));
    const listed: string[] = [];
    const sizes: number[] = [];
    let cursor: string | undefined;
    for (let page = 0; ; page++) {
      if (page > 20) throw new Error('tasks/list never ended');
      const result = await client.experimental.tasks.listTasks(cursor);
      sizes.push(result.tasks.length);
      listed.push(...result.tasks.map((t) => t.taskId));
      if (result.nextCursor === undefined) break;
      cursor = result.nextCursor;
    }
    expect(sizes.length).toBeGreaterThanOrEqual(4);
    for (const size of sizes) expect(size).toBeLessThanOrEqual(7);
    expect(listed.length).toBe(25);
    expect([...listed].sort()).toEqual([...created].sort());
  });

  it('tasks/cancel cancels a running task; it stays cancelled and a second cancel is -32602', async () => {
    const { store } = runtimeStore();
    const { client, release } = await linked(store);
    const taskId = await createWork(client, 400, 60_000, true);
    const cancelled = await client.experimental.tasks.cancelTask(taskId);
    expect(cancelled).toMatchObject({ taskId, status: 'cancelled' });
    // The work now tries to store its result: the store must refuse it, and the task stay cancelled.
    expect(await release(taskId)).toBe(false);
    expect((await client.experimental.tasks.getTask(taskId)).status).toBe('cancelled');
    const listed = await client.experimental.tasks.listTasks();
    expect(listed.tasks.find((t) => t.taskId === taskId)?.status).toBe('cancelled');
    await expectMcpError(client.experimental.tasks.cancelTask(taskId), INVALID_PARAMS);
  });

  it('a running task whose ttl has elapsed is still there and later completes with its result', async () => {
    const { store } = runtimeStore();
    const { client, release } = await linked(store);
    const taskId = await createWork(client, 700, 200, true);
    // A task created after it with the same ttl and ended at once: its eviction is due no earlier
    // than any deadline the running task's ttl could have set, and deadlines fire in order.
    const marker = await createWork(client, 0, 200);
    await waitStatus(client, marker, 'completed');
    await waitEvicted(client, marker);
    const task = await client.experimental.tasks.getTask(taskId);
    expect(task).toMatchObject({ taskId, status: 'working', ttl: 200 });
    expect((await client.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toContain(taskId);
    expect(await release(taskId)).toBe(true);
    const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    expect(result.content).toEqual([{ type: 'text', text: 'worked 700 ms' }]);
    expect(metaOf(result)?.[RELATED]).toEqual({ taskId });
  });

  it('control: the SDK InMemoryTaskStore evicts that same running task once its ttl elapses (what the test above guards against)', async () => {
    const store = new InMemoryTaskStore();
    cleanups.push(async () => store.cleanup());
    const { client } = await linked(store);
    const taskId = await createWork(client, 700, 200, true);
    await waitEvicted(client, taskId);
  });

  it('a second session (sessionId passed to the store) gets null / not-found for the first session\'s task', async () => {
    const { store } = runtimeStore();
    const request = { method: 'tools/call', params: { name: 'work', arguments: { ms: 1 } } };
    const task = await store.createTask({ ttl: 60_000 }, 1, request, 'session-a');
    expect(await store.getTask(task.taskId, 'session-a')).toMatchObject({ taskId: task.taskId, status: 'working' });
    expect(await store.getTask(task.taskId, 'session-b')).toBeNull();
    expect(await store.getTask(task.taskId)).toBeNull(); // no session is not "any session"
    expect((await store.listTasks(undefined, 'session-b')).tasks).toEqual([]);
    expect((await store.listTasks(undefined, 'session-a')).tasks.map((t) => t.taskId)).toEqual([task.taskId]);
    await expect(store.storeTaskResult(task.taskId, 'completed', { content: [] }, 'session-b')).rejects.toThrow();
    await expect(store.updateTaskStatus(task.taskId, 'cancelled', 'nope', 'session-b')).rejects.toThrow();
    expect(await store.getTask(task.taskId, 'session-a')).toMatchObject({ status: 'working' });
    await store.storeTaskResult(task.taskId, 'completed', { content: [{ type: 'text', text: 'done' }] }, 'session-a');
    await expect(store.getTaskResult(task.taskId, 'session-b')).rejects.toThrow();
    expect(await store.getTaskResult(task.taskId, 'session-a')).toEqual({ content: [{ type: 'text', text: 'done' }] });
  });
});

describe('RuntimeTaskStore behind the SDK McpServer (Streamable HTTP, two sessions)', () => {
  let http: HttpServer | undefined;
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const timers = new Set<NodeJS.Timeout>();

  afterAll(async () => {
    for (const t of timers) clearTimeout(t);
    await Promise.all([...transports.values()].map((t) => t.close()));
    http?.closeAllConnections();
    await new Promise<void>((resolve) => (http === undefined ? resolve() : http.close(() => resolve())));
  });

  it('isolates sessions: the other session gets -32602 for get, result and cancel and an empty list', async () => {
    const { store } = runtimeStore();
    const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
      const sid = req.headers['mcp-session-id'];
      let transport = typeof sid === 'string' ? transports.get(sid) : undefined;
      if (transport === undefined) {
        const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => {
            transports.set(id, created);
          },
        });
        await buildServer(store, timers).connect(created);
        transport = created;
      }
      await transport.handleRequest(req, res);
    };
    const server = createServer((req, res) => {
      handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500).end(String(error));
      });
    });
    http = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);

    const connect = async (name: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> => {
      const transport = new StreamableHTTPClientTransport(url);
      const client = new Client({ name, version: '0.0.0' }, { capabilities: {} });
      await client.connect(transport);
      cleanups.push(() => client.close());
      return { client, transport };
    };
    const a = await connect('session-a');
    const b = await connect('session-b');
    expect(a.transport.sessionId).toBeDefined();
    expect(b.transport.sessionId).toBeDefined();
    expect(a.transport.sessionId).not.toBe(b.transport.sessionId);

    const taskId = await createWork(a.client, 400, 60_000);
    await expectMcpError(b.client.experimental.tasks.getTask(taskId), INVALID_PARAMS);
    await expectMcpError(b.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema), INVALID_PARAMS);
    await expectMcpError(b.client.experimental.tasks.cancelTask(taskId), INVALID_PARAMS);
    expect((await b.client.experimental.tasks.listTasks()).tasks).toEqual([]);

    // the owner still sees it, uncancelled, and it completes
    expect((await a.client.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toEqual([taskId]);
    await waitStatus(a.client, taskId, 'completed');
    const result = await a.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    expect(result.content).toEqual([{ type: 'text', text: 'worked 400 ms' }]);
    await expectMcpError(b.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema), INVALID_PARAMS);
  });
});
