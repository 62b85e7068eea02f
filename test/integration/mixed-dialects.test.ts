/**
 * One `serve --http 0` process speaking both task dialects at once, chosen per request by shape:
 * - a raw SEP-1686 requester (`_meta["modelcontextprotocol.io/task"]`, raw fetch, its own HTTP session), and
 * - a real SDK Client speaking 2025-11-25 (`params.task`), in another session,
 * work concurrently; each sees only its own dialect's shapes and only its own tasks.
 * Then, within ONE session, a raw requester creates one task per dialect and every answer renders
 * each task in the dialect it was created in.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { CallToolResultSchema, CreateTaskResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { attachHttpWire } from './harness/http-wire.js';
import { expectPollInterval } from './harness/poll-interval.js';
import { spawnHttpServer, type HttpServerProcess } from './harness/process.js';
import { connectSdkClientTo, type SdkPeer } from './harness/sdk-client.js';
import { isRecord, type JSONRPCResponse, type JsonRpcId, type Wire } from './harness/types.js';
import { sleep, type Rec, metaOf, ok } from './harness/json.js';

const SEP_TASK = 'modelcontextprotocol.io/task';
const SEP_RELATED = 'modelcontextprotocol.io/related-task';
const RELATED = 'io.modelcontextprotocol/related-task';
const NOT_FOUND = 'Failed to retrieve task: Task not found';
const INVALID_PARAMS = -32602;
const POLL = 150;
const SEP_KEYS = ['taskId', 'status', 'keepAlive', 'pollFrequency', 'statusMessage', 'error', '_meta'];
const SPEC_KEYS = ['taskId', 'status', 'statusMessage', 'createdAt', 'lastUpdatedAt', 'ttl', 'pollInterval'];
const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const Raw = z.looseObject({});
const RawStatusNotification = z.object({ method: z.literal('notifications/tasks/status'), params: z.looseObject({}) });

type RawWire = Wire & { readonly sessionId: string | undefined };




function fails(res: JSONRPCResponse, code: number, message?: string): void {
  if (res.error === undefined) throw new Error(`expected JSON-RPC error ${code}, got ${JSON.stringify(res)}`);
  expect(res.error.code, JSON.stringify(res.error)).toBe(code);
  if (message !== undefined) expect(res.error.message).toBe(message);
}

async function expectMcpError(promise: Promise<unknown>, code: number, message?: string): Promise<void> {
  let value: unknown;
  try {
    value = await promise;
  } catch (error) {
    if (!(error instanceof McpError)) throw new Error(`expected McpError ${code}, got ${String(error)}`);
    expect(error.code, error.message).toBe(code);
    if (message !== undefined) expect(error.message).toContain(message);
    return;
  }
  throw new Error(`expected McpError ${code}, got a result: ${JSON.stringify(value)}`);
}

/**
 * The SEP-1686 rendering: keepAlive/pollFrequency, nothing of 2025-11-25. A tasks/get result also carries
 * the SEP-1686 related-task _meta; a tasks/list entry (SEP-1686 §6 "Task List Response") need not.
 */
function expectSepShape(task: Rec, taskId: string, keepAlive: number, where: 'get' | 'list' = 'get'): void {
  for (const key of Object.keys(task)) expect(SEP_KEYS, `unexpected key '${key}' in a SEP-1686 task: ${JSON.stringify(task)}`).toContain(key);
  expect(task['taskId']).toBe(taskId);
  expect(task['keepAlive']).toBe(keepAlive);
  // No creation time in this dialect: bounded by the rule alone (exact once terminal).
  expectPollInterval(task['pollFrequency'], POLL, { status: task['status'] });
  if (where === 'get') expect(metaOf(task)?.[SEP_RELATED]).toEqual({ taskId });
  else if (metaOf(task)?.[SEP_RELATED] !== undefined) expect(metaOf(task)?.[SEP_RELATED]).toEqual({ taskId });
  expect(metaOf(task)?.[RELATED]).toBeUndefined();
  for (const key of ['createdAt', 'lastUpdatedAt', 'ttl', 'pollInterval']) expect(task, `SEP-1686 task has ${key}`).not.toHaveProperty(key);
}

