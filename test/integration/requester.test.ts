/**
 * The requester API (`TaskClient.callTool` / `task`, `TaskClientV2` alike) has one meaning on every
 * dialect: the same suite against `serve` (SDK v1) in SEP-1686, 2025-11-25 and negotiated, against
 * `serve --sdk v2` in 2025-11-25 and negotiated (the 2026-07-28 extension), and against the
 * reference server of others (`@modelcontextprotocol/server-everything`, 2025-11-25): the outcome
 * shape, cancel through a signal, the updates iterator (partials of `long_job`, subtasks of
 * `fan_out`), per-call input routing with two calls asking at once, and `task(id)` from a new
 * connection.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { TaskCancelledError, TaskClient, type DialectChoice, type TaskCall, type TaskUpdate } from '../../adapters/mcp-client/index.js';
import { createRawDispatch, TaskClientV2 } from '../../adapters/mcp-client-v2/index.js';
import type { InputRequestHandler } from '../../adapters/wire/task-client.types.js';
import { spawnHttpServer, type HttpServerProcess } from './harness/process.js';

const text = (result: { content: unknown[] }): string => (result.content[0] as { text: string }).text;

/** A connected requester of one SDK line, and how to open another one (a new connection). */
interface Requester {
  readonly tasks: TaskClient | TaskClientV2;
  /** The MCP session over HTTP. */
  readonly sessionId: string | undefined;
  close(): Promise<void>;
}

interface Target {
  readonly name: string;
  readonly dialect: DialectChoice;
  /** What the negotiation must land on. */
  readonly spoken: string;
  connect(options?: { token?: string; sessionId?: string }): Promise<Requester>;
}

let v1: HttpServerProcess;
let v2: HttpServerProcess;
const TOKEN = 'requester-suite-token';
beforeAll(async () => {
  const flags = ['--poll-frequency', '100', '--auth-token', `${TOKEN}=alice`];
  [v1, v2] = await Promise.all([spawnHttpServer(flags), spawnHttpServer(['--sdk', 'v2', ...flags])]);
}, 30_000);
afterAll(async () => {
  await Promise.allSettled([v1?.close(), v2?.close()]);
});

const headers = (token?: string): Record<string, string> => (token === undefined ? {} : { authorization: `Bearer ${token}` });

function sdkV1(dialect: DialectChoice, spoken: string): Target {
  return {
    name: `serve (SDK v1), ${dialect}`,
    dialect,
    spoken,
    connect: async (options = {}) => {
      const client = new ClientV1({ name: 'requester-suite', version: '1.0.0' }, { capabilities: { elicitation: {}, sampling: {} } });
      const transport = new HttpV1(new URL(v1.url), { requestInit: { headers: headers(options.token) }, ...(options.sessionId !== undefined && { sessionId: options.sessionId }) });
      await client.connect(transport);
      return { tasks: new TaskClient(client, { dialect, pollFrequency: 100 }), sessionId: transport.sessionId, close: () => client.close() };
    },
  };
}

function sdkV2(dialect: DialectChoice, spoken: string): Target {
  return {
    name: `serve --sdk v2 (SDK v2 client), ${dialect}`,
    dialect,
    spoken,
    connect: async (options = {}) => {
      const client = new ClientV2({ name: 'requester-suite', version: '1.0.0' }, { capabilities: { elicitation: {}, sampling: {} } });
      const transport = new HttpV2(new URL(v2.url), { requestInit: { headers: headers(options.token) } });
      await client.connect(transport);
      const rawDispatch = createRawDispatch(v2.url, { headers: headers(options.token) });
      return { tasks: new TaskClientV2(client, { dialect, pollFrequency: 100, rawDispatch }), sessionId: transport.sessionId, close: () => client.close() };
    },
  };
}

const TARGETS: readonly Target[] = [
  sdkV1('sep-1686', 'sep-1686'),
  sdkV1('2025-11-25', '2025-11-25'),
  sdkV1('auto', '2025-11-25'),
  sdkV2('2025-11-25', '2025-11-25'),
  sdkV2('auto', '2026-07-28'),
];

/** Every update of a call until it ends. */
async function collect(call: TaskCall): Promise<TaskUpdate[]> {
  const seen: TaskUpdate[] = [];
  for await (const update of call.updates()) seen.push(update);
  return seen;
}

