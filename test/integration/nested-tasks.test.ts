/**
 * Nested tasks (SEP-1686 "Future Work"), black-box through `mcp-tasks serve`, on both backends:
 * in memory (one process) and on NATS (a front node and two workers of two slots each, so that a
 * fan-out has to use both). Each case runs on the session dialects (SEP-1686, 2025-11-25) or the
 * extension wire (2026-07-28), as the issue asks:
 *
 * - `fan_out` runs its children (on both workers), lists them, links parent and children in `_meta`;
 * - cancelling the parent mid-way cancels every child;
 * - a child's input request surfaces on the parent, answerable through the parent or the child;
 * - the running-task cap counts children; the depth cap refuses a subtask too deep.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeNodes, describeNodes, freshPrefix, pollUntil, runnersOf, startNodes, type ClusterNode } from './harness/cluster.js';
import { extWire, isTerminal, WITH_EXT } from './harness/ext-wire.js';
import { attachHttpWire, attachInteractiveHttpWire } from './harness/http-wire.js';
import { metaOf, ok, type Rec } from './harness/json.js';
import { startNatsServer, type NatsServer } from './harness/nats-server.js';
import { spawnHttpServer } from './harness/process.js';
import { create2025, createSep, getTask, listAll, SEP_RELATED, textOf } from './harness/task-calls.js';
import type { Wire } from './harness/types.js';

const PARENT = 'io.github.mcp-task-actors/parentTask';
const SUBTASKS = 'io.github.mcp-task-actors/subtasks';
const SUBTASK_INPUT = 'io.github.mcp-task-actors/subtaskInput';
/** Limits every node gets: a running-task cap a fan-out of 8 goes over, and a depth cap of 2. */
const FLAGS = ['--max-running-tasks', '6', '--max-task-depth', '2'];

interface Backend {
  readonly url: string;
  diag(): string;
  /** NATS: the workers that ran a task (by label); memory: none to tell. */
  runners(taskId: string): string[] | null;
  close(): Promise<void>;
}

async function memoryBackend(): Promise<Backend> {
  const server = await spawnHttpServer(FLAGS);
  return { url: server.url, diag: () => server.stderr(), runners: () => null, close: () => server.close() };
}

async function natsBackend(): Promise<Backend> {
  const nats: NatsServer = await startNatsServer({ jetstream: true });
  const prefix = freshPrefix('nested');
  let nodes: ClusterNode[] = [];
  try {
    nodes = await startNodes([
      { label: 'front', role: 'front', nats: nats.url, prefix, flags: FLAGS },
      { label: 'w1', role: 'worker', nats: nats.url, prefix, flags: [...FLAGS, '--worker-concurrency', '2'] },
      { label: 'w2', role: 'worker', nats: nats.url, prefix, flags: [...FLAGS, '--worker-concurrency', '2'] },
    ]);
  } catch (error) {
    await closeNodes(nodes);
    await nats.stop();
    throw error;
  }
  const workers = nodes.slice(1);
  return {
    url: nodes[0]!.url,
    diag: () => describeNodes(nodes),
    runners: (taskId) => runnersOf(workers, taskId).map((n) => n.label),
    close: async () => {
      await closeNodes(nodes);
      await nats.stop();
    },
  };
}

const subtasksOf = (task: Rec): { taskIds: string[]; counts: Record<string, number>; total: number } | undefined =>
  metaOf(task)?.[SUBTASKS] as { taskIds: string[]; counts: Record<string, number>; total: number } | undefined;

async function until(wire: Wire, taskId: string, done: (t: Rec) => boolean, diag: () => string, timeoutMs = 15_000): Promise<Rec> {
  return pollUntil(`task ${taskId}`, () => getTask(wire, taskId), done, { timeoutMs, intervalMs: 50, diagnostics: diag });
}