/** The 2025-11-25 rendering: ISO timestamps, ttl, pollInterval; no related-task _meta of either dialect. */
function expectSpecShape(task: Rec, taskId: string, ttl: number): void {
  for (const key of Object.keys(task)) expect(SPEC_KEYS, `unexpected key '${key}' in a 2025-11-25 task: ${JSON.stringify(task)}`).toContain(key);
  expect(task['taskId']).toBe(taskId);
  expect(task['ttl']).toBe(ttl);
  expect(task['createdAt']).toMatch(ISO_8601);
  expectPollInterval(task['pollInterval'], POLL, { status: task['status'], created: Date.parse(task['createdAt'] as string) });
  expect(task['lastUpdatedAt']).toMatch(ISO_8601);
  expect(Date.parse(task['lastUpdatedAt'] as string)).toBeGreaterThanOrEqual(Date.parse(task['createdAt'] as string));
  for (const key of ['keepAlive', 'pollFrequency']) expect(task, `2025-11-25 task has ${key}`).not.toHaveProperty(key);
}

async function rawList(wire: Wire): Promise<Rec[]> {
  const tasks: Rec[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 50; i++) {
    const page = ok(await wire.request('tasks/list', cursor === undefined ? {} : { cursor }));
    const entries = page['tasks'];
    if (!Array.isArray(entries)) throw new Error(`tasks/list without tasks: ${JSON.stringify(page)}`);
    for (const t of entries) {
      if (!isRecord(t)) throw new Error(`tasks/list entry is not an object: ${JSON.stringify(t)}`);
      tasks.push(t);
    }
    const next = page['nextCursor'];
    if (next === undefined) return tasks;
    if (typeof next !== 'string') throw new Error(`bad nextCursor: ${JSON.stringify(page)}`);
    cursor = next;
  }
  throw new Error('tasks/list never ended');
}

async function sdkList(peer: SdkPeer): Promise<Rec[]> {
  const tasks: Rec[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 50; i++) {
    const page = await peer.client.request({ method: 'tasks/list', params: cursor === undefined ? {} : { cursor } }, Raw);
    const entries = page['tasks'];
    if (!Array.isArray(entries)) throw new Error(`tasks/list without tasks: ${JSON.stringify(page)}`);
    tasks.push(...(entries as Rec[]));
    const next = page['nextCursor'];
    if (next === undefined) return tasks;
    if (typeof next !== 'string') throw new Error(`bad nextCursor: ${JSON.stringify(page)}`);
    cursor = next;
  }
  throw new Error('tasks/list never ended');
}

/** A SEP-1686 task: tools/call with the task _meta; the tools/call response itself arrives when done. */
function startSepTask(wire: Wire, ms: number, keepAlive: number): { taskId: string; requestId: JsonRpcId } {
  const taskId = randomUUID();
  const requestId = wire.sendRequestNoWait('tools/call', {
    name: 'sleep',
    arguments: { ms },
    _meta: { [SEP_TASK]: { taskId, keepAlive } },
  });
  return { taskId, requestId };
}

async function pollRaw(wire: Wire, taskId: string, check: (task: Rec) => void): Promise<Rec> {
  const deadline = Date.now() + 8_000;
  for (;;) {
    const res = await wire.request('tasks/get', { taskId });
    if (res.error === undefined) {
      const task = ok(res);
      check(task);
      if (['completed', 'failed', 'cancelled'].includes(String(task['status']))) return task;
    } else {
      // A SEP-1686 task may not be visible for an instant after the tools/call is sent.
      fails(res, INVALID_PARAMS, NOT_FOUND);
    }
    if (Date.now() > deadline) throw new Error(`task ${taskId} did not finish: ${JSON.stringify(res)}`);
    await sleep(POLL);
  }
}

async function pollSdk(peer: SdkPeer, taskId: string, check: (task: Rec) => void): Promise<Rec> {
  const deadline = Date.now() + 8_000;
  for (;;) {
    const task = await peer.client.request({ method: 'tasks/get', params: { taskId } }, Raw);
    check(task);
    if (['completed', 'failed', 'cancelled'].includes(String(task['status']))) return task;
    if (Date.now() > deadline) throw new Error(`task ${taskId} did not finish: ${JSON.stringify(task)}`);
    await sleep(POLL);
  }
}

