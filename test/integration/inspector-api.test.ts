/**
 * The inspector's HTTP API with real parts: a runtime serving the demo tools to a real SDK client,
 * `attachInspector` beside it (and the real CLI with `--inspect`), read over HTTP and SSE.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoDefinitions } from '../../adapters/cli/demo-tools.js';
import { attachInspector, type Inspector, type InspectorOptions } from '../../adapters/inspector/index.js';
import { createTaskServer } from '../../adapters/mcp-server/index.js';
import { createTaskRuntime, type ObservedTask, type TaskRuntime } from '../../runtime/index.js';
import { freshPrefix, runCli } from './harness/cluster.js';
import { getJson, inspectorUrlFrom, openEvents } from './harness/inspector.js';
import { spawnHttpServer, type HttpServerProcess } from './harness/process.js';
import { startNatsServer } from './harness/nats-server.js';
import { connectCustomSdkStdio, connectSdkClientTo, type SdkPeer } from './harness/sdk-client.js';
import { attachInteractiveHttpWire } from './harness/http-wire.js';
import { create2025 } from './harness/task-calls.js';
import { capturingLogger } from '../fixtures/capturing-logger.js';

/** A runtime serving the demo tools to an SDK client in this process, with an inspector. */
async function embedded(options: Omit<InspectorOptions, 'port'> = {}) {
  const runtime = createTaskRuntime();
  const inspector = await attachInspector(runtime, { port: 0, ...options });
  const server = createTaskServer({ name: 'inspector-test', version: '0' }, { runtime, ...demoDefinitions });
  const client = new Client({ name: 'inspector-test-client', version: '0' });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(b), client.connect(a)]);
  const base = `http://127.0.0.1:${inspector.port}`;
  return {
    runtime,
    inspector,
    client,
    base,
    close: async () => {
      await client.close();
      await inspector.close();
      await runtime.dispose();
    },
  };
}

/** Creates a task (2025-11-25 dialect) and returns its id. */
async function createTask(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const created = await client.request({ method: 'tools/call', params: { name, arguments: args, task: { ttl: 60_000 } } }, CreateTaskResultSchema);
  return created.task.taskId;
}

/** Calls `fn` every 50 ms until it gives a value. */
async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function listed(base: string, headers: Record<string, string> = {}): Promise<ObservedTask[]> {
  const { status, body } = await getJson(`${base}/api/tasks`, headers);
  expect(status).toBe(200);
  return body.tasks as ObservedTask[];
}

async function taskWithId(base: string, taskId: string): Promise<ObservedTask> {
  return until(`task ${taskId} in /api/tasks`, async () => (await listed(base)).find((t) => t.taskId === taskId));
}

