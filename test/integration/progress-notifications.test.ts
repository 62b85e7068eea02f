/**
 * Progress of a task-augmented request (`ctx.progress`), black-box through `mcp-tasks serve` with
 * a real SDK v1 client that asks for it the SDK's way (`onprogress` adds a `progressToken`):
 * `long_job` reports `i` of 10 at each step, and the requester receives increasing
 * `notifications/progress` with total 10 on SEP-1686 (while the tools/call is open) and on
 * 2025-11-25 (after the CreateTaskResult answered the request: the token stays valid for the
 * task's life), over stdio and Streamable HTTP, on memory, on a NATS front + worker (the worker
 * runs the work, the front holds the request), and on the SDK v2 embedding (`serve --sdk v2`).
 * The 2026-07-28 wire has no progress notifications: a running task shows its progress in its
 * status message (`4/10 — step 4/10`).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, CreateTaskResultSchema, GetTaskResultSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { connectSdkNatsHttp, startFrontWorker, stopSharedNats } from './harness/nats-front-worker.js';
import { extWire, isTerminal } from './harness/ext-wire.js';
import { spawnHttpServer } from './harness/process.js';
import { connectSdkHttp, connectSdkStdio, type ConnectSdk, type SdkPeer } from './harness/sdk-client.js';
import { sleep } from './harness/json.js';

afterAll(stopSharedNats);

/** Polls until `done()` or the deadline; the last check decides. */
async function until(done: () => boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) await sleep(25);
}

/** SEP-1686: the task-augmented call stays open; its progress comes over it before the answer. */
async function sep1686(client: Client, seen: Progress[]): Promise<void> {
  const result = await client.request(
    { method: 'tools/call', params: { name: 'long_job', arguments: { seconds: 1 }, _meta: { 'modelcontextprotocol.io/task': { taskId: randomUUID() } } } },
    CallToolResultSchema,
    { onprogress: (p) => seen.push(p), timeout: 30_000 },
  );
  expect(result.content[0]).toEqual({ type: 'text', text: 'long_job done in 1 s' });
}

/** 2025-11-25: answered at once with the task; progress follows for the task's life. */
async function spec2025(client: Client, seen: Progress[], wait: 'poll' | 'result'): Promise<void> {
  const created = await client.request({ method: 'tools/call', params: { name: 'long_job', arguments: { seconds: 1 }, task: {} } }, CreateTaskResultSchema, { onprogress: (p) => seen.push(p) });
  const taskId = created.task.taskId;
  if (wait === 'result') {
    // Blocks until the task ends; meanwhile its progress travels over this call's stream.
    await client.request({ method: 'tasks/result', params: { taskId } }, CallToolResultSchema, { timeout: 30_000 });
  } else {
    let status = created.task.status;
    for (let i = 0; i < 600 && !['completed', 'failed', 'cancelled'].includes(status); i++) {
      await sleep(50);
      status = (await client.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema)).status;
    }
    expect(status).toBe('completed');
  }
  // Notifications and answers travel on different streams over HTTP: the last may come just after.
  await until(() => seen.at(-1)?.progress === 10);
}

/**
 * Increasing, each with total 10 and its own step's message, the last step included, and most
 * steps seen. Not necessarily every one: reports made while one is held (before the
 * CreateTaskResult has left, or behind a NATS worker's write in flight) are coalesced, the latest
 * winning, and a loaded machine makes that happen at 100 ms a step.
 */
function expectSteps(seen: readonly Progress[]): void {
  const values = seen.map((p) => p.progress);
  expect(values.every((v, i) => i === 0 || v > values[i - 1]!), `not increasing: ${values.join(',')}`).toBe(true);
  expect(seen.every((p) => p.total === 10 && p.message === `step ${p.progress}/10`), JSON.stringify(seen)).toBe(true);
  expect(values.at(-1)).toBe(10);
  expect(values.length, values.join(',')).toBeGreaterThanOrEqual(3);
}

describe.each([
  ['stdio, memory', connectSdkStdio, []],
  ['Streamable HTTP, memory', connectSdkHttp, []],
  ['NATS front + worker (Streamable HTTP)', connectSdkNatsHttp, []],
] as [string, ConnectSdk, string[]][])('notifications/progress of long_job over %s', (_name, connect, flags) => {
  const withPeer = async (run: (peer: SdkPeer) => Promise<void>): Promise<void> => {
    const peer = await connect(flags);
    try {
      await run(peer);
    } catch (error) {
      throw new Error(`${String(error)}\n--- server stderr ---\n${peer.stderr()}`, { cause: error });
    } finally {
      await peer.close();
    }
  };

  for (const [what, follow] of [
    ['over the open SEP-1686 request, before its answer', sep1686],
    ['of a 2025-11-25 task after the CreateTaskResult, to a requester that polls', (client, seen) => spec2025(client, seen, 'poll')],
    ['of a 2025-11-25 task to a requester waiting in tasks/result', (client, seen) => spec2025(client, seen, 'result')],
  ] as [string, (client: Client, seen: Progress[]) => Promise<void>][]) {
    it(`should send each step ${what}`, async () => {
      await withPeer(async ({ client }) => {
        const seen: Progress[] = [];
        await follow(client, seen);
        expectSteps(seen);
      });
    }, 60_000);
  }
});

describe('notifications/progress on the SDK v2 embedding (serve --sdk v2, 2025-11-25)', () => {
  for (const [name, connect] of [
    ['stdio', connectSdkStdio],
    ['Streamable HTTP', connectSdkHttp],
  ] as const) {
    it(`should send each step of a 2025-11-25 task over ${name}`, async () => {
      const peer = await connect(['--sdk', 'v2']);
      try {
        const seen: Progress[] = [];
        await spec2025(peer.client, seen, 'poll');
        expectSteps(seen);
      } finally {
        await peer.close();
      }
    }, 60_000);
  }
});

describe('progress on the 2026-07-28 wire (in the status message)', () => {
  for (const [name, start] of [
    ['serve, memory', () => spawnHttpServer()],
    ['serve --sdk v2, memory', () => spawnHttpServer(['--sdk', 'v2'])],
    ['NATS front + worker', () => startFrontWorker()],
  ] as const) {
    it(`should show each step as it runs, as "i/10 — step i/10", and the plain outcome once it ended (${name})`, async () => {
      const server = await start();
      try {
        const ext = extWire(server.url);
        const task = await ext.call('long_job', { seconds: 1 });
        const shown = new Set<string>();
        const last = await ext.until(String(task['taskId']), (t) => {
          if (!isTerminal(t)) shown.add(String(t['statusMessage']));
          return isTerminal(t);
        });
        const steps = [...shown].filter((m) => m !== 'undefined');
        expect(steps.length, [...shown].join(' | ')).toBeGreaterThanOrEqual(3);
        for (const m of steps) expect(m).toMatch(/^(\d+)\/10 — step \1\/10$/);
        expect(last['status']).toBe('completed');
        expect(last['statusMessage']).toBe('step 10/10');
      } finally {
        await server.close();
      }
    }, 60_000);
  }
});
