/**
 * Black-box 2025-11-25 task flows (spec: /work/shared/specs/spec-2025-11-25-tasks.mdx), written
 * once and run over every transport. The peer is the real `@modelcontextprotocol/sdk` Client
 * (the dialect SDK 1.x clients speak); the server is the CLI (`dist/adapters/cli/main.js serve`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  McpError,
  TaskStatusNotificationSchema,
  type Task,
} from '@modelcontextprotocol/sdk/types.js';
import type { ConnectSdk, SdkPeer } from './harness/sdk-client.js';
import { sleep, type Rec, metaOf } from './harness/json.js';
import { isRecord } from './harness/types.js';
import { expectPollInterval } from './harness/poll-interval.js';

const RELATED = 'io.modelcontextprotocol/related-task';
const SEP_RELATED = 'modelcontextprotocol.io/related-task';
const INVALID_PARAMS = -32602;
const METHOD_NOT_FOUND = -32601;
const NOT_FOUND = 'Failed to retrieve task: Task not found';
const TERMINAL = ['completed', 'failed', 'cancelled'];
const TASK_KEYS = ['taskId', 'status', 'statusMessage', 'createdAt', 'lastUpdatedAt', 'ttl', 'pollInterval'];
const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
/** Accepts any object and keeps every key, so tests see exactly what the server sent. */
const Raw = z.looseObject({});
const RawStatusNotification = z.object({ method: z.literal('notifications/tasks/status'), params: z.looseObject({}) });





/** Awaits a promise expected to reject with an McpError of `code` (and a message containing `message`). */
async function expectMcpError(promise: Promise<unknown>, code: number, message?: string | RegExp): Promise<McpError> {
  let value: unknown;
  try {
    value = await promise;
  } catch (error) {
    if (!(error instanceof McpError)) throw new Error(`expected McpError ${code}, got ${String(error)}`);
    expect(error.code, error.message).toBe(code);
    if (typeof message === 'string') expect(error.message).toContain(message);
    else if (message !== undefined) expect(error.message).toMatch(message);
    return error;
  }
  throw new Error(`expected McpError ${code}, got a result: ${JSON.stringify(value)}`);
}

