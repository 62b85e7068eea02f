/**
 * `serve --task-tools`: a host that declared no task support (a plain SDK client, as most chat
 * hosts are) calls task-capable tools plainly and gets a task id at once, then follows the task
 * with `task_status`, `task_result`, `task_cancel` and `task_respond`, bound to its own session.
 * Real server processes (SDK v1 and v2 serving, memory and NATS), real SDK v1 and v2 clients.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollUntil } from './harness/cluster.js';
import { startNatsServer, type NatsServer } from './harness/nats-server.js';
import { spawnHttpServer, type HttpServerProcess } from './harness/process.js';

/** What a test needs of a connected client, whichever SDK line it is. */
/** The longer flows run where they add something (not again on NATS): not defined elsewhere, rather than skipped. */
function itWhen(run: boolean): (name: string, fn: () => Promise<void>, timeout?: number) => void {
  return run ? (name, fn, timeout) => it(name, fn, timeout) : () => undefined;
}

interface Host {
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<any>;
  listTools(): Promise<{ tools: any[] }>;
  close(): Promise<void>;
}

/** A plain SDK v1 client (or one declaring `capabilities`), on its own HTTP session (with `token`, authenticated). */
async function hostV1(url: string, capabilities: Record<string, unknown> = {}, token?: string): Promise<Host> {
  const client = new Client({ name: 'chat-host', version: '1.0.0' }, { capabilities });
  const requestInit = token === undefined ? undefined : { headers: { authorization: `Bearer ${token}` } };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), requestInit && { requestInit }));
  return client;
}

/** A plain SDK v2 client (the 2025-11-25 era, its default), on its own HTTP session. */
async function hostV2(url: string): Promise<Host> {
  const client = new ClientV2({ name: 'chat-host-v2', version: '1.0.0' }, { capabilities: {} });
  await client.connect(new TransportV2(new URL(url)));
  return client;
}

const TASK_TOOLS = ['task_status', 'task_result', 'task_cancel', 'task_respond'];
const textOf = (result: any): string => (result.content as { type: string; text: string }[]).map((c) => c.text).join('\n');

/** Calls a tool that starts a task and returns the task id it answered with. */
async function start(host: Host, name: string, args: Record<string, unknown>): Promise<string> {
  const answer = await host.callTool({ name, arguments: args });
  expect(answer.isError ?? false).toBe(false);
  const { taskId } = answer.structuredContent as { taskId: string };
  expect(textOf(answer)).toContain(`Started task ${taskId} (${name})`);
  expect(textOf(answer)).toContain(`call task_status with {"taskId":"${taskId}"}`);
  return taskId;
}

/** Polls `task_status` (bounded) until the task shows `status`. */
function statusUntil(host: Host, taskId: string, status: string, server: () => HttpServerProcess): Promise<any> {
  return pollUntil(`task ${taskId} ${status}`, () => host.callTool({ name: 'task_status', arguments: { taskId } }), (r) => r.structuredContent?.status === status, {
    timeoutMs: 20_000,
    intervalMs: 100,
    diagnostics: () => server().stderr(),
  });
}

interface Setup {
  readonly name: string;
  /** The serve flags, given the NATS URL when the setup runs on NATS. */
  readonly flags: (natsUrl: string) => string[];
  readonly nats?: boolean;
  readonly connect: (url: string) => Promise<Host>;
  /** Every flow, or the core one only (a second backend). */
  readonly full: boolean;
}

let nats: NatsServer | undefined;
const setups: Setup[] = [
  { name: 'serve --task-tools (SDK v1)', flags: () => ['--task-tools'], connect: (url) => hostV1(url), full: true },
  { name: 'serve --sdk v2 --task-tools, an SDK v2 client', flags: () => ['--sdk', 'v2', '--task-tools'], connect: hostV2, full: true },
  { name: 'serve --nats --task-tools (SDK v1)', nats: true, flags: (url) => ['--nats', url, '--nats-prefix', 'hosttools', '--task-tools'], connect: (url) => hostV1(url), full: false },
];

