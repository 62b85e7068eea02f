/**
 * The SDK v2 embedding (`serve --sdk v2`) keeps the runtime's trust rules on both of its eras:
 * - isolation: a task belongs to the principal the SDK's auth info names; another principal gets
 *   exactly the answer of an unused task id for every task method, and its list shows none;
 * - limits: the running-task cap refuses with -32029 naming the limit;
 * - audit: creation with the principal, and another principal's look-up logged as refused.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseLogLines, pollUntil, type LogLine } from './harness/cluster.js';
import { extWire, type ExtReply } from './harness/ext-wire.js';
import { attachHttpWire } from './harness/http-wire.js';
import { ok, type Rec } from './harness/json.js';
import { spawnHttpServer, type HttpServerProcess } from './harness/process.js';
import { create2025, getTask, INVALID_PARAMS, listAll, NOT_FOUND, statusOf } from './harness/task-calls.js';
import type { Wire } from './harness/types.js';

type SessionWire = Wire & { readonly sessionId: string | undefined };

const LIMIT_EXCEEDED = -32029;
let server: HttpServerProcess;

beforeAll(async () => {
  server = await spawnHttpServer(['--sdk', 'v2', '--auth-token', 'tok-a=alice', '--auth-token', 'tok-b=bob', '--max-running-tasks', '2']);
}, 30_000);
afterAll(async () => {
  await server?.close();
});

const audit = (event: string, taskId: string): LogLine[] => parseLogLines(server.stderr()).filter((l) => l['event'] === event && l['taskId'] === taskId);
async function auditLine(event: string, taskId: string): Promise<LogLine> {
  const found = await pollUntil(`audit ${event} ${taskId}`, async () => audit(event, taskId)[0], (l) => l !== undefined, {
    timeoutMs: 5_000,
    diagnostics: () => server.stderr().slice(-3_000),
  });
  return found!;
}

/** The error with the id asked about replaced, so two answers compare. */
const normalized = (error: unknown, id: string): string => JSON.stringify(error).replaceAll(id, '<id>');

describe('serve --sdk v2, 2025-11-25: isolation, limits, audit', () => {
  let alice: SessionWire;
  let bob: SessionWire;
  beforeAll(async () => {
    alice = await attachHttpWire(server.url, () => server.stderr(), { bearerToken: 'tok-a' });
    bob = await attachHttpWire(server.url, () => server.stderr(), { bearerToken: 'tok-b' });
  });
  afterAll(async () => {
    await alice?.close();
    await bob?.close();
  });
  afterEach(() => {
    expect(alice.violations).toEqual([]);
    expect(bob.violations).toEqual([]);
  });

  it("answers bob's tasks/get, tasks/result and tasks/cancel of alice's task exactly as for an unused id; bob's list shows none", async () => {
    const task = await create2025(alice, 'long_job', { seconds: 30 });
    try {
      for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
        const unused = randomUUID();
        const probe = await bob.request(method, { taskId: task.taskId });
        const control = await bob.request(method, { taskId: unused });
        expect(control.error, method).toMatchObject({ code: INVALID_PARAMS, message: NOT_FOUND });
        expect(normalized(probe.error, task.taskId), method).toBe(normalized(control.error, unused));
      }
      expect((await listAll(bob)).map((t) => t['taskId'])).not.toContain(task.taskId);
      expect(statusOf(await getTask(alice, task.taskId))).toBe('working');
      expect((await listAll(alice)).map((t) => t['taskId'])).toContain(task.taskId);
      expect(await auditLine('task.created', task.taskId)).toMatchObject({ principal: 'alice', dialect: '2025-11-25', label: 'long_job' });
      expect(await auditLine('task.refused', task.taskId)).toMatchObject({ principal: 'bob', reason: 'not-found' });
    } finally {
      ok(await alice.request('tasks/cancel', { taskId: task.taskId }));
    }
  });

  it('refuses a task over the running-task cap with -32029 naming the limit', async () => {
    const running = [await create2025(alice, 'long_job', { seconds: 30 }), await create2025(alice, 'long_job', { seconds: 30 })];
    try {
      const over = await alice.request('tools/call', { name: 'long_job', arguments: { seconds: 30 }, task: {} });
      expect(over.error?.code).toBe(LIMIT_EXCEEDED);
      expect(over.error?.message).toMatch(/running/i);
    } finally {
      for (const task of running) ok(await alice.request('tasks/cancel', { taskId: task.taskId }));
    }
  });
});

describe('serve --sdk v2, 2026-07-28 (tasks extension): isolation, limits, audit', () => {
  const as = (token: string) => {
    const w = extWire(server.url);
    const headers = { authorization: `Bearer ${token}` };
    return { post: (method: string, params: Rec = {}): Promise<ExtReply> => w.post(method, params, { headers }) };
  };

  it("answers bob's tasks/get, tasks/update and tasks/cancel of alice's task exactly as for an unused id", async () => {
    const alice = as('tok-a');
    const bob = as('tok-b');
    const created = (await alice.post('tools/call', { name: 'long_job', arguments: { seconds: 30 } })).body.result!;
    expect(created['resultType']).toBe('task');
    const taskId = String(created['taskId']);
    try {
      for (const [method, extra] of [
        ['tasks/get', {}],
        ['tasks/update', { inputResponses: { k: { action: 'accept', content: {} } } }],
        ['tasks/cancel', {}],
      ] as const) {
        const unused = randomUUID();
        const probe = await bob.post(method, { taskId, ...extra });
        const control = await bob.post(method, { taskId: unused, ...extra });
        expect(control.body.error?.code, method).toBe(INVALID_PARAMS);
        expect(normalized(probe.body.error, taskId), method).toBe(normalized(control.body.error, unused));
        expect(probe.status, method).toBe(control.status);
      }
      expect((await alice.post('tasks/get', { taskId })).body.result).toMatchObject({ taskId, status: 'working' });
      expect(await auditLine('task.created', taskId)).toMatchObject({ principal: 'alice', dialect: 'ext', label: 'long_job' });
      expect(await auditLine('task.refused', taskId)).toMatchObject({ principal: 'bob' });
    } finally {
      await alice.post('tasks/cancel', { taskId });
    }
  });

  it('refuses a task over the running-task cap with -32029 naming the limit', async () => {
    const bob = as('tok-b');
    const ids: string[] = [];
    try {
      for (let i = 0; i < 2; i++) ids.push(String((await bob.post('tools/call', { name: 'long_job', arguments: { seconds: 30 } })).body.result!['taskId']));
      const over = await bob.post('tools/call', { name: 'long_job', arguments: { seconds: 30 } });
      expect(over.body.error?.code).toBe(LIMIT_EXCEEDED);
      expect(over.body.error?.message).toMatch(/running/i);
    } finally {
      for (const taskId of ids) await bob.post('tasks/cancel', { taskId });
    }
  });
});
