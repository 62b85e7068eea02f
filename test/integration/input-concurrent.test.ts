/**
 * Two input requests pending at once (in-process server + SDK Client over InMemoryTransport).
 *
 * A custom tool sends two elicitations concurrently (`Promise.all([ctx.elicit(a), ctx.elicit(b)])`).
 * The client answers the first quickly and holds the second until the test releases it. The task
 * must stay `input_required` until BOTH are answered (SEP-1686 §4.4.4; 2025-11-25 "Input Required
 * Status"), then complete with both answers; in both dialects.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createTaskServer, type TaskToolDefinition } from '../../adapters/mcp-server/index.js';
import { createTaskRuntime, type TaskRuntime } from '../../runtime/index.js';
import { sleep, type Rec } from './harness/json.js';


const SEP_TASK = 'modelcontextprotocol.io/task';
const SEP_RELATED = 'modelcontextprotocol.io/related-task';
const RELATED_2025 = 'io.modelcontextprotocol/related-task';
const TERMINAL = ['completed', 'failed', 'cancelled'];
const Raw = z.looseObject({});


const FIRST = { message: 'First question?', requestedSchema: { type: 'object' as const, properties: { first: { type: 'string' as const } }, required: ['first'] } };
const SECOND = { message: 'Second question?', requestedSchema: { type: 'object' as const, properties: { second: { type: 'string' as const } }, required: ['second'] } };

/** Asks two things at once and reports both answers. */
const askTwoTool: TaskToolDefinition<Record<string, never>> = {
  name: 'ask_two',
  description: 'Sends two elicitations concurrently.',
  inputSchema: z.object({}),
  taskSupport: 'optional',
  run: async (_args, ctx) => {
    const [a, b] = await Promise.all([ctx.elicit(FIRST), ctx.elicit(SECOND)]);
    return { content: [{ type: 'text', text: `first=${String(a.content?.['first'])}; second=${String(b.content?.['second'])}` }] };
  },
};

interface Asked {
  readonly message: string;
  readonly meta: Rec | undefined;
  readonly at: number;
  answeredAt: number | undefined;
}

interface Harness {
  readonly client: Client;
  /** The server's runtime (in this process): what it has taken in is visible there. */
  readonly runtime: TaskRuntime;
  readonly asked: Asked[];
  /** Resolves when `n` elicitations have arrived. */
  arrived(n: number, timeoutMs?: number): Promise<void>;
  /** Lets the held second elicitation be answered. */
  releaseSecond(): void;
  /** Resolves when the first elicitation has been answered. */
  readonly firstAnswered: Promise<void>;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

/** Server (shared runtime) + a client that answers FIRST after 20 ms and SECOND when released. */
async function setup(): Promise<Harness> {
  const runtime = createTaskRuntime({ pollFrequency: 50 });
  cleanups.push(() => runtime.dispose());
  const server: Server = createTaskServer({ name: 'concurrent-input', version: '0' }, { runtime, tools: [askTwoTool] });
  const client = new Client({ name: 'concurrent-input-client', version: '0' }, { capabilities: { elicitation: {} } });

  const asked: Asked[] = [];
  let arrivalWaiters: { n: number; resolve: () => void }[] = [];
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let markFirstAnswered!: () => void;
  const firstAnswered = new Promise<void>((resolve) => (markFirstAnswered = resolve));

  client.setRequestHandler(ElicitRequestSchema, async (request): Promise<ElicitResult> => {
    const params = request.params as Rec;
    const meta = typeof params['_meta'] === 'object' && params['_meta'] !== null ? (params['_meta'] as Rec) : undefined;
    const entry: Asked = { message: String(params['message']), meta, at: Date.now(), answeredAt: undefined };
    asked.push(entry);
    const ready = arrivalWaiters.filter((w) => asked.length >= w.n);
    arrivalWaiters = arrivalWaiters.filter((w) => !ready.includes(w));
    for (const w of ready) w.resolve();
    if (entry.message === FIRST.message) {
      await sleep(20);
      entry.answeredAt = Date.now();
      setTimeout(markFirstAnswered, 0);
      return { action: 'accept', content: { first: 'alpha' } };
    }
    await released;
    entry.answeredAt = Date.now();
    return { action: 'accept', content: { second: 'beta' } };
  });

  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  cleanups.push(async () => {
    release();
    await client.close();
    await server.close();
  });

  return {
    client,
    runtime,
    asked,
    firstAnswered,
    releaseSecond: () => release(),
    arrived: (n, timeoutMs = 3_000) =>
      asked.length >= n
        ? Promise.resolve()
        : new Promise<void>((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error(`only ${asked.length} of ${n} elicitations arrived within ${timeoutMs} ms: ${JSON.stringify(asked)}`)), timeoutMs);
            arrivalWaiters.push({
              n,
              resolve: () => {
                clearTimeout(timer);
                resolve();
              },
            });
          }),
  };
}

async function statusOf(client: Client, taskId: string): Promise<string> {
  const task = await client.request({ method: 'tasks/get', params: { taskId } }, Raw);
  if (typeof task['status'] !== 'string') throw new Error(`tasks/get without status: ${JSON.stringify(task)}`);
  return task['status'];
}

async function pollUntil(client: Client, taskId: string, wanted: (s: string) => boolean, what: string, timeoutMs = 3_000): Promise<string[]> {
  const seen: string[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = await statusOf(client, taskId);
    seen.push(s);
    if (wanted(s)) return seen;
    if (Date.now() > deadline) throw new Error(`task ${taskId} not ${what} within ${timeoutMs} ms; seen ${JSON.stringify(seen)}`);
    await sleep(10);
  }
}

/** The owner of the tasks this client creates (the in-memory transport has no session). */
const OWNER = { session: null, principal: null };