async function pollUntil<T>(what: string, fn: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 8_000, intervalMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last: ${JSON.stringify(value)}`);
    await sleep(intervalMs);
  }
}

/** Raw tasks/get result (every key the server sent). */
async function rawGet(client: SdkPeer['client'], taskId: string): Promise<Rec> {
  return client.request({ method: 'tasks/get', params: { taskId } }, Raw);
}

/**
 * Asserts the 2025-11-25 Task shape of a task object (CreateTaskResult.task, tasks/get, tasks/list
 * entry, notification). `pollInterval` is the configured interval: the task must suggest what the
 * rule gives for its age (from its `createdAt`, and `sentAt`, when the read was sent, if known).
 */
function expectTask2025(task: Rec, expected: { taskId?: string; ttl?: number | null; pollInterval?: number; sentAt?: number }): void {
  for (const key of Object.keys(task)) {
    if (key === '_meta') continue;
    expect(TASK_KEYS, `unexpected key '${key}' in a 2025-11-25 task: ${JSON.stringify(task)}`).toContain(key);
  }
  expect(typeof task['taskId']).toBe('string');
  expect(task['taskId']).not.toBe('');
  if (expected.taskId !== undefined) expect(task['taskId']).toBe(expected.taskId);
  expect(['working', 'input_required', ...TERMINAL]).toContain(task['status']);
  for (const key of ['createdAt', 'lastUpdatedAt'] as const) {
    const stamp = task[key];
    if (typeof stamp !== 'string') throw new Error(`${key} is not a string: ${JSON.stringify(task)}`);
    expect(stamp, key).toMatch(ISO_8601);
    expect(Number.isNaN(Date.parse(stamp)), `${key} parses`).toBe(false);
  }
  expect(Date.parse(task['lastUpdatedAt'] as string)).toBeGreaterThanOrEqual(Date.parse(task['createdAt'] as string));
  expect('ttl' in task, 'ttl is always present (number or null)').toBe(true);
  if (expected.ttl !== undefined) expect(task['ttl']).toBe(expected.ttl);
  if (expected.pollInterval !== undefined) {
    const read = { status: task['status'], created: Date.parse(task['createdAt'] as string) };
    expectPollInterval(task['pollInterval'], expected.pollInterval, expected.sentAt === undefined ? read : { ...read, sentAt: expected.sentAt });
  }
  if (task['statusMessage'] !== undefined) expect(typeof task['statusMessage']).toBe('string');
  // nothing of the SEP-1686 dialect
  expect(task).not.toHaveProperty('keepAlive');
  expect(task).not.toHaveProperty('pollFrequency');
  expect(metaOf(task)?.[SEP_RELATED]).toBeUndefined();
  // the taskId is in the object itself: tasks/get, tasks/list, tasks/cancel and notifications SHOULD NOT repeat it in _meta
  expect(metaOf(task)?.[RELATED], `related-task _meta in a task object: ${JSON.stringify(task)}`).toBeUndefined();
}

/** Collects notifications/tasks/status per task and lets tests wait for one. */
class StatusLog {
  readonly all: Rec[] = [];
  private waiters: { predicate: (n: Rec) => boolean; resolve: (n: Rec) => void }[] = [];

  /** Problems seen: notifications that do not satisfy the SDK's TaskStatusNotificationSchema. */
  readonly invalid: string[] = [];

  constructor(peer: SdkPeer) {
    // Registered with a loose params schema so the test sees every key the server sent; each one
    // must still satisfy the SDK's own TaskStatusNotificationSchema.
    peer.client.setNotificationHandler(RawStatusNotification, (notification) => {
      const checked = TaskStatusNotificationSchema.safeParse(notification);
      if (!checked.success) this.invalid.push(`${JSON.stringify(notification)}: ${checked.error.message}`);
      const params: Rec = { ...notification.params };
      this.all.push(params);
      const matching = this.waiters.filter((w) => w.predicate(params));
      this.waiters = this.waiters.filter((w) => !matching.includes(w));
      for (const w of matching) w.resolve(params);
    });
  }

  of(taskId: string): Rec[] {
    return this.all.filter((n) => n['taskId'] === taskId);
  }

  waitFor(predicate: (n: Rec) => boolean, what: string, timeoutMs = 8_000): Promise<Rec> {
    const found = this.all.find(predicate);
    if (found !== undefined) return Promise.resolve(found);
    return new Promise<Rec>((resolve, reject) => {
      const waiter = {
        predicate,
        resolve: (n: Rec) => {
          clearTimeout(timer);
          resolve(n);
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; seen: ${JSON.stringify(this.all)}`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }
}

/**
 * Sends a task-augmented tools/call by hand and returns the CreateTaskResult's task, after checking
 * that the raw result satisfies the SDK's CreateTaskResultSchema and has the 2025-11-25 Task shape.
 */
async function createTask(peer: SdkPeer, name: string, args: Rec, ttl?: number): Promise<Task> {
  const params = { name, arguments: args, task: ttl === undefined ? {} : { ttl } };
  const raw = await peer.client.request({ method: 'tools/call', params }, Raw);
  const created = CreateTaskResultSchema.parse(raw);
  expect(Object.keys(raw).filter((k) => k !== '_meta' && k !== 'task'), 'CreateTaskResult carries only task').toEqual([]);
  expect(raw).not.toHaveProperty('content');
  expect(created.task.status).toBe('working');
  expectTask2025(raw['task'] as Rec, ttl === undefined ? {} : { ttl });
  return created.task;
}