describe.each(TARGETS)('requester API against $name', (target) => {
  let requester: Requester;
  beforeAll(async () => {
    requester = await target.connect({ token: TOKEN });
  });
  afterAll(async () => {
    requester.tasks.dispose();
    await requester.close();
  });

  it('should run a task to its result, with the task id known once started and the dialect negotiated', async () => {
    const call = requester.tasks.callTool({ name: 'sleep', arguments: { ms: 200 } });
    const start = await call.started;
    expect(start).toEqual({ kind: 'task', taskId: call.taskId });
    expect(call.dialect).toBe(target.spoken);
    expect(text(await call.result())).toBe('slept 200 ms');
    expect(call.task?.status).toBe('completed');
  });

  it('should resolve a failed tool as a result with isError on every dialect', async () => {
    const result = await requester.tasks.callTool({ name: 'fail', arguments: { message: 'it broke' } }).result();
    expect(result.isError).toBe(true);
    expect(text(result)).toBe('it broke');
  });

  it('should answer a tool that cannot be a task directly, without a task id', async () => {
    const call = requester.tasks.callTool({ name: 'echo', arguments: { text: 'hi' } });
    expect(text(await call.result())).toBe('hi');
    // SEP-1686 asks anyway (a receiver ignores it); the others call it plainly.
    expect(await call.started).toEqual({ kind: 'direct' });
  });

  it('should cancel the task on the server when the signal aborts', async () => {
    const stop = new AbortController();
    const call = requester.tasks.callTool({ name: 'long_job', arguments: { seconds: 20 } }, { signal: stop.signal });
    for await (const update of call.updates()) {
      if (update.type === 'status' && update.task.status === 'working') break;
    }
    stop.abort();
    await expect(call.result()).rejects.toBeInstanceOf(TaskCancelledError);
    // The server says so too, read from a fresh handle.
    const again = requester.tasks.task(call.taskId!, { dialect: call.dialect as DialectChoice });
    await expect(again.result()).rejects.toBeInstanceOf(TaskCancelledError);
    expect(again.task?.status).toBe('cancelled');
  });

  it('should yield statuses and the partial results of long_job through updates()', async () => {
    const call = requester.tasks.callTool({ name: 'long_job', arguments: { seconds: 1 } });
    const [updates, result] = await Promise.all([collect(call), call.result()]);
    expect(text(result)).toBe('long_job done in 1 s');
    const statuses = updates.filter((u) => u.type === 'status').map((u) => (u.type === 'status' ? u.task.status : ''));
    expect(statuses).toContain('working');
    expect(statuses.at(-1)).toBe('completed');
    const partials = updates.filter((u) => u.type === 'partial');
    expect(partials.length).toBeGreaterThan(0);
    expect(partials.map((p) => (p.type === 'partial' ? p.seq : 0))).toEqual([...partials.keys()].map((i) => (partials[0]!.type === 'partial' ? partials[0]!.seq : 0) + i));
  });

  it('should yield the subtasks of fan_out through updates()', async () => {
    const call = requester.tasks.callTool({ name: 'fan_out', arguments: { count: 3, ms: 600 } });
    const [updates, result] = await Promise.all([collect(call), call.result()]);
    expect(text(result)).toBe('fan_out: 3 of 3 subtasks completed');
    const subtasks = new Set(updates.flatMap((u) => (u.type === 'subtask' ? [u.taskId] : [])));
    expect(subtasks.size).toBe(3);
  });

  it('should route each question to the call that caused it, two calls asking at once', async () => {
    const answering =
      (name: string): InputRequestHandler =>
      async () => ({ action: 'accept', content: { name } });
    const ada = requester.tasks.callTool({ name: 'ask_name', arguments: {} }, { onInputRequest: answering('Ada') });
    const bob = requester.tasks.callTool({ name: 'ask_name', arguments: {} }, { onInputRequest: answering('Bob') });
    const adaInputs = collect(ada);
    const [a, b] = await Promise.all([ada.result(), bob.result()]);
    expect(text(a)).toBe('Hello, Ada');
    expect(text(b)).toBe('Hello, Bob');
    expect((await adaInputs).filter((u) => u.type === 'input').map((u) => (u.type === 'input' ? u.method : ''))).toContain('elicitation/create');
  });

  it('should route two different questions asked at once (elicitation, sampling) each to its own call', async () => {
    // Each handler answers only its own kind of question: a misrouted one fails its call.
    const onlyElicitation: InputRequestHandler = async ({ method }) => {
      if (method !== 'elicitation/create') throw new Error(`misrouted ${method}`);
      return { action: 'accept', content: { name: 'Eve' } };
    };
    const onlySampling: InputRequestHandler = async ({ method }) => {
      if (method !== 'sampling/createMessage') throw new Error(`misrouted ${method}`);
      return { role: 'assistant', model: 'scripted', content: { type: 'text', text: 'Tasks run later.' } };
    };
    const [named, summary] = await Promise.all([
      requester.tasks.callTool({ name: 'ask_name', arguments: {} }, { onInputRequest: onlyElicitation }).result(),
      requester.tasks.callTool({ name: 'summarize', arguments: { text: 'Tasks let a call finish later.' } }, { onInputRequest: onlySampling }).result(),
    ]);
    expect(text(named)).toBe('Hello, Eve');
    expect(text(summary)).toBe('Tasks run later.');
  });

  it('should refuse a retention its dialect cannot carry instead of ignoring it', async () => {
    const asked = target.spoken === 'sep-1686' ? { ttl: 60_000 } : { keepAlive: 60_000 };
    await expect(requester.tasks.callTool({ name: 'sleep', arguments: { ms: 10 } }, asked).result()).rejects.toMatchObject({ code: 'retention_unsupported' });
  });

  // SEP-1686 binds a task to the session that made it; the others to the principal (or the id).
  const principalBound = target.spoken === '2025-11-25' || target.spoken === '2026-07-28';
  it(`should pick a task up with task(id) from a new connection ${principalBound ? 'of the same principal' : 'on the same session'}`, async () => {
    const first = await target.connect({ token: TOKEN });
    const call = first.tasks.callTool({ name: 'sleep', arguments: { ms: 400 } });
    await call.started;
    const taskId = call.taskId!;
    first.tasks.dispose();
    await first.close();
    const second = await target.connect(principalBound ? { token: TOKEN } : { token: TOKEN, sessionId: first.sessionId! });
    try {
      const later = second.tasks.task(taskId);
      expect(text(await later.result())).toBe('slept 400 ms');
      expect(later.task?.taskId).toBe(taskId);
    } finally {
      second.tasks.dispose();
      await second.close();
    }
  });
});

