/**
 * `TaskClient` against the real server CLI, in both dialects: results with status callbacks,
 * cancel, tool errors per dialect, the SEP-1686 fallback for a tool that refuses tasks, and
 * resuming a task from a new client on the same Streamable HTTP session after the first dropped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  TaskCancelledError,
  TaskClient,
  TaskFailedError,
  TaskProtocolError,
  type RequesterTask,
  type TaskDialect,
} from '../../adapters/mcp-client/index.js';
import { CLI_PATH, REPO_ROOT, assertCliBuilt, spawnHttpServer, type HttpServerProcess } from './harness/process.js';
import { connectSdkStdio, type SdkPeer } from './harness/sdk-client.js';
import { expectPollInterval } from './harness/poll-interval.js';

const FLAGS = ['--poll-frequency', '100'];
const DIALECTS: readonly TaskDialect[] = ['sep-1686', '2025-11-25'];
const textOf = (result: { content: unknown[] }): unknown => (result.content[0] as { text?: unknown } | undefined)?.text;

async function connectHttp(url: string, sessionId?: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(url), sessionId === undefined ? {} : { sessionId });
  const client = new Client({ name: 'task-client-test', version: '0.0.0' }, { capabilities: {} });
  await client.connect(transport);
  return { client, transport };
}

describe.each(DIALECTS)('TaskClient (%s) over stdio', (dialect) => {
  let peer: SdkPeer;
  let tasks: TaskClient;

  beforeAll(async () => {
    peer = await connectSdkStdio(FLAGS);
    tasks = new TaskClient(peer.client, { dialect, pollFrequency: 100 });
  });
  afterAll(async () => {
    tasks.dispose();
    await peer.close();
  });

  it('should run sleep as a task and report its statuses to onTaskStatus', async () => {
    const seen: RequesterTask[] = [];
    const pending = tasks.beginCallTool({ name: 'sleep', arguments: { ms: 500 } });
    const result = await pending.result({ onTaskStatus: (t) => seen.push(t) });
    expect(textOf(result)).toBe('slept 500 ms');
    const taskId = await pending.taskId;
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((t) => t.taskId === taskId)).toBe(true);
    expect(seen.map((t) => t.status)).toContain('working');
    // The server's suggestion for the young task: the rule under its --poll-frequency.
    expectPollInterval(seen[0]?.pollFrequency, 100, { status: seen[0]?.status });
  });

  it('should stop waiting on abort without stopping the task, which can still be awaited', async () => {
    const pending = tasks.beginCallTool({ name: 'sleep', arguments: { ms: 400 } });
    const aborted = await pending.result({ signal: AbortSignal.timeout(50) }).catch((e: unknown) => e);
    expect(aborted).toMatchObject({ name: 'TaskClientError', code: 'aborted' });
    expect(textOf(await pending.result())).toBe('slept 400 ms');
  });

  it('should cancel a running long_job and reject with TaskCancelledError', async () => {
    const pending = tasks.beginCallTool({ name: 'long_job', arguments: { seconds: 5 } });
    const messages: (string | null)[] = [];
    const outcome = pending
      .result({
        onTaskStatus: (t) => {
          if (t.status === 'working') messages.push(t.statusMessage);
          if (t.status === 'working') pending.cancel('test');
        },
      })
      .then(
        () => 'resolved',
        (e: unknown) => e,
      );
    const error = await outcome;
    expect(error).toBeInstanceOf(TaskCancelledError);
    expect((error as TaskCancelledError).code).toBe('task_cancelled');
    expect(pending.task?.status).toBe('cancelled');
    // The task is announced before its work starts, so a working status may carry no message yet.
    expect(messages.length).toBeGreaterThan(0);
    expect(messages.every((m) => m === null || /^step \d+\/10$/.test(m))).toBe(true);
    // The receiver agrees.
    const again = await new TaskClient(peer.client, { dialect }).resume(await pending.taskId).result().catch((e: unknown) => e);
    expect(again).toBeInstanceOf(TaskCancelledError);
  });

  it(`should report the fail tool per dialect (${dialect === 'sep-1686' ? 'completed with isError' : 'failed task'})`, async () => {
    const pending = tasks.beginCallTool({ name: 'fail', arguments: { message: 'boom' } });
    if (dialect === 'sep-1686') {
      const result = await pending.result();
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe('boom');
    } else {
      const error = await pending.result().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TaskFailedError);
      expect((error as TaskFailedError).task?.status).toBe('failed');
    }
  });

  if (dialect === 'sep-1686') {
    it('should fall back to the direct response for echo (task metadata ignored, no created, no polling)', async () => {
      const pending = tasks.beginCallTool({ name: 'echo', arguments: { text: 'hi' } });
      const statuses: string[] = [];
      const result = await pending.result({ onTaskStatus: (t) => statuses.push(t.status) });
      expect(textOf(result)).toBe('hi');
      expect(pending.task).toBeNull();
      expect(statuses).toEqual([]);
    });
  } else {
    it('should reject echo (task support forbidden) with a TaskProtocolError and no task id', async () => {
      const pending = tasks.beginCallTool({ name: 'echo', arguments: { text: 'hi' } });
      const error = await pending.result().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TaskProtocolError);
      expect((error as TaskProtocolError).code).toBe('request_failed');
      expect((error as TaskProtocolError).rpcCode).toBe(-32601);
      await expect(pending.taskId).rejects.toMatchObject({ code: 'no_task' });
    });
  }
});

describe('TaskClient with a tool that asks the requester (elicitation)', () => {
  let client: Client;
  let transport: StdioClientTransport;
  let pid: number | null = null;
  const asked: unknown[] = [];

  beforeAll(async () => {
    assertCliBuilt();
    transport = new StdioClientTransport({ command: process.execPath, args: [CLI_PATH, 'serve', '--stdio', ...FLAGS], cwd: REPO_ROOT, stderr: 'pipe' });
    client = new Client({ name: 'task-client-elicit', version: '0.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params._meta);
      return { action: 'accept', content: { name: 'Ada' } };
    });
    await client.connect(transport);
    pid = transport.pid;
  });
  afterAll(async () => {
    await client.close();
    if (pid !== null) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });

  it.each(DIALECTS)('should answer the input request of a %s task and get the result', async (dialect) => {
    const seen: string[] = [];
    const pending = new TaskClient(client, { dialect, pollFrequency: 100 }).beginCallTool({ name: 'ask_name', arguments: {} });
    const result = await pending.result({ onTaskStatus: (t) => seen.push(t.status) });
    expect(textOf(result)).toBe('Hello, Ada');
    expect(asked.length).toBeGreaterThan(0);
    if (dialect === '2025-11-25') expect(seen).toContain('input_required');
  });
});

describe('TaskClient.resume over Streamable HTTP', () => {
  let server: HttpServerProcess;

  beforeAll(async () => {
    server = await spawnHttpServer(FLAGS);
  });
  afterAll(async () => {
    await server.close();
  });

  it.each(DIALECTS)('should resume a %s task from a new client on the same session after the first dropped', async (dialect) => {
    const first = await connectHttp(server.url);
    const sessionId = first.transport.sessionId;
    expect(sessionId).toBeDefined();
    const pending = new TaskClient(first.client, { dialect, pollFrequency: 100 }).beginCallTool({ name: 'sleep', arguments: { ms: 1500 } });
    let sawWorking!: () => void;
    const following = new Promise<void>((resolve) => (sawWorking = resolve));
    const firstOutcome = pending.result({ onTaskStatus: (t) => void (t.status === 'working' && sawWorking()) }).then(
      () => 'resolved',
      (e: unknown) => e,
    );
    const taskId = await pending.taskId;
    // Mid-flight: the first client has the task as working.
    await following;
    // Drop the connection without DELETE: the session lives on.
    await first.client.close();
    const dropped = await firstOutcome;
    expect(dropped).toBeInstanceOf(TaskProtocolError);
    expect((dropped as TaskProtocolError).code).toBe('poll_failed');

    const second = await connectHttp(server.url, sessionId);
    try {
      const seen: string[] = [];
      const result = await new TaskClient(second.client, { dialect }).resume(taskId).result({ onTaskStatus: (t) => seen.push(t.status) });
      expect(textOf(result)).toBe('slept 1500 ms');
      expect(seen).toContain('working');
    } finally {
      await second.client.close();
    }
  });
});