async function waitTerminal(peer: SdkPeer, taskId: string, seen?: string[]): Promise<Task> {
  return pollUntil(
    `task ${taskId} to reach a terminal status`,
    async () => {
      const task = await peer.client.experimental.tasks.getTask(taskId);
      seen?.push(task.status);
      return task;
    },
    (task) => TERMINAL.includes(task.status),
  );
}

/**
 * One server per flag set, all started up front in parallel; each describe block awaits its own.
 */
class PeerPool {
  private readonly started = new Map<string, Promise<{ peer: SdkPeer; log: StatusLog }>>();
  constructor(private readonly connect: ConnectSdk) {}

  start(flags: string[]): Promise<{ peer: SdkPeer; log: StatusLog }> {
    const key = JSON.stringify(flags);
    let entry = this.started.get(key);
    if (entry === undefined) {
      entry = this.connect(flags).then((peer) => ({ peer, log: new StatusLog(peer) }));
      entry.catch(() => undefined); // reported by the block that awaits it
      this.started.set(key, entry);
    }
    return entry;
  }

  async closeAll(): Promise<void> {
    const entries = await Promise.all([...this.started.values()].map((e) => e.catch(() => undefined)));
    await Promise.all(entries.map((e) => (e === undefined ? Promise.resolve() : e.peer.close())));
  }
}

function useServer(pool: PeerPool, flags: string[]): () => { peer: SdkPeer; log: StatusLog } {
  let entry: { peer: SdkPeer; log: StatusLog } | undefined;
  beforeAll(async () => {
    entry = await pool.start(flags);
  });
  return () => {
    if (entry === undefined) throw new Error(`server with flags ${JSON.stringify(flags)} is not connected`);
    return entry;
  };
}