function textOf(result: Rec): unknown {
  const content = result['content'];
  return Array.isArray(content) && typeof content[0] === 'object' && content[0] !== null ? (content[0] as Rec)['text'] : undefined;
}

/**
 * The common middle of both dialects: both elicitations arrive with the related-task key; after the
 * first is answered and while the second is held, the task stays input_required and the final
 * result is not out; then the second is released.
 */
async function checkHeldPhase(h: Harness, taskId: string, relatedKey: string, resultOut: () => boolean): Promise<void> {
  await h.arrived(2);
  expect(h.asked.map((a) => a.message).sort()).toEqual([FIRST.message, SECOND.message]);
  for (const a of h.asked) expect(a.meta?.[relatedKey], `${a.message} carries ${relatedKey}`).toEqual({ taskId });
  // Both were outstanding at the same time: the second arrived before the first was answered.
  const first = h.asked.find((a) => a.message === FIRST.message)!;
  const second = h.asked.find((a) => a.message === SECOND.message)!;
  expect(second.at, 'both elicitations are sent concurrently').toBeLessThanOrEqual(first.answeredAt ?? Number.POSITIVE_INFINITY);

  await h.firstAnswered;
  // The runtime has taken the first answer in (only the second is pending now), so whatever the
  // answer moves has moved: one of two answered, still input_required, poll after poll.
  await vi.waitFor(async () => expect((await h.runtime.pendingInputRequests(taskId, OWNER)).length).toBe(1), { timeout: 3_000, interval: 10 });
  const held: string[] = [];
  for (let i = 0; i < 5; i++) held.push(await statusOf(h.client, taskId));
  expect(held, 'input_required while one of two elicitations is unanswered').toEqual(held.map(() => 'input_required'));
  expect(second.answeredAt).toBeUndefined();
  expect(resultOut(), 'no final result while an elicitation is pending').toBe(false);

  h.releaseSecond();
  const after = await pollUntil(h.client, taskId, (s) => s !== 'input_required', 'out of input_required');
  expect(['working', 'completed']).toContain(after.at(-1));
}

describe('two concurrent elicitations from one task (in-process)', () => {
  it('SEP-1686: stays input_required until both are answered, then completes with both answers', async () => {
    const h = await setup();
    const taskId = 'concurrent-sep-1';
    let resultOut = false;
    const call = h.client
      .request({ method: 'tools/call', params: { name: 'ask_two', arguments: {}, _meta: { [SEP_TASK]: { taskId } } } }, Raw, { timeout: 10_000 })
      .finally(() => (resultOut = true));
    call.catch(() => undefined);
    await h.arrived(1);
    expect((await pollUntil(h.client, taskId, (s) => s !== 'working', 'input_required')).at(-1)).toBe('input_required');

    await checkHeldPhase(h, taskId, SEP_RELATED, () => resultOut);

    const result = await call;
    expect(textOf(result)).toBe('first=alpha; second=beta');
    expect((result['_meta'] as Rec | undefined)?.[SEP_RELATED]).toEqual({ taskId });
    expect((await pollUntil(h.client, taskId, (s) => TERMINAL.includes(s), 'terminal')).at(-1)).toBe('completed');
    expect(h.asked).toHaveLength(2);
  });

  it('2025-11-25: stays input_required until both are answered over tasks/result, then completes', async () => {
    const h = await setup();
    const created = await h.client.request({ method: 'tools/call', params: { name: 'ask_two', arguments: {}, task: { ttl: 60_000 } } }, Raw);
    const taskId = (created['task'] as Rec | undefined)?.['taskId'];
    if (typeof taskId !== 'string') throw new Error(`not a CreateTaskResult: ${JSON.stringify(created)}`);
    // The requester sees input_required first, then opens tasks/result.
    expect((await pollUntil(h.client, taskId, (s) => s !== 'working', 'input_required')).at(-1)).toBe('input_required');
    let resultOut = false;
    const final = h.client.request({ method: 'tasks/result', params: { taskId } }, Raw, { timeout: 10_000 }).finally(() => (resultOut = true));
    final.catch(() => undefined);

    await checkHeldPhase(h, taskId, RELATED_2025, () => resultOut);

    const result = await final;
    expect(textOf(result)).toBe('first=alpha; second=beta');
    expect((result['_meta'] as Rec | undefined)?.[RELATED_2025]).toEqual({ taskId });
    expect((await pollUntil(h.client, taskId, (s) => TERMINAL.includes(s), 'terminal')).at(-1)).toBe('completed');
    expect(h.asked).toHaveLength(2);
  });

  it('2025-11-25 via the SDK callToolStream: completes only after both answers and reports input_required', async () => {
    const h = await setup();
    const statuses: string[] = [];
    let taskId: string | undefined;
    let text: unknown;
    let error: unknown;
    const done = (async () => {
      for await (const m of h.client.experimental.tasks.callToolStream({ name: 'ask_two', arguments: {} }, undefined, { task: { ttl: 60_000 }, timeout: 10_000, signal: AbortSignal.timeout(8_000) })) {
        if (m.type === 'taskCreated') taskId = m.task.taskId;
        else if (m.type === 'taskStatus') statuses.push(m.task.status);
        else if (m.type === 'result') text = textOf(m.result);
        else error = m.error;
      }
    })();
    let finished = false;
    void done.finally(() => (finished = true));
    await h.arrived(2);
    if (taskId === undefined) throw new Error('callToolStream yielded no taskCreated');
    await checkHeldPhase(h, taskId, RELATED_2025, () => finished);
    await done;
    expect(error, String(error)).toBeUndefined();
    expect(text).toBe('first=alpha; second=beta');
    expect(statuses).toContain('input_required');
    expect(await statusOf(h.client, taskId)).toBe('completed');
  });
});