describe.each(setups)('$name', (setup) => {
  const { flags, connect, full } = setup;
  let server: HttpServerProcess;
  let host: Host;
  beforeAll(async () => {
    if (setup.nats === true) nats ??= await startNatsServer();
    server = await spawnHttpServer(flags(nats?.url ?? ''));
    host = await connect(server.url);
  }, 30_000);
  afterAll(async () => {
    await host?.close().catch(() => undefined);
    await server?.close();
  });

  it('should list the task-capable tools as plain ones, and the four task tools', async () => {
    const { tools } = await host.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['long_job', 'sleep', 'ask_name', 'echo', ...TASK_TOOLS]));
    const longJob = tools.find((t) => t.name === 'long_job');
    // Listed as `required`, a careful host would refuse to call it plainly.
    expect(longJob.execution).toBeUndefined();
    expect(longJob.description).toContain('answers at once with a task id');
  });

  it('should start long_job at once, follow it to completed and collect its result', async () => {
    const taskId = await start(host, 'long_job', { seconds: 1 });
    await statusUntil(host, taskId, 'completed', () => server);
    const result = await host.callTool({ name: 'task_result', arguments: { taskId } });
    expect(textOf(result)).toBe('long_job done in 1 s');
    expect(result.isError ?? false).toBe(false);
  });

  it("should show ask_name's question, take the answer through task_respond and give its result", async () => {
    const taskId = await start(host, 'ask_name', {});
    const asking = await statusUntil(host, taskId, 'input_required', () => server);
    expect(textOf(asking)).toContain('What is your name?');
    expect(asking.structuredContent.inputRequests[0]).toMatchObject({ method: 'elicitation/create', params: { message: 'What is your name?' } });
    const answered = await host.callTool({ name: 'task_respond', arguments: { taskId, response: { action: 'accept', content: { name: 'Ada' } } } });
    expect(answered.isError ?? false).toBe(false);
    // Bounded: task_result waits at most waitMs, then says it is not done yet.
    const result = await pollUntil('Hello, Ada', () => host.callTool({ name: 'task_result', arguments: { taskId, waitMs: 5_000 } }), (r) => textOf(r) === 'Hello, Ada', { timeoutMs: 20_000 });
    expect(result.isError ?? false).toBe(false);
  });

  itWhen(full)('should cancel a task with task_cancel', async () => {
    const taskId = await start(host, 'long_job', { seconds: 30 });
    const cancelled = await host.callTool({ name: 'task_cancel', arguments: { taskId } });
    expect(cancelled.isError ?? false).toBe(false);
    await statusUntil(host, taskId, 'cancelled', () => server);
    const result = await host.callTool({ name: 'task_result', arguments: { taskId } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/ended cancelled/);
  });

  itWhen(full)('should say a task is not done yet, and keep a failing tool\'s own isError result', async () => {
    const running = await start(host, 'long_job', { seconds: 30 });
    const early = await host.callTool({ name: 'task_result', arguments: { taskId: running } });
    expect(textOf(early)).toContain('is not done yet');
    expect(early.structuredContent.status).toBe('working');
    await host.callTool({ name: 'task_cancel', arguments: { taskId: running } });

    const failing = await start(host, 'fail', { message: 'no luck' });
    await statusUntil(host, failing, 'failed', () => server);
    const result = await host.callTool({ name: 'task_result', arguments: { taskId: failing } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('no luck');
  });

  itWhen(full)("should never let another session reach the task, nor tell it exists", async () => {
    const taskId = await start(host, 'long_job', { seconds: 30 });
    const other = await connect(server.url);
    try {
      for (const name of ['task_status', 'task_result', 'task_cancel', 'task_respond']) {
        const args = name === 'task_respond' ? { taskId, response: { action: 'accept', content: {} } } : { taskId };
        const refused = await other.callTool({ name, arguments: args });
        expect(refused.isError, name).toBe(true);
        expect(textOf(refused)).toBe(`No task ${taskId} of yours (no such task, or it expired).`);
      }
      // The same answer as for an id nobody has: nothing tells the two apart.
      const unknown = await other.callTool({ name: 'task_status', arguments: { taskId: 'no-such-task' } });
      expect(textOf(unknown)).toBe('No task no-such-task of yours (no such task, or it expired).');
    } finally {
      await other.close();
    }
    const still = await host.callTool({ name: 'task_status', arguments: { taskId } });
    expect(still.structuredContent.status).toBe('working');
    await host.callTool({ name: 'task_cancel', arguments: { taskId } });
  });

  itWhen(full)('should leave a client that declared tasks the protocol as it is', async () => {
    const tasksHost = await hostV1(server.url, { tasks: { list: {}, cancel: {}, requests: {} } });
    try {
      const { tools } = await tasksHost.listTools();
      const names = tools.map((t) => t.name);
      expect(names).toContain('long_job');
      for (const name of TASK_TOOLS) expect(names).not.toContain(name);
      expect(tools.find((t) => t.name === 'long_job').execution).toEqual({ taskSupport: 'required' });
      // A plain call runs plainly, as the protocol says; the task tools are unknown tools.
      await expect(tasksHost.callTool({ name: 'sleep', arguments: { ms: 1 } })).resolves.toMatchObject({ content: [{ type: 'text', text: 'slept 1 ms' }] });
      await expect(tasksHost.callTool({ name: 'task_status', arguments: { taskId: 'x' } })).rejects.toThrow(/-32602.*task_status/);
    } finally {
      await tasksHost.close();
    }
  });
});

describe('serve --task-tools with authenticated hosts', () => {
  let server: HttpServerProcess;
  beforeAll(async () => {
    server = await spawnHttpServer(['--task-tools', '--auth-token', 'tok-a=alice', '--auth-token', 'tok-b=bob']);
  }, 30_000);
  afterAll(() => server?.close());

  it("should bind the task to the principal, as the task methods do: alice's other session reaches it, bob does not", async () => {
    const [alice, aliceAgain, bob] = await Promise.all([hostV1(server.url, {}, 'tok-a'), hostV1(server.url, {}, 'tok-a'), hostV1(server.url, {}, 'tok-b')]);
    try {
      const taskId = await start(alice, 'long_job', { seconds: 30 });
      const refused = await bob.callTool({ name: 'task_cancel', arguments: { taskId } });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toBe(`No task ${taskId} of yours (no such task, or it expired).`);
      const seen = await aliceAgain.callTool({ name: 'task_status', arguments: { taskId } });
      expect(seen.structuredContent).toMatchObject({ taskId, status: 'working' });
      await expect(aliceAgain.callTool({ name: 'task_cancel', arguments: { taskId } })).resolves.toMatchObject({ structuredContent: { status: 'cancelled' } });
    } finally {
      await Promise.allSettled([alice.close(), aliceAgain.close(), bob.close()]);
    }
  });
});

afterAll(async () => {
  await nats?.stop();
});