export function define2025Flows(name: string, connect: ConnectSdk): void {
  describe(`2025-11-25 tasks with the SDK Client over ${name}`, () => {
    const POLL = 100;
    const MAIN_FLAGS = ['--poll-frequency', String(POLL)];
    const PAGING_FLAGS = ['--page-size', '7', '--poll-frequency', String(POLL)];
    const pool = new PeerPool(connect);
    beforeAll(() => {
      for (const flags of [MAIN_FLAGS, PAGING_FLAGS]) void pool.start(flags);
    });
    afterAll(async () => {
      await pool.closeAll();
    });

    describe('server with --poll-frequency 100', () => {
      const server = useServer(pool, MAIN_FLAGS);

      it('should declare tasks.list, tasks.cancel and tasks.requests.tools.call in the initialize result', () => {
        const { client } = server().peer;
        const tasks = client.getServerCapabilities()?.tasks;
        if (!isRecord(tasks)) throw new Error(`no tasks capability: ${JSON.stringify(client.getServerCapabilities())}`);
        expect(isRecord(tasks['list'])).toBe(true);
        expect(isRecord(tasks['cancel'])).toBe(true);
        const requests = tasks['requests'];
        expect(isRecord(requests) && isRecord(requests['tools']) && isRecord(requests['tools']['call'])).toBe(true);
      });

      it('should list execution.taskSupport for every demo tool', async () => {
        const { tools } = await server().peer.client.listTools();
        const support = Object.fromEntries(tools.map((t) => [t.name, t.execution?.taskSupport]));
        expect(support).toMatchObject({ sleep: 'optional', long_job: 'required', fail: 'optional', echo: 'forbidden' });
      });

      it('callToolStream: taskCreated, then taskStatus (working/completed only), then the result with the related-task key', async () => {
        const { client } = server().peer;
        const messages = [];
        const stream = client.experimental.tasks.callToolStream({ name: 'sleep', arguments: { ms: 300 } }, CallToolResultSchema, {
          task: { ttl: 60_000 },
        });
        for await (const message of stream) messages.push(message);

        const types = messages.map((m) => m.type);
        expect(types[0], JSON.stringify(messages)).toBe('taskCreated');
        expect(types.at(-1), JSON.stringify(messages)).toBe('result');
        expect(types.slice(1, -1).length).toBeGreaterThanOrEqual(1);
        expect(new Set(types.slice(1, -1))).toEqual(new Set(['taskStatus']));

        const first = messages[0];
        if (first?.type !== 'taskCreated') throw new Error('no taskCreated');
        const taskId = first.task.taskId;
        expect(first.task.status).toBe('working');
        const statuses = messages.flatMap((m) => (m.type === 'taskStatus' ? [m.task] : []));
        for (const t of statuses) expect(t.taskId).toBe(taskId);
        for (const t of [first.task, ...statuses]) expect(['working', 'completed']).toContain(t.status);
        expect(statuses.at(-1)?.status).toBe('completed');

        const last = messages.at(-1);
        if (last?.type !== 'result') throw new Error('no result');
        expect(last.result.content).toEqual([{ type: 'text', text: 'slept 300 ms' }]);
        expect(last.result.isError ?? false).toBe(false);
        expect(metaOf(last.result)?.[RELATED]).toEqual({ taskId });
      });

      it('manual tools/call with task: CreateTaskResult at once, tasks/get polling to completed, then tasks/result', async () => {
        const { peer } = server();
        const started = Date.now();
        const task = await createTask(peer, 'sleep', { ms: 600 }, 60_000);
        expect(Date.now() - started, 'CreateTaskResult must not wait for the tool').toBeLessThan(500);
        expect(task.status).toBe('working');
        expectTask2025(task, { ttl: 60_000, pollInterval: POLL });

        const seen: string[] = [];
        const done = await waitTerminal(peer, task.taskId, seen);
        expect(done.status).toBe('completed');
        expect(seen).toContain('working');
        for (const s of seen) expect(['working', 'completed']).toContain(s);

        const viaHelper = await peer.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
        expect(viaHelper.content).toEqual([{ type: 'text', text: 'slept 600 ms' }]);
        expect(metaOf(viaHelper)?.[RELATED]).toEqual({ taskId: task.taskId });

        const viaRequest = await peer.client.request({ method: 'tasks/result', params: { taskId: task.taskId } }, CallToolResultSchema);
        expect(viaRequest.content).toEqual([{ type: 'text', text: 'slept 600 ms' }]);
        expect(metaOf(viaRequest)?.[RELATED]).toEqual({ taskId: task.taskId });
      });

      it('tasks/result sent while the task is working blocks until it completes, then returns the result', async () => {
        const { peer } = server();
        const task = await createTask(peer, 'sleep', { ms: 1_200 }, 60_000);
        const createdAt = Date.now();
        let settledAt: number | undefined;
        const pending = peer.client.experimental.tasks
          .getTaskResult(task.taskId, CallToolResultSchema, { timeout: 10_000 })
          .finally(() => {
            settledAt = Date.now();
          });
        pending.catch(() => undefined);

        // A tasks/get sent after it finds the task still working, and tasks/result not answered.
        expect((await peer.client.experimental.tasks.getTask(task.taskId)).status).toBe('working');
        expect(settledAt, 'tasks/result answered while the task was still working').toBeUndefined();

        const result = await pending;
        expect(result.content).toEqual([{ type: 'text', text: 'slept 1200 ms' }]);
        expect(metaOf(result)?.[RELATED]).toEqual({ taskId: task.taskId });
        expect(settledAt! - createdAt).toBeGreaterThanOrEqual(1_000);
        const completed = await peer.client.experimental.tasks.getTask(task.taskId);
        expect(completed.status).toBe('completed');
        // Answered only once the task had completed (the server stamps that moment; same host clock).
        expect(settledAt!, 'tasks/result answered before the task completed').toBeGreaterThanOrEqual(Date.parse(completed.lastUpdatedAt));
      });

      it('task shape: ISO timestamps, lastUpdatedAt >= createdAt, the requested ttl, pollInterval = --poll-frequency, no related-task _meta', async () => {
        const { peer } = server();
        const task = await createTask(peer, 'sleep', { ms: 150 }, 45_000);
        expectTask2025(task, { ttl: 45_000, pollInterval: POLL });

        const working = await rawGet(peer.client, task.taskId);
        expectTask2025(working, { taskId: task.taskId, ttl: 45_000, pollInterval: POLL });
        expect(metaOf(working)?.[RELATED], 'tasks/get carries no related-task _meta').toBeUndefined();
        expect(working['createdAt']).toBe(task.createdAt);

        await waitTerminal(peer, task.taskId);
        const done = await rawGet(peer.client, task.taskId);
        expectTask2025(done, { taskId: task.taskId, ttl: 45_000, pollInterval: POLL });
        expect(done['status']).toBe('completed');
        expect(metaOf(done)?.[RELATED]).toBeUndefined();
        expect(done['createdAt']).toBe(task.createdAt);
        expect(Date.parse(done['lastUpdatedAt'] as string)).toBeGreaterThan(Date.parse(task.createdAt));
      });

      it('pollInterval follows the rule: the age (at least 25 ms) of a young task, --poll-frequency once older or terminal', async () => {
        const { peer } = server();
        const sentAt = Date.now();
        const task = await createTask(peer, 'sleep', { ms: 400 }, 60_000);
        // The CreateTaskResult is rendered as the task is created: the floor.
        expectTask2025(task, { pollInterval: POLL, sentAt });
        const created = Date.parse(task.createdAt);
        const suggested: number[] = [];
        while (Date.now() - created < 2 * POLL) {
          const readAt = Date.now();
          const read = await rawGet(peer.client, task.taskId);
          expectTask2025(read, { taskId: task.taskId, pollInterval: POLL, sentAt: readAt });
          suggested.push(read['pollInterval'] as number);
          await sleep(10);
        }
        // Never shrinking while it works, and at --poll-frequency once older than it.
        for (let i = 1; i < suggested.length; i++) expect(suggested[i]).toBeGreaterThanOrEqual(suggested[i - 1]!);
        expect((await rawGet(peer.client, task.taskId))['pollInterval']).toBe(POLL);
        await waitTerminal(peer, task.taskId);
        expect((await rawGet(peer.client, task.taskId))['pollInterval']).toBe(POLL);
      });

      it('tasks/cancel on a running long_job: cancelled, stays cancelled, a second cancel is -32602', async () => {
        const { peer, log } = server();
        const task = await createTask(peer, 'long_job', { seconds: 2 }, 60_000);
        await pollUntil(
          'long_job to report a step',
          () => peer.client.experimental.tasks.getTask(task.taskId),
          (t) => t.status === 'working' && /^step \d+\/10$/.test(t.statusMessage ?? ''),
        );

        const cancelled = await peer.client.experimental.tasks.cancelTask(task.taskId);
        expect(cancelled.taskId).toBe(task.taskId);
        expect(cancelled.status).toBe('cancelled');
        // Told by a notification (the cancel's answer is not one that tells it): waited for before
        // any tasks/get, whose answer would tell it first (then no notification need follow; on
        // NATS the change reaches the node as an event, which a get's answer may overtake).
        const note = await log.waitFor((n) => n['taskId'] === task.taskId && n['status'] === 'cancelled', 'a cancelled notifications/tasks/status');
        expectTask2025(note, { taskId: task.taskId });

        const right = await rawGet(peer.client, task.taskId);
        expect(right['status']).toBe('cancelled');
        // Five more steps' worth of time on the server's own timers: a 1 s long_job started after the
        // cancel completes (the cancelled job's steps, had they gone on, were due before its own).
        const control = await createTask(peer, 'long_job', { seconds: 1 }, 60_000);
        expect((await waitTerminal(peer, control.taskId)).status).toBe('completed');
        const later = await rawGet(peer.client, task.taskId);
        expect(later['status']).toBe('cancelled');
        expect(later['statusMessage']).toBe(right['statusMessage']);
        expect(later['lastUpdatedAt']).toBe(right['lastUpdatedAt']);
        expectTask2025(later, { taskId: task.taskId, ttl: 60_000, pollInterval: POLL });

        await expectMcpError(peer.client.experimental.tasks.cancelTask(task.taskId), INVALID_PARAMS);
        expect(log.of(task.taskId).filter((n) => n['status'] !== 'cancelled' && n['status'] !== 'working')).toEqual([]);
      });

      it('tasks/cancel on a completed task is -32602 and leaves it completed', async () => {
        const { peer } = server();
        const task = await createTask(peer, 'sleep', { ms: 0 }, 60_000);
        expect((await waitTerminal(peer, task.taskId)).status).toBe('completed');
        await expectMcpError(peer.client.experimental.tasks.cancelTask(task.taskId), INVALID_PARAMS);
        expect((await peer.client.experimental.tasks.getTask(task.taskId)).status).toBe('completed');
      });

      it('unknown task ids are -32602 for tasks/get, tasks/result and tasks/cancel; a bogus cursor is -32602', async () => {
        const { client } = server().peer;
        const unknown = 'no-such-task-0000';
        await expectMcpError(client.experimental.tasks.getTask(unknown), INVALID_PARAMS, NOT_FOUND);
        await expectMcpError(client.experimental.tasks.getTaskResult(unknown, CallToolResultSchema), INVALID_PARAMS, NOT_FOUND);
        await expectMcpError(client.experimental.tasks.cancelTask(unknown), INVALID_PARAMS, NOT_FOUND);
        await expectMcpError(client.experimental.tasks.listTasks('bogus-cursor'), INVALID_PARAMS, 'Invalid cursor');
      });

      it('-32601 for a required tool called without a task and a forbidden tool called with one; plain calls still work', async () => {
        const { client } = server().peer;
        await expectMcpError(
          client.request({ method: 'tools/call', params: { name: 'long_job', arguments: { seconds: 0.1 } } }, CallToolResultSchema),
          METHOD_NOT_FOUND,
        );
        await expectMcpError(
          client.request({ method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' }, task: { ttl: 60_000 } } }, CreateTaskResultSchema),
          METHOD_NOT_FOUND,
        );
        // controls: the same tools used as declared
        const echoed = await client.request({ method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } }, Raw);
        expect(echoed['content']).toEqual([{ type: 'text', text: 'hi' }]);
        expect(echoed).not.toHaveProperty('task');
        const plain = await client.request({ method: 'tools/call', params: { name: 'sleep', arguments: { ms: 10 } } }, Raw);
        expect(plain['content']).toEqual([{ type: 'text', text: 'slept 10 ms' }]);
        expect(metaOf(plain)?.[RELATED]).toBeUndefined();
      });

      it('fail as a task ends failed with the message in statusMessage; tasks/result returns the isError result', async () => {
        const { peer } = server();
        const task = await createTask(peer, 'fail', { message: 'boom-7f3a' }, 60_000);
        const done = await waitTerminal(peer, task.taskId);
        expect(done.status).toBe('failed');
        expect(done.statusMessage ?? '').toContain('boom-7f3a');
        expect(done.statusMessage).toBe('Tool reported an error: boom-7f3a');

        const result = await peer.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
        expect(result.isError).toBe(true);
        expect(result.content).toEqual([{ type: 'text', text: 'boom-7f3a' }]);
        expect(metaOf(result)?.[RELATED]).toEqual({ taskId: task.taskId });
      });

      it('notifications/tasks/status carry the full Task for a long_job, ending with a terminal one', async () => {
        const { peer, log } = server();
        const task = await createTask(peer, 'long_job', { seconds: 0.5 }, 60_000);
        const final = await log.waitFor(
          (n) => n['taskId'] === task.taskId && TERMINAL.includes(n['status'] as string),
          `a terminal notifications/tasks/status for ${task.taskId}`,
        );
        expect(final['status']).toBe('completed');
        const notes = log.of(task.taskId);
        expect(notes.length, JSON.stringify(notes)).toBeGreaterThanOrEqual(2);
        for (const n of notes) {
          expectTask2025(n, { taskId: task.taskId, ttl: 60_000, pollInterval: POLL });
          expect(['working', 'completed']).toContain(n['status']);
          expect(n['createdAt']).toBe(task.createdAt);
          expect(metaOf(n)?.[RELATED], 'notifications/tasks/status should not carry related-task _meta').toBeUndefined();
        }
        expect(notes.some((n) => n['status'] === 'working' && /^step \d+\/10$/.test(String(n['statusMessage'])))).toBe(true);
        expect(log.invalid, 'notifications rejected by the SDK schema').toEqual([]);
        expect((await peer.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)).content).toEqual([
          { type: 'text', text: 'long_job done in 0.5 s' },
        ]);
        // nothing after the terminal one: the same job again, started after it, ends with its own
        // terminal notification on the same stream; the first job's timers were all due before its
        // own, so whatever they sent is in by then
        const control = await createTask(peer, 'long_job', { seconds: 0.5 }, 60_000);
        await log.waitFor((n) => n['taskId'] === control.taskId && TERMINAL.includes(n['status'] as string), `a terminal notifications/tasks/status for ${control.taskId}`);
        expect(log.of(task.taskId).at(-1)).toEqual(final);
        expect(log.of(task.taskId).filter((n) => TERMINAL.includes(n['status'] as string))).toHaveLength(1);
      });
    });

    describe('server with --page-size 7', () => {
      const server = useServer(pool, PAGING_FLAGS);

      it('tasks/list pages 30 tasks 7 at a time: every id exactly once, no nextCursor at the end', async () => {
        const { peer } = server();
        const created: string[] = [];
        for (let i = 0; i < 30; i++) created.push((await createTask(peer, 'sleep', { ms: 5 }, 60_000)).taskId);
        expect(new Set(created).size).toBe(30);

        const listed: string[] = [];
        const pageSizes: number[] = [];
        let cursor: string | undefined;
        for (let page = 0; ; page++) {
          if (page > 20) throw new Error('tasks/list never ended');
          const result = await peer.client.experimental.tasks.listTasks(cursor);
          pageSizes.push(result.tasks.length);
          for (const t of result.tasks) {
            expectTask2025(t, { ttl: 60_000, pollInterval: POLL });
            listed.push(t.taskId);
          }
          if (result.nextCursor === undefined) break;
          expect(typeof result.nextCursor).toBe('string');
          expect(result.nextCursor).not.toBe('');
          cursor = result.nextCursor;
        }
        for (const size of pageSizes) expect(size).toBeLessThanOrEqual(7);
        // the raw first page: 7 entries in the 2025-11-25 shape, an opaque cursor, no related-task _meta
        const rawFirst = await peer.client.request({ method: 'tasks/list', params: {} }, Raw);
        const rawTasks = rawFirst['tasks'];
        if (!Array.isArray(rawTasks)) throw new Error(`tasks/list without tasks: ${JSON.stringify(rawFirst)}`);
        expect(rawTasks.length).toBe(7);
        for (const t of rawTasks) expectTask2025(t as Rec, { ttl: 60_000, pollInterval: POLL });
        expect(typeof rawFirst['nextCursor']).toBe('string');
        expect(metaOf(rawFirst)?.[RELATED]).toBeUndefined();
        expect(pageSizes.length).toBeGreaterThanOrEqual(5);
        expect(listed.length).toBe(30);
        expect([...listed].sort()).toEqual([...created].sort());
      });
    });
  });
}