describe('requester API against @modelcontextprotocol/server-everything (2025-11-25, over stdio)', () => {
  const everything = path.join(path.dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json')), 'dist', 'index.js');
  let client: ClientV1;
  let tasks: TaskClient;
  beforeAll(async () => {
    client = new ClientV1({ name: 'requester-suite', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [everything, 'stdio'], stderr: 'ignore' }));
    tasks = new TaskClient(client, { pollFrequency: 200 });
  }, 30_000);
  afterAll(async () => {
    tasks.dispose();
    await client.close();
  });

  it('should negotiate 2025-11-25 and run simulate-research-query to its result, with status updates', async () => {
    const call = tasks.callTool({ name: 'simulate-research-query', arguments: { topic: 'rust' } });
    const [updates, result] = await Promise.all([collect(call), call.result()]);
    expect(call.dialect).toBe('2025-11-25');
    expect(result.isError).not.toBe(true);
    expect(JSON.stringify(result.content)).toContain('rust');
    expect(updates.some((u) => u.type === 'status' && u.task.status === 'completed')).toBe(true);
  }, 30_000);

  it('should route its clarifying question to the call that asked it', async () => {
    const asked: string[] = [];
    const call = tasks.callTool(
      { name: 'simulate-research-query', arguments: { topic: 'python', ambiguous: true } },
      {
        onInputRequest: async ({ method }) => {
          asked.push(method);
          return { action: 'accept', content: { interpretation: 'snake' } };
        },
      },
    );
    const result = await call.result();
    expect(asked).toEqual(['elicitation/create']);
    expect(JSON.stringify(result.content)).toContain('python');
  }, 30_000);

  it('should cancel a running task through the signal', async () => {
    const stop = new AbortController();
    const call = tasks.callTool({ name: 'simulate-research-query', arguments: { topic: 'go' } }, { signal: stop.signal });
    await call.started;
    stop.abort();
    await expect(call.result()).rejects.toBeInstanceOf(TaskCancelledError);
    expect(call.task?.status).toBe('cancelled');
  }, 30_000);

  it('should call a tool that is not a task tool plainly', async () => {
    const call = tasks.callTool({ name: 'echo', arguments: { message: 'plain' } });
    expect(JSON.stringify((await call.result()).content)).toContain('plain');
    expect(await call.started).toEqual({ kind: 'direct' });
    expect(call.dialect).toBe('plain');
  });
});