describe.each([
  { name: 'memory', start: memoryBackend },
  { name: 'NATS (front + two workers)', start: natsBackend },
])('nested tasks on $name', ({ start }) => {
  let backend: Backend;
  const wires: Wire[] = [];
  const wire = async (): Promise<Wire> => {
    const w = await attachHttpWire(backend.url, () => backend.diag());
    wires.push(w);
    return w;
  };

  beforeAll(async () => {
    backend = await start();
  }, 60_000);
  afterAll(async () => {
    await Promise.all(wires.map((w) => w.close()));
    await backend?.close();
  }, 30_000);

  it('2025-11-25: fan_out runs its subtasks (on both workers), lists them, and links parent and children in _meta', async () => {
    const w = await wire();
    const { taskId } = await create2025(w, 'fan_out', { count: 4, ms: 300 });
    const result = ok(await w.request('tasks/result', { taskId }, { timeoutMs: 20_000 }));
    expect(textOf(result)).toBe('fan_out: 4 of 4 subtasks completed');
    const parent = await getTask(w, taskId);
    const subtasks = subtasksOf(parent);
    expect(subtasks, JSON.stringify(parent)).toMatchObject({ total: 4, counts: { completed: 4 } });
    const childIds = subtasks!.taskIds;
    expect(new Set(childIds).size).toBe(4);
    // Each child is a task of the same requester: listed, readable, its result fetchable.
    const listed = await listAll(w);
    for (const id of childIds) {
      const entry = listed.find((t) => t['taskId'] === id);
      expect(entry, `child ${id} in tasks/list`).toBeDefined();
      expect(metaOf(entry)?.[PARENT]).toEqual({ taskId });
      const child = await getTask(w, id);
      expect(child['status']).toBe('completed');
      expect(metaOf(child)?.[PARENT]).toEqual({ taskId });
      expect(textOf(ok(await w.request('tasks/result', { taskId: id })))).toBe('slept 300 ms');
    }
    expect(metaOf(listed.find((t) => t['taskId'] === taskId))?.[SUBTASKS]).toMatchObject({ total: 4 });
    const runners = childIds.map((id) => backend.runners(id));
    if (runners[0] !== null) expect(new Set(runners.flat()), `workers that ran the children\n${backend.diag()}`).toEqual(new Set(['w1', 'w2']));
  });

  it('SEP-1686: fan_out answers on its own request, and its children carry the parent in _meta', async () => {
    const w = await wire();
    const { taskId, requestId } = await createSep(w, 'fan_out', { count: 2, ms: 100 });
    const result = ok(await w.responseFor(requestId, 20_000));
    expect(textOf(result)).toBe('fan_out: 2 of 2 subtasks completed');
    expect(metaOf(result)?.[SEP_RELATED]).toEqual({ taskId });
    const parent = await getTask(w, taskId);
    expect(metaOf(parent)?.[SEP_RELATED]).toEqual({ taskId });
    const childIds = subtasksOf(parent)!.taskIds;
    expect(childIds).toHaveLength(2);
    for (const id of childIds) {
      const child = await getTask(w, id);
      // SEP-1686 shape (keepAlive, pollFrequency), with the parent link beside the related-task key.
      expect(child).toMatchObject({ taskId: id, status: 'completed', keepAlive: expect.any(Number) });
      expect(metaOf(child)?.[PARENT]).toEqual({ taskId });
    }
  });

  it('2026-07-28 extension: fan_out as a task, its children readable with tasks/get', async () => {
    const ext = extWire(backend.url);
    const created = await ext.call('fan_out', { count: 2, ms: 100 });
    const taskId = String(created['taskId']);
    const done = await ext.until(taskId, isTerminal, 20_000);
    expect(done).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'fan_out: 2 of 2 subtasks completed' }] } });
    const childIds = subtasksOf(done)!.taskIds;
    for (const id of childIds) expect(metaOf(await ext.getTask(id))?.[PARENT]).toEqual({ taskId });
  });

  it('cancelling the parent mid-way cancels every child', async () => {
    const w = await wire();
    const { taskId } = await create2025(w, 'fan_out', { count: 3, ms: 60_000 });
    const running = await until(w, taskId, (t) => subtasksOf(t)?.counts['working'] === 3, () => backend.diag());
    const childIds = subtasksOf(running)!.taskIds;
    ok(await w.request('tasks/cancel', { taskId }));
    // The cancel cascades before it answers: every child is cancelled by now.
    for (const id of childIds) expect((await getTask(w, id))['status'], id).toBe('cancelled');
    expect((await getTask(w, taskId))['status']).toBe('cancelled');
  });

  it('SEP-1686 (notifications/cancelled) and the extension (tasks/cancel): cancelling the parent cancels every child', async () => {
    const w = await wire();
    const sep = await createSep(w, 'fan_out', { count: 2, ms: 60_000 });
    const sepKids = subtasksOf(await until(w, sep.taskId, (t) => subtasksOf(t)?.counts['working'] === 2, () => backend.diag()))!.taskIds;
    await w.notify('notifications/cancelled', { requestId: sep.requestId, reason: 'test' });
    for (const id of sepKids) await until(w, id, (t) => t['status'] === 'cancelled', () => backend.diag(), 5_000);
    const ext = extWire(backend.url);
    const taskId = String((await ext.call('fan_out', { count: 2, ms: 60_000 }))['taskId']);
    const extKids = subtasksOf(await ext.until(taskId, (t) => subtasksOf(t)?.counts['working'] === 2))!.taskIds;
    await ext.post('tasks/cancel', { taskId });
    for (const id of extKids) expect((await ext.until(id, isTerminal, 5_000))['status']).toBe('cancelled');
  });

  it("a child's input request surfaces on the parent, and an answer through the parent reaches the child (2025-11-25)", async () => {
    const w = await attachInteractiveHttpWire(backend.url, () => backend.diag(), { elicitation: {} });
    wires.push(w);
    const { taskId } = await create2025(w, 'delegate', { tool: 'ask_name' });
    const waiting = await until(w, taskId, (t) => t['status'] === 'input_required', () => backend.diag());
    const childId = subtasksOf(waiting)!.taskIds[0]!;
    // tasks/result on the parent carries the child's question, as the parent's own.
    const resultId = w.sendRequestNoWait('tasks/result', { taskId });
    const asked = await w.waitForServerRequest((r) => r.message.method === 'elicitation/create', 10_000);
    expect(asked.message.params).toMatchObject({ message: 'What is your name?', _meta: { [SUBTASK_INPUT]: { taskId: childId } } });
    await w.answer(asked.message.id, { action: 'accept', content: { name: 'Ada' } });
    expect(textOf(ok(await w.responseFor(resultId, 15_000)))).toBe('Hello, Ada');
    expect((await getTask(w, childId))['status']).toBe('completed');
  });

  it("SEP-1686: a child's input request travels over the parent's open request, as the parent's own", async () => {
    const w = await attachInteractiveHttpWire(backend.url, () => backend.diag(), { elicitation: {} });
    wires.push(w);
    const { taskId, requestId } = await createSep(w, 'delegate', { tool: 'ask_name' });
    const asked = await w.waitForServerRequest((r) => r.message.method === 'elicitation/create', 15_000);
    const meta = asked.message.params?.['_meta'] as Rec;
    expect(meta[SEP_RELATED]).toEqual({ taskId });
    expect(meta[SUBTASK_INPUT]).toMatchObject({ taskId: expect.any(String) });
    await w.answer(asked.message.id, { action: 'accept', content: { name: 'Lin' } });
    expect(textOf(ok(await w.responseFor(requestId, 15_000)))).toBe('Hello, Lin');
    // Asked once: the child's own copy of the question was not sent as well.
    expect(w.serverRequests.filter((r) => r.message.method === 'elicitation/create')).toHaveLength(1);
  });

  it("a child's input request is answerable through the child too, and the parent's copy then goes (extension wire)", async () => {
    const ext = extWire(backend.url);
    const caps = { ...WITH_EXT, elicitation: {} };
    const taskId = String((await ext.call('delegate', { tool: 'ask_name' }, { caps }))['taskId']);
    const parent = await ext.until(taskId, (t) => t['status'] === 'input_required', 15_000);
    expect(Object.values(parent['inputRequests'] as Rec)[0]).toMatchObject({ method: 'elicitation/create', params: { message: 'What is your name?' } });
    const childId = subtasksOf(parent)!.taskIds[0]!;
    const child = await ext.until(childId, (t) => t['status'] === 'input_required');
    const [key] = Object.keys(child['inputRequests'] as Rec);
    await ext.post('tasks/update', { taskId: childId, inputResponses: { [key!]: { action: 'accept', content: { name: 'Grace' } } } });
    expect(await ext.until(taskId, isTerminal, 15_000)).toMatchObject({ status: 'completed', result: { content: [{ text: 'Hello, Grace' }] } });
  });

  it('the running-task cap counts subtasks: a fan-out past it fails, saying why', async () => {
    const w = await wire();
    const { taskId } = await create2025(w, 'fan_out', { count: 8, ms: 2_000 });
    const ended = await until(w, taskId, (t) => t['status'] === 'failed', () => backend.diag(), 20_000);
    expect(String(ended['statusMessage'])).toMatch(/running|limit/i);
    // It got as far as the cap allowed (itself and 5 children), and took those children with it.
    const started = subtasksOf(ended)!.taskIds;
    expect(started).toHaveLength(5);
    for (const id of started) expect((await until(w, id, (t) => t['status'] !== 'working', () => backend.diag()))['status']).toBe('cancelled');
  });

  it('the extension wire: the running-task cap counts subtasks too', async () => {
    const ext = extWire(backend.url);
    const taskId = String((await ext.call('fan_out', { count: 8, ms: 2_000 }))['taskId']);
    const ended = await ext.until(taskId, isTerminal, 20_000);
    expect(ended['status']).toBe('failed');
    expect(subtasksOf(ended)!.taskIds).toHaveLength(5);
  });

  it('the depth cap refuses a subtask nested too deep', async () => {
    const w = await wire();
    // delegate (depth 0) → delegate (1) → delegate (2) → sleep (3): over --max-task-depth 2.
    const inner = { tool: 'delegate', arguments: { tool: 'sleep', arguments: { ms: 1 } } };
    const { taskId } = await create2025(w, 'delegate', { tool: 'delegate', arguments: inner });
    const result = ok(await w.request('tasks/result', { taskId }, { timeoutMs: 15_000 }));
    expect(result['isError']).toBe(true);
    expect(textOf(result)).toContain('Subtasks nest at most 2 deep');
  });
});