describe('attachInspector with an embedded runtime and an SDK client', () => {
  let env: Awaited<ReturnType<typeof embedded>>;
  beforeAll(async () => {
    env = await embedded({ heartbeatMs: 200 });
  });
  afterAll(async () => env?.close());

  it('should list every task created through the MCP client in /api/tasks, metadata only', async () => {
    const sleepId = await createTask(env.client, 'sleep', { ms: 20 });
    const jobId = await createTask(env.client, 'long_job', { seconds: 30 });
    const job = await taskWithId(env.base, jobId);
    expect(job).toMatchObject({ taskId: jobId, method: 'tools/call', label: 'long_job', dialect: '2025-11-25', node: 'local', hasResult: false });
    expect(['submitted', 'working']).toContain(job.status);
    expect(typeof job.key).toBe('string');
    const sleep = await until('sleep completed', async () => (await listed(env.base)).find((t) => t.taskId === sleepId && t.status === 'completed'));
    expect(sleep).toMatchObject({ label: 'sleep', hasResult: true, error: null });
    expect(sleep).not.toHaveProperty('result');
    await env.client.experimental.tasks.cancelTask(jobId);
  });

  it("should give a task's timeline and outcome in /api/tasks/:key, without its result unless results are enabled", async () => {
    const id = await createTask(env.client, 'sleep', { ms: 10 });
    const task = await until('completed', async () => (await listed(env.base)).find((t) => t.taskId === id && t.status === 'completed'));
    const { status, body } = await getJson(`${env.base}/api/tasks/${task.key}`);
    expect(status).toBe(200);
    expect(body.task).toMatchObject({ key: task.key, taskId: id, status: 'completed' });
    expect(body.timeline.map((e: { event: string; status: string }) => [e.event, e.status])).toEqual([
      ['task.created', 'submitted'],
      ['task.start', 'working'],
      ['task.complete', 'completed'],
    ]);
    for (const entry of body.timeline) expect(entry).toMatchObject({ at: expect.any(Number), node: 'local' });
    expect(body.outcome).toEqual({ terminal: true, status: 'completed', error: null, statusMessage: null, hasResult: true, resultShown: false });
    expect(JSON.stringify(body)).not.toContain('slept 10 ms');
    expect(body.handler).toBeNull();
    expect((await getJson(`${env.base}/api/tasks/no-such-key`)).status).toBe(404);
  });

  it('should deliver a status change over SSE live: a cancelled long_job and its timeline entry', async () => {
    const events = await openEvents(`${env.base}/api/events`);
    try {
      expect(events.status).toBe(200);
      const id = await createTask(env.client, 'long_job', { seconds: 30 });
      const working = await events.next((f) => f.event === 'upsert' && JSON.parse(f.data).task.taskId === id && JSON.parse(f.data).task.statusMessage === 'step 1/10');
      const key = JSON.parse(working.data).task.key as string;
      await env.client.experimental.tasks.cancelTask(id);
      const cancelled = await events.next((f) => f.event === 'upsert' && JSON.parse(f.data).task.key === key && JSON.parse(f.data).task.status === 'cancelled');
      expect(JSON.parse(cancelled.data).entry).toMatchObject({ event: 'task.cancel', previous: 'working', status: 'cancelled', node: 'local' });
      expect(JSON.parse(cancelled.data).matches).toBe(true);
      // The heartbeat comment keeps the stream alive (every 200 ms here, 15 s by default).
      await events.next((f) => f.event === 'comment' && f.data === 'heartbeat', 2_000);
    } finally {
      events.close();
    }
  });

  it('should start every event stream with a snapshot of every task', async () => {
    const id = await createTask(env.client, 'sleep', { ms: 1 });
    await taskWithId(env.base, id);
    const events = await openEvents(`${env.base}/api/events`);
    try {
      const snapshot = JSON.parse((await events.next((f) => f.event === 'snapshot')).data);
      expect(snapshot.showResults).toBe(false);
      expect(snapshot.tasks.map((t: ObservedTask) => t.taskId)).toContain(id);
    } finally {
      events.close();
    }
  });

  it('should serve the page, its script and style, and the lifecycle diagram drawn from the machine', async () => {
    const page = await fetch(`${env.base}/`);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await page.text();
    for (const part of ['id="tasks"', 'id="status-filter"', 'id="search"', 'id="detail"', 'id="diagram"', 'id="handler-diagram"', 'id="timeline"', 'id="outcome"', 'id="live"']) {
      expect(html).toContain(part);
    }
    expect((await fetch(`${env.base}/inspector.js`)).headers.get('content-type')).toMatch(/^text\/javascript/);
    expect((await fetch(`${env.base}/inspector.css`)).headers.get('content-type')).toMatch(/^text\/css/);
    const svg = await fetch(`${env.base}/api/diagram.svg`);
    expect(svg.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    const text = await svg.text();
    for (const status of ['submitted', 'working', 'input_required', 'completed', 'failed', 'cancelled', 'unknown']) {
      expect(text).toContain(`data-state="task.${status}"`);
    }
  });

  it('should refuse a loopback inspector reached under a foreign Host name (DNS rebinding)', async () => {
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      request({ host: '127.0.0.1', port: env.inspector.port, path: '/api/tasks', headers: { host: 'attacker.example' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
        .on('error', reject)
        .end();
    });
    expect(status).toBe(403);
  });
});

describe('attachInspector results', () => {
  it('should show the result JSON in the detail only with showResults', async () => {
    const env = await embedded({ showResults: true });
    try {
      const id = await createTask(env.client, 'sleep', { ms: 5 });
      const task = await until('completed', async () => (await listed(env.base)).find((t) => t.taskId === id && t.status === 'completed'));
      const { body } = await getJson(`${env.base}/api/tasks/${task.key}`);
      expect(body.outcome).toMatchObject({ terminal: true, hasResult: true, resultShown: true, result: { content: [{ type: 'text', text: 'slept 5 ms' }] } });
      const failed = await createTask(env.client, 'fail', { message: 'boom' });
      const failedTask = await until('failed', async () => (await listed(env.base)).find((t) => t.taskId === failed && t.status === 'failed'));
      const detail = (await getJson(`${env.base}/api/tasks/${failedTask.key}`)).body;
      expect(detail.outcome).toMatchObject({ status: 'failed', error: expect.stringContaining('boom'), resultShown: true, result: { isError: true } });
    } finally {
      await env.close();
    }
  });
});

describe('attachInspector access off loopback', () => {
  let env: Awaited<ReturnType<typeof embedded>>;
  beforeAll(async () => {
    env = await embedded({ host: '0.0.0.0' });
  });
  afterAll(async () => env?.close());

  it('should generate a token, put it in the URL, and answer 401 to every request without it', async () => {
    const token = env.inspector.token;
    expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(env.inspector.url).toBe(`http://0.0.0.0:${env.inspector.port}/?token=${token}`);
    for (const path of ['/', '/inspector.js', '/api/tasks', '/api/diagram.svg', '/api/events']) {
      const res = await fetch(`${env.base}${path}`);
      expect(res.status, path).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      await res.body?.cancel();
    }
    expect((await getJson(`${env.base}/api/tasks`, { authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await getJson(`${env.base}/api/tasks?token=wrong`)).status).toBe(401);
  });

  it('should answer 200 with the token as Bearer or ?token=, and carry it on the page assets', async () => {
    const token = env.inspector.token!;
    expect((await getJson(`${env.base}/api/tasks`, { authorization: `Bearer ${token}` })).status).toBe(200);
    expect((await getJson(`${env.base}/api/tasks?token=${token}`)).status).toBe(200);
    const html = await (await fetch(`${env.base}/?token=${token}`)).text();
    expect(html).toContain(`/inspector.js?token=${token}`);
    expect((await fetch(`${env.base}/inspector.js?token=${token}`)).status).toBe(200);
    const events = await openEvents(`${env.base}/api/events?token=${token}`);
    try {
      expect(events.status).toBe(200);
      await events.next((f) => f.event === 'snapshot');
    } finally {
      events.close();
    }
  });

  it('should use the token given, and check a given token on loopback too', async () => {
    const runtime: TaskRuntime = createTaskRuntime();
    const given: Inspector = await attachInspector(runtime, { port: 0, token: 'sesame' });
    try {
      expect(given.token).toBe('sesame');
      expect((await getJson(`http://127.0.0.1:${given.port}/api/tasks`)).status).toBe(401);
      expect((await getJson(`http://127.0.0.1:${given.port}/api/tasks`, { authorization: 'Bearer sesame' })).status).toBe(200);
    } finally {
      await given.close();
      await runtime.dispose();
    }
  });
});

describe('mcp-tasks serve --inspect', () => {
  let server: HttpServerProcess | undefined;
  let peer: SdkPeer | undefined;
  afterAll(async () => {
    await peer?.close();
    await server?.close();
  });

  async function start(flags: string[]): Promise<string> {
    server = await spawnHttpServer(['--inspect', '0', ...flags]);
    return until('the inspector log line', async () => inspectorUrlFrom(server!.stderr()));
  }

  it('should log the inspector URL and show tasks of HTTP clients live, a cancel included', async () => {
    const url = await start([]);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const base = url.slice(0, -1);
    peer = await connectSdkClientTo(server!);
    const events = await openEvents(`${base}/api/events`);
    try {
      await events.next((f) => f.event === 'snapshot');
      const id = await createTask(peer.client, 'long_job', { seconds: 30 });
      const task = await taskWithId(base, id);
      // No operator token: the session id, this requester's only credential, is shown shortened.
      expect(task.owner.session).toBe(`${peer.sessionId!.slice(0, 8)}…`);
      await events.next((f) => f.event === 'upsert' && JSON.parse(f.data).task.key === task.key && JSON.parse(f.data).task.statusMessage === 'step 1/10');
      await peer.client.experimental.tasks.cancelTask(id);
      const cancelled = await events.next((f) => f.event === 'upsert' && JSON.parse(f.data).task.key === task.key && JSON.parse(f.data).task.status === 'cancelled');
      expect(JSON.parse(cancelled.data).entry).toMatchObject({ event: 'task.cancel' });
      const detail = (await getJson(`${base}/api/tasks/${task.key}`)).body;
      expect(detail.timeline.map((e: { status: string }) => e.status)).toEqual(expect.arrayContaining(['submitted', 'working', 'cancelled']));
    } finally {
      events.close();
      await peer.close();
      await server!.close();
    }
  });

  it('should require the printed token with --inspect-host 0.0.0.0, and show results with --inspect-results', async () => {
    const url = await start(['--inspect-host', '0.0.0.0', '--inspect-results']);
    const match = /^http:\/\/0\.0\.0\.0:(\d+)\/\?token=([A-Za-z0-9_-]+)$/.exec(url);
    expect(match, url).not.toBeNull();
    const base = `http://127.0.0.1:${match![1]}`;
    const token = match![2]!;
    expect((await getJson(`${base}/api/tasks`)).status).toBe(401);
    peer = await connectSdkClientTo(server!);
    const id = await createTask(peer.client, 'sleep', { ms: 5 });
    const task = await until('completed sleep', async () => ((await getJson(`${base}/api/tasks`, { authorization: `Bearer ${token}` })).body.tasks as ObservedTask[]).find((t) => t.taskId === id && t.status === 'completed'));
    const detail = (await getJson(`${base}/api/tasks/${task.key}?token=${token}`)).body;
    expect(detail.outcome.result).toEqual({ content: [{ type: 'text', text: 'slept 5 ms' }] });
  });

  it('should refuse inspector flags without --inspect', async () => {
    const run = await runCli(['serve', '--http', '0', '--inspect-results']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--inspect-results needs --inspect PORT');
  });
});

describe('mcp-tasks serve --inspect on other transports and backends', () => {
  it('should show the tasks of a stdio requester', async () => {
    const peer = await connectCustomSdkStdio(new Client({ name: 'inspector-stdio', version: '0' }), ['--inspect', '0']);
    try {
      const url = await until('the inspector log line', async () => inspectorUrlFrom(peer.stderr()));
      const id = await createTask(peer.client, 'sleep', { ms: 5 });
      const task = await until('the stdio task', async () => (await listed(url.slice(0, -1))).find((t) => t.taskId === id && t.status === 'completed'));
      expect(task).toMatchObject({ label: 'sleep', owner: { session: expect.stringMatching(/^[0-9a-f]{8}…$/), principal: null } });
    } finally {
      await peer.close();
    }
  });

  it('should show the tasks of a NATS node (role both) with its node name', async () => {
    await using nats = await startNatsServer({ jetstream: true });
    const server = await spawnHttpServer(['--nats', nats.url, '--nats-prefix', freshPrefix('insp'), '--node-id', 'inspected-node', '--inspect', '0']);
    let peer: SdkPeer | undefined;
    try {
      const base = (await until('the inspector log line', async () => inspectorUrlFrom(server.stderr()))).slice(0, -1);
      peer = await connectSdkClientTo(server);
      const id = await createTask(peer.client, 'long_job', { seconds: 30 });
      const task = await until('the long_job at step 1', async () => (await listed(base)).find((t) => t.taskId === id && t.statusMessage === 'step 1/10'));
      expect(task).toMatchObject({ status: 'working', node: 'inspected-node', owner: { session: `${peer.sessionId!.slice(0, 8)}…` } });
      await peer.client.experimental.tasks.cancelTask(id);
      await until('the cancel', async () => (await listed(base)).find((t) => t.taskId === id && t.status === 'cancelled'));
    } finally {
      await peer?.close();
      await server.close();
    }
  });
});

describe('attachInspector operators', () => {
  it('should refuse every action with 403 saying how to configure operators when none are, and offer none', async () => {
    const env = await embedded();
    try {
      const id = await createTask(env.client, 'long_job', { seconds: 30 });
      const task = await taskWithId(env.base, id);
      const res = await fetch(`${env.base}/api/tasks/${task.key}/cancel`, { method: 'POST', headers: { authorization: 'Bearer anything' } });
      expect(res.status).toBe(403);
      expect(((await res.json()) as { error: string }).error).toContain('--inspect-operator TOKEN=NAME');
      // Signing in says the same: no token would do.
      const operator = await getJson(`${env.base}/api/operator`, { authorization: 'Bearer anything' });
      expect(operator.status).toBe(403);
      expect(operator.body.error).toContain('--inspect-operator TOKEN=NAME');
      const noKey = await fetch(`${env.base}/api/tasks//cancel`, { method: 'POST', headers: { authorization: 'Bearer anything' } });
      expect(noKey.status).toBe(400);
      expect(((await noKey.json()) as { error: string }).error).toContain('no task key');
      expect((await getJson(`${env.base}/api/tasks`)).body.actions).toBe(false);
      expect((await getJson(`${env.base}/api/tasks/${task.key}`, { authorization: 'Bearer anything' })).body.actions).toEqual([]);
      expect((await env.runtime.get(id, (await env.runtime.observe().list()).find((t) => t.taskId === id)!.owner)).status).toBe('working');
    } finally {
      await env.close();
    }
  });

  it("should not take the read token as an operator's, let an operator's token read, and write the audit line", async () => {
    const lines: Record<string, unknown>[] = [];
    const audit = capturingLogger(({ fields }) => void lines.push(fields));
    const env = await embedded({ host: '0.0.0.0', token: 'reader', operators: { 'op-1': 'alice' }, audit });
    const { client, base } = env;
    try {
      const id = await createTask(client, 'long_job', { seconds: 30 });
      const task = await until('listed', async () => ((await getJson(`${base}/api/tasks?taskId=${id}`, { authorization: 'Bearer op-1' })).body.tasks as ObservedTask[])[0]);
      expect((await getJson(`${base}/api/tasks`, { authorization: 'Bearer reader' })).body.actions).toBe(true);
      const asReader = await fetch(`${base}/api/tasks/${task.key}/cancel`, { method: 'POST', headers: { authorization: 'Bearer reader' } });
      expect(asReader.status).toBe(401);
      expect((await getJson(`${base}/api/operator`, { authorization: 'Bearer reader' })).status).toBe(401);
      expect((await getJson(`${base}/api/tasks/${task.key}?token=reader`)).body.actions).toEqual([]);
      // An operator's token reads as a Bearer header, never from the URL (a URL is copied and logged, and that token acts).
      expect((await getJson(`${base}/api/tasks?token=op-1`)).status).toBe(401);
      expect((await getJson(`${base}/api/tasks?token=reader`)).status).toBe(200);
      const done = await fetch(`${base}/api/tasks/${task.key}/cancel`, { method: 'POST', headers: { authorization: 'Bearer op-1' } });
      expect(done.status).toBe(200);
      expect((await client.experimental.tasks.getTask(id)).status).toBe('cancelled');
      expect(lines).toEqual([expect.objectContaining({ event: 'operator.cancel', operator: 'alice', taskId: id, taskKey: task.key, label: 'long_job', node: 'local' })]);
    } finally {
      await env.close();
    }
  });

  it('should refuse an operator token equal to the read token, an empty one, and operators on a runtime that cannot cancel', async () => {
    const runtime = createTaskRuntime();
    try {
      await expect(attachInspector(runtime, { port: 0, token: 'same', operators: { same: 'alice' } })).rejects.toThrow(/differ from the inspector's read token/);
      await expect(attachInspector(runtime, { port: 0, operators: { '': 'alice' } })).rejects.toThrow(/non-empty token and name/);
      await expect(attachInspector(runtime, { port: 0, operators: { tok: ' ' } })).rejects.toThrow(/non-empty token and name/);
      await expect(attachInspector({ observe: () => runtime.observe() }, { port: 0, operators: { tok: 'alice' } })).rejects.toThrow(/runtime.cancel/);
      await expect(attachInspector(runtime, { port: 0, pageSize: 501 })).rejects.toThrow(/pageSize/);
    } finally {
      await runtime.dispose();
    }
  });
});

describe('mcp-tasks serve --inspect-operator', () => {
  it('should refuse a malformed operator, one equal to --inspect-token, and the flag without --inspect, naming the flag', async () => {
    const malformed = await runCli(['serve', '--http', '0', '--inspect', '0', '--inspect-operator', 'no-equals-sign']);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain('--inspect-operator expects TOKEN=NAME');
    const same = await runCli(['serve', '--http', '0', '--inspect', '0', '--inspect-token', 'same-token', '--inspect-operator', 'same-token=alice']);
    expect(same.code).toBe(2);
    expect(same.stderr).toContain('--inspect-operator: the token of inspector operator');
    const stray = await runCli(['serve', '--http', '0', '--inspect-operator', 'tok=alice']);
    expect(stray.code).toBe(2);
    expect(stray.stderr).toContain('--inspect-operator needs --inspect PORT');
    // A requester holding an inspector token would act on, or read, every other requester's tasks.
    const requester = await runCli(['serve', '--http', '0', '--auth-token', 'shared=carol', '--inspect', '0', '--inspect-operator', 'shared=alice']);
    expect(requester.code).toBe(2);
    expect(requester.stderr).toContain('--inspect-operator: a token must differ from every --auth-token: a requester is not an operator');
    const reader = await runCli(['serve', '--http', '0', '--auth-token', 'shared=carol', '--inspect', '0', '--inspect-token', 'shared']);
    expect(reader.code).toBe(2);
    expect(reader.stderr).toContain('--inspect-token must differ from every --auth-token');
    const empty = await runCli(['serve', '--http', '0', '--inspect', '']);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain("--inspect expects a port number, got ''");
  });

  it('should name MCP_TASKS_INSPECT_OPERATORS, not the flag, for a bad pair the variable gave', async () => {
    const previous = process.env['MCP_TASKS_INSPECT_OPERATORS'];
    process.env['MCP_TASKS_INSPECT_OPERATORS'] = 'garbage';
    try {
      const run = await runCli(['serve', '--http', '0', '--inspect', '0']);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("MCP_TASKS_INSPECT_OPERATORS expects TOKEN=NAME, got '***bage'");
    } finally {
      if (previous === undefined) delete process.env['MCP_TASKS_INSPECT_OPERATORS'];
      else process.env['MCP_TASKS_INSPECT_OPERATORS'] = previous;
    }
  });

  it("should hide the question of an ask_name task without --inspect-results, and take operators from MCP_TASKS_INSPECT_OPERATORS", async () => {
    const previous = process.env['MCP_TASKS_INSPECT_OPERATORS'];
    process.env['MCP_TASKS_INSPECT_OPERATORS'] = 'env-op=bob';
    let server: HttpServerProcess | undefined;
    try {
      server = await spawnHttpServer(['--inspect', '0']);
    } finally {
      if (previous === undefined) delete process.env['MCP_TASKS_INSPECT_OPERATORS'];
      else process.env['MCP_TASKS_INSPECT_OPERATORS'] = previous;
    }
    const asker = await attachInteractiveHttpWire(server.url, () => server.stderr(), { elicitation: {} });
    try {
      const base = (await until('the inspector log line', async () => inspectorUrlFrom(server.stderr()))).slice(0, -1);
      const { taskId } = await create2025(asker, 'ask_name', {});
      const detail = await until('the question', async () => {
        const task = ((await getJson(`${base}/api/tasks?taskId=${taskId}`)).body.tasks as ObservedTask[])[0];
        const body = task && (await getJson(`${base}/api/tasks/${task.key}`)).body;
        return body?.inputs.length > 0 ? body : undefined;
      });
      expect(detail.inputs).toEqual([{ inputId: expect.any(String), method: 'elicitation/create', kind: 'elicitation', redacted: true }]);
      expect(JSON.stringify(detail)).not.toContain('What is your name?');
      expect(await getJson(`${base}/api/operator`, { authorization: 'Bearer env-op' })).toEqual({ status: 200, body: { name: 'bob', actions: ['cancel'] } });
      // Without --audit given, the node's audit goes to stderr: the operator's line is among them.
      const cancelled = await fetch(`${base}/api/tasks/${detail.task.key}/cancel`, { method: 'POST', headers: { authorization: 'Bearer env-op' } });
      expect(cancelled.status).toBe(200);
      await until('the audit line', async () => (server.stderr().includes('"operator.cancel"') && server.stderr().includes('"operator":"bob"') ? true : undefined));
    } finally {
      await asker.close();
      await server.close();
    }
  });
});