/**
 * Runs a short 2025-11-25 task of `peer`'s own until its completed notifications/tasks/status is
 * in `notes`; returns its id.
 */
async function ownTaskNotified(peer: SdkPeer, notes: Rec[]): Promise<string> {
  const created = await peer.client.request({ method: 'tools/call', params: { name: 'sleep', arguments: { ms: 1 }, task: { ttl: 60_000 } } }, Raw);
  const taskId = CreateTaskResultSchema.parse(created).task.taskId;
  await vi.waitFor(
    () => {
      if (!notes.some((n) => n['taskId'] === taskId && n['status'] === 'completed')) throw new Error(`no completed notification for ${taskId} yet: ${JSON.stringify(notes)}`);
    },
    { timeout: 5_000, interval: 20 },
  );
  return taskId;
}

describe('one HTTP server, two dialects', () => {
  let server: HttpServerProcess | undefined;
  const wires: RawWire[] = [];
  const peers: SdkPeer[] = [];

  const srv = (): HttpServerProcess => {
    if (server === undefined) throw new Error('server not started');
    return server;
  };
  const rawSession = async (): Promise<RawWire> => {
    const wire = await attachHttpWire(srv().url, () => srv().stderr());
    wires.push(wire);
    return wire;
  };

  beforeAll(async () => {
    server = await spawnHttpServer(['--poll-frequency', String(POLL)]);
  });
  afterAll(async () => {
    await Promise.all([...wires.map((w) => w.close()), ...peers.map((p) => p.close())]);
    await server?.close();
  });
  afterEach(() => {
    for (const wire of wires) expect(wire.violations, 'protocol violations seen by a raw wire').toEqual([]);
  });

  it('a raw SEP-1686 requester and an SDK 2025-11-25 client, concurrently in two sessions, see only their own shapes and tasks', async () => {
    const raw = await rawSession();
    const peer = await connectSdkClientTo(srv(), 'mixed-sdk');
    peers.push(peer);
    expect(peer.sessionId).toBeDefined();
    expect(raw.sessionId).toBeDefined();
    expect(peer.sessionId).not.toBe(raw.sessionId);
    const sdkNotes: Rec[] = [];
    peer.client.setNotificationHandler(RawStatusNotification, (n) => {
      sdkNotes.push({ ...n.params });
    });
    // a third session that creates nothing: it must hear about nobody's tasks
    const observer = await connectSdkClientTo(srv(), 'mixed-observer');
    peers.push(observer);
    const observerNotes: Rec[] = [];
    observer.client.setNotificationHandler(RawStatusNotification, (n) => {
      observerNotes.push({ ...n.params });
    });

    // both sides create three tasks at once
    const sepTasks = [0, 1, 2].map(() => startSepTask(raw, 500, 40_000));
    const specTasks = await Promise.all(
      [0, 1, 2].map(async () => {
        const created = await peer.client.request({ method: 'tools/call', params: { name: 'sleep', arguments: { ms: 500 }, task: { ttl: 50_000 } } }, Raw);
        const task = CreateTaskResultSchema.parse(created).task;
        expectSpecShape(created['task'] as Rec, task.taskId, 50_000);
        return task.taskId;
      }),
    );
    const sepIds = sepTasks.map((t) => t.taskId);
    // wait until every SEP-1686 task exists before probing across sessions
    await Promise.all(sepIds.map((id) => raw.waitForNotification((n) => n.method === 'notifications/tasks/created' && metaOf(n.params)?.[SEP_RELATED] !== undefined && (metaOf(n.params)?.[SEP_RELATED] as Rec)['taskId'] === id, 5_000)));

    // while running: neither session can see or touch the other's tasks
    for (const id of specTasks) {
      fails(await raw.request('tasks/get', { taskId: id }), INVALID_PARAMS, NOT_FOUND);
      fails(await raw.request('tasks/cancel', { taskId: id }), INVALID_PARAMS, NOT_FOUND);
    }
    for (const id of sepIds) {
      await expectMcpError(peer.client.experimental.tasks.getTask(id), INVALID_PARAMS, NOT_FOUND);
      await expectMcpError(peer.client.experimental.tasks.cancelTask(id), INVALID_PARAMS, NOT_FOUND);
    }
    const runningRaw = await rawList(raw);
    expect(runningRaw.map((t) => t['taskId']).sort()).toEqual([...sepIds].sort());
    for (const t of runningRaw) expectSepShape(t, String(t['taskId']), 40_000, 'list');
    const runningSdk = await sdkList(peer);
    expect(runningSdk.map((t) => t['taskId']).sort()).toEqual([...specTasks].sort());
    for (const t of runningSdk) expectSpecShape(t, String(t['taskId']), 50_000);

    // both poll to completion concurrently, checking the shape of every answer
    const [sepDone, specDone] = await Promise.all([
      Promise.all(sepIds.map((id) => pollRaw(raw, id, (t) => expectSepShape(t, id, 40_000)))),
      Promise.all(specTasks.map((id) => pollSdk(peer, id, (t) => expectSpecShape(t, id, 50_000)))),
    ]);
    for (const t of [...sepDone, ...specDone]) expect(t['status'], JSON.stringify(t)).toBe('completed');

    // the SEP-1686 tools/call responses are the results, with the SEP-1686 related-task key
    for (const { taskId, requestId } of sepTasks) {
      const result = ok(await raw.responseFor(requestId, 5_000));
      expect(result['content']).toEqual([{ type: 'text', text: 'slept 500 ms' }]);
      expect(metaOf(result)?.[SEP_RELATED]).toEqual({ taskId });
      expect(metaOf(result)?.[RELATED]).toBeUndefined();
    }
    for (const id of specTasks) {
      const result = await peer.client.experimental.tasks.getTaskResult(id, CallToolResultSchema);
      expect(result.content).toEqual([{ type: 'text', text: 'slept 500 ms' }]);
      expect(metaOf(result)?.[RELATED]).toEqual({ taskId: id });
      expect(metaOf(result)?.[SEP_RELATED]).toBeUndefined();
    }

    // after completion: lists hold only their own tasks, each in its own shape; cross reads still not found
    const doneRaw = await rawList(raw);
    expect(doneRaw.map((t) => t['taskId']).sort()).toEqual([...sepIds].sort());
    for (const t of doneRaw) expectSepShape(t, String(t['taskId']), 40_000, 'list');
    const doneSdk = await sdkList(peer);
    expect(doneSdk.map((t) => t['taskId']).sort()).toEqual([...specTasks].sort());
    for (const t of doneSdk) expectSpecShape(t, String(t['taskId']), 50_000);
    for (const id of specTasks) fails(await raw.request('tasks/result', { taskId: id }), INVALID_PARAMS, NOT_FOUND);
    for (const id of sepIds) await expectMcpError(peer.client.experimental.tasks.getTaskResult(id, CallToolResultSchema), INVALID_PARAMS, NOT_FOUND);

    // status notifications reach the creating session only (positive control: the SDK client heard its own)
    expect((await sdkList(observer)).length).toBe(0);
    // Each SDK session then runs a task of its own to its completed notification: notifications
    // reach a session in order on its stream, so whatever was sent to it before is in by then.
    const peerMarker = await ownTaskNotified(peer, sdkNotes);
    const observerMarker = await ownTaskNotified(observer, observerNotes);
    // The markers are the positive control (each session heard its own task complete). The polled
    // tasks may go unnotified: a session is not sent a status one of its own answers already gave
    // it (the spec makes these notifications a MAY), and the polls above raced the notifications.
    // What was sent about them is theirs, in their own shape.
    for (const n of sdkNotes.filter((x) => x['taskId'] !== peerMarker)) {
      expect(specTasks, JSON.stringify(n)).toContain(n['taskId']);
      expectSpecShape(n, String(n['taskId']), 50_000);
    }
    expect(
      observerNotes.filter((n) => n['taskId'] !== observerMarker),
      'a session that created nothing (but its marker) received task notifications',
    ).toEqual([]);
    const sdkSeen = JSON.stringify(sdkNotes.filter((n) => n['taskId'] !== peerMarker));
    for (const id of sepIds) expect(sdkSeen).not.toContain(id);
    // Every request of the raw session is answered: no stream of its own is open that could still
    // carry anything to it.
    const rawSeen = JSON.stringify(raw.notifications);
    for (const id of specTasks) expect(rawSeen).not.toContain(id);
  });

  it('within one session, tasks/get, tasks/list and tasks/result render each task in the dialect it was created in', async () => {
    const raw = await rawSession();
    const sep = startSepTask(raw, 400, 30_000);
    const created = ok(
      await raw.request('tools/call', { name: 'sleep', arguments: { ms: 400 }, task: { ttl: 70_000 } }),
    );
    const specTask = created['task'];
    if (!isRecord(specTask)) throw new Error(`2025-11-25 tools/call did not answer with a CreateTaskResult: ${JSON.stringify(created)}`);
    const specId = String(specTask['taskId']);
    expectSpecShape(specTask, specId, 70_000);
    expect(created).not.toHaveProperty('content');
    await raw.waitForNotification((n) => n.method === 'notifications/tasks/created' && (metaOf(n.params)?.[SEP_RELATED] as Rec | undefined)?.['taskId'] === sep.taskId, 5_000);

    // while both run
    const sepRunning = ok(await raw.request('tasks/get', { taskId: sep.taskId }));
    expectSepShape(sepRunning, sep.taskId, 30_000);
    const specRunning = ok(await raw.request('tasks/get', { taskId: specId }));
    expectSpecShape(specRunning, specId, 70_000);
    expect(metaOf(specRunning)?.[RELATED]).toBeUndefined();
    expect(metaOf(specRunning)?.[SEP_RELATED]).toBeUndefined();
    expect(specRunning['status']).toBe('working');

    const listed = await rawList(raw);
    expect(listed.map((t) => t['taskId']).sort()).toEqual([sep.taskId, specId].sort());
    expectSepShape(listed.find((t) => t['taskId'] === sep.taskId)!, sep.taskId, 30_000, 'list');
    expectSpecShape(listed.find((t) => t['taskId'] === specId)!, specId, 70_000);

    // tasks/result of the 2025-11-25 task blocks, then carries the 2025-11-25 related-task key
    const specResult = ok(await raw.request('tasks/result', { taskId: specId }, { timeoutMs: 5_000 }));
    expect(specResult['content']).toEqual([{ type: 'text', text: 'slept 400 ms' }]);
    expect(metaOf(specResult)?.[RELATED]).toEqual({ taskId: specId });
    expect(metaOf(specResult)?.[SEP_RELATED]).toBeUndefined();

    const sepCall = ok(await raw.responseFor(sep.requestId, 5_000));
    expect(sepCall['content']).toEqual([{ type: 'text', text: 'slept 400 ms' }]);
    expect(metaOf(sepCall)?.[SEP_RELATED]).toEqual({ taskId: sep.taskId });
    const sepResult = ok(await raw.request('tasks/result', { taskId: sep.taskId }));
    expect(sepResult['content']).toEqual([{ type: 'text', text: 'slept 400 ms' }]);
    expect(metaOf(sepResult)?.[SEP_RELATED]).toEqual({ taskId: sep.taskId });
    expect(metaOf(sepResult)?.[RELATED]).toBeUndefined();

    // after completion, same renderings
    const sepDone = ok(await raw.request('tasks/get', { taskId: sep.taskId }));
    expectSepShape(sepDone, sep.taskId, 30_000);
    expect(sepDone['status']).toBe('completed');
    const specDone = ok(await raw.request('tasks/get', { taskId: specId }));
    expectSpecShape(specDone, specId, 70_000);
    expect(specDone['status']).toBe('completed');
    const listedDone = await rawList(raw);
    expect(listedDone.map((t) => t['taskId']).sort()).toEqual([sep.taskId, specId].sort());
    expectSepShape(listedDone.find((t) => t['taskId'] === sep.taskId)!, sep.taskId, 30_000, 'list');
    expectSpecShape(listedDone.find((t) => t['taskId'] === specId)!, specId, 70_000);
  });
});
