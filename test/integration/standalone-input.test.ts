/**
 * A 2025-11-25 requester that polls tasks/get and keeps no tasks/result open (the official
 * ext-tasks requester) gets its task's questions on the session's standalone GET stream (SDK v1
 * embedding, one runtime, principal alice):
 * - sent into no stream (the transport drops it silently), a question is sent again at a later
 *   tasks/get once the stream is open; with the stream open, it comes after the grace;
 * - a question answered late (after its give-back) still counts; the copies left are withdrawn;
 * - a second question right after the first is answered: each asked once;
 * - followed from two connections of the principal: both carry it; once one answers, the other's
 *   copy is withdrawn;
 * - a connection that cannot take it (no elicitation declared) leaves it pending for one that can.
 */
import { afterEach, expect, it } from 'vitest';
import { createTaskRuntime, type TaskRuntime } from '../../runtime/index.js';
import { askTool, sleep, standaloneSession, until, type StandaloneSession } from './harness/standalone-session.js';

const ALICE = { session: null, principal: 'alice' };
let runtime: TaskRuntime;
const sessions: StandaloneSession[] = [];
afterEach(async () => {
  for (const s of sessions.splice(0)) await s.close();
  await runtime.dispose();
});

async function open(options: Parameters<typeof standaloneSession>[1]): Promise<StandaloneSession> {
  const s = await standaloneSession(runtime, options);
  sessions.push(s);
  return s;
}
async function createAsk(s: StandaloneSession): Promise<string> {
  const created = await s.post({ jsonrpc: '2.0', id: s.next(), method: 'tools/call', params: { name: 'ask', arguments: {}, task: { ttl: 60_000 } } });
  return created!['result'].task.taskId as string;
}
const getTask = (s: StandaloneSession, taskId: string) => s.post({ jsonrpc: '2.0', id: s.next(), method: 'tasks/get', params: { taskId } });
const answer = (s: StandaloneSession, id: unknown, name: string) => s.post({ jsonrpc: '2.0', id, result: { action: 'accept', content: { name } } });
const asked = (s: StandaloneSession, message?: string) => s.seen.filter((m) => m.method === 'elicitation/create' && (message === undefined || m.params.message === message));
const cancelled = (s: StandaloneSession) => s.seen.filter((m) => m.method === 'notifications/cancelled');

it('sends a question again once a GET stream is open, after one sent into no stream got no answer', async () => {
  runtime = createTaskRuntime();
  const a = await open({ tools: [askTool()], standaloneInput: { giveBackAfterMs: 400 }, stream: false });
  const taskId = await createAsk(a);
  // Polled with no GET stream open: past the grace, the question goes out unattached, into nothing.
  for (let i = 0; i < 4; i++) {
    expect((await getTask(a, taskId))!['result'].status).toBe('input_required');
    await sleep(200);
  }
  await a.openStream();
  // Polled at the pace a requester polls; a bounded wait for the question, not a fixed one.
  for (let i = 0; i < 25 && asked(a).length === 0; i++) {
    await getTask(a, taskId);
    await sleep(200);
  }
  expect(asked(a)).toHaveLength(1);
});

it('sends it on the GET stream after the grace when the stream is open before the question', async () => {
  runtime = createTaskRuntime();
  const a = await open({ tools: [askTool()] });
  const taskId = await createAsk(a);
  for (let i = 0; i < 25 && asked(a).length === 0; i++) {
    await getTask(a, taskId);
    await sleep(200);
  }
  expect(asked(a)).toHaveLength(1);
  await answer(a, asked(a)[0]!.id, 'Ada');
  expect(JSON.stringify((await runtime.waitForOutcome(taskId, ALICE, { timeout: 5_000 })).result)).toContain('Ada');
});

it('counts the answer to the first copy of a question given back, and withdraws the rest', async () => {
  runtime = createTaskRuntime();
  const a = await open({ tools: [askTool()], standaloneInput: { giveBackAfterMs: 500 } });
  const taskId = await createAsk(a);
  const poll = setInterval(() => void getTask(a, taskId), 200);
  try {
    await until('asked', () => asked(a).length === 1);
    await sleep(800); // the person is slower than the give-back
    await answer(a, asked(a)[0]!.id, 'Ada');
    const done = await runtime.waitForOutcome(taskId, ALICE, { timeout: 5_000 });
    expect(done.task.status).toBe('completed');
    expect(JSON.stringify(done.result)).toContain('Ada');
  } finally {
    clearInterval(poll);
  }
  // Every copy but the answered one was withdrawn.
  await until('the other copies withdrawn', () => cancelled(a).length === asked(a).length - 1);
});

it('asks a second question once when the task asks it right after the first is answered, and the first once', async () => {
  runtime = createTaskRuntime();
  const a = await open({ tools: [askTool('A?', 'B?')] });
  const taskId = await createAsk(a);
  const poll = setInterval(() => void getTask(a, taskId), 100);
  try {
    await until('A asked', () => asked(a, 'A?').length === 1);
    await answer(a, asked(a, 'A?')[0]!.id, 'Ada');
    await until('B asked', () => asked(a, 'B?').length === 1);
    // A copy of A sent again would have gone out with B (the same grace, the same deliverer).
    await answer(a, asked(a, 'B?')[0]!.id, 'Bea');
    const done = await runtime.waitForOutcome(taskId, ALICE, { timeout: 5_000 });
    expect(JSON.stringify(done.result)).toContain('Bea');
  } finally {
    clearInterval(poll);
  }
  expect(asked(a, 'A?')).toHaveLength(1);
  expect(asked(a, 'B?')).toHaveLength(1);
});

it("withdraws a question from the principal's other session once one session answered it", async () => {
  runtime = createTaskRuntime();
  const a = await open({ tools: [askTool()] });
  const b = await open({ tools: [askTool()] });
  const taskId = await createAsk(a);
  // The principal follows the task from both of its connections, as a requester that polls.
  await getTask(a, taskId);
  await getTask(b, taskId);
  await until('the question on both standalone streams', () => asked(a).length === 1 && asked(b).length === 1);
  await answer(a, asked(a)[0]!.id, 'Ada');
  // B's copy is withdrawn: the SDK tells B its request is cancelled.
  await until("B's copy withdrawn", () => cancelled(b).some((m) => m.params?.requestId === asked(b)[0]!.id));
  const done = await runtime.waitForOutcome(taskId, ALICE, { timeout: 5_000 });
  expect(done.task.status).toBe('completed');
  expect(JSON.stringify(done.result)).toContain('Ada');
});

it("leaves a question pending on a connection that cannot take it, for the principal's one that can", async () => {
  runtime = createTaskRuntime();
  const a = await open({ tools: [askTool()] });
  const b = await open({ tools: [askTool()], capabilities: {} });
  const taskId = await createAsk(a);
  await sleep(100);
  await getTask(b, taskId);
  await getTask(a, taskId);
  await until('the capable connection got the question', () => asked(a).length === 1);
  await answer(a, asked(a)[0]!.id, 'Ada');
  const done = await runtime.waitForOutcome(taskId, ALICE, { timeout: 5_000 });
  expect(done.task.status).toBe('completed');
  expect(JSON.stringify(done.result)).toContain('Ada');
});
