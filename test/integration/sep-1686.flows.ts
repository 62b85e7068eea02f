/**
 * Black-box SEP-1686 flows, written once and run over every transport.
 *
 * Each flow talks raw JSON-RPC through a {@link Wire}: the server under test is the
 * real CLI (`dist/adapters/cli/main.js serve ...`) in a child process.
 * Spec: /work/shared/specs/sep-1686-tasks.md (sections 3, 4, 6, 7).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  isRecord,
  type Connect,
  type JSONRPCNotification,
  type JSONRPCResponse,
  type JsonRpcErrorObject,
  type JsonRpcId,
  type Wire,
} from './harness/types.js';
import { sleep, type Rec, ok } from './harness/json.js';
import { expectPollInterval } from './harness/poll-interval.js';

const META = 'modelcontextprotocol.io/task';
const RELATED = 'modelcontextprotocol.io/related-task';
const CREATED = 'notifications/tasks/created';
const NOT_FOUND = 'Failed to retrieve task: Task not found';
const GONE = /^Failed to retrieve task: Task (has expired|not found)$/;
const INVALID_PARAMS = -32602;
const METHOD_NOT_FOUND = -32601;
const STATUSES = ['submitted', 'working', 'input_required', 'completed', 'failed', 'cancelled', 'unknown'];
const GET_KEYS = ['taskId', 'status', 'keepAlive', 'pollFrequency', 'statusMessage', 'error', '_meta'];
const DEFAULT_KEEP_ALIVE = 300_000;
const DEFAULT_POLL_FREQUENCY = 1_000;


// ---------------------------------------------------------------------------
// small helpers
// ---------------------------------------------------------------------------


function taskMeta(taskId: unknown, keepAlive?: unknown): Rec {
  const task: Rec = { taskId };
  if (keepAlive !== undefined) task['keepAlive'] = keepAlive;
  return { [META]: task };
}

function toolCall(name: string, args: Rec, meta?: Rec): Rec {
  const params: Rec = { name, arguments: args };
  if (meta !== undefined) params['_meta'] = meta;
  return params;
}

function text(t: string): Rec[] {
  return [{ type: 'text', text: t }];
}

/** `obj._meta["modelcontextprotocol.io/related-task"]`, or undefined. */
function relatedOf(obj: unknown): unknown {
  if (!isRecord(obj)) return undefined;
  const meta = obj['_meta'];
  return isRecord(meta) ? meta[RELATED] : undefined;
}

function createdFor(taskId: string): (n: JSONRPCNotification) => boolean {
  return (n) => n.method === CREATED && isRecord(relatedOf(n.params)) && (relatedOf(n.params) as Rec)['taskId'] === taskId;
}

function createdCount(wire: Wire, taskId: string): number {
  return wire.notifications.filter(createdFor(taskId)).length;
}


/** Asserts an error response with the given code (and message, exact string or pattern). */
function fails(res: JSONRPCResponse, code: number, message?: string | RegExp): JsonRpcErrorObject {
  if (res.error === undefined) throw new Error(`expected a JSON-RPC error ${code}, got ${JSON.stringify(res)}`);
  expect(res.result).toBeUndefined();
  expect(res.error.code, JSON.stringify(res.error)).toBe(code);
  if (typeof message === 'string') expect(res.error.message).toBe(message);
  else if (message !== undefined) expect(res.error.message).toMatch(message);
  return res.error;
}

async function pollUntil<T>(
  what: string,
  fn: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 5_000,
  intervalMs = 25,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (done(value)) return value;
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last value: ${JSON.stringify(value)}`);
    }
    await sleep(intervalMs);
  }
}

function getTask(wire: Wire, taskId: string): Promise<JSONRPCResponse> {
  return wire.request('tasks/get', { taskId });
}

async function taskState(wire: Wire, taskId: string): Promise<Rec> {
  return ok(await getTask(wire, taskId));
}

function statusOf(state: Rec): string {
  const status = state['status'];
  if (typeof status !== 'string') throw new Error(`task state without a string status: ${JSON.stringify(state)}`);
  return status;
}

function waitForStatus(wire: Wire, taskId: string, wanted: (status: string) => boolean, what: string, timeoutMs = 5_000): Promise<Rec> {
  return pollUntil(`task ${taskId} to be ${what}`, () => taskState(wire, taskId), (s) => wanted(statusOf(s)), timeoutMs);
}

/**
 * Asserts the common shape of a tasks/get result. `pollFrequency` is the configured interval: the
 * task must suggest what the rule gives for its age (bounded by `created`, when known).
 */
function expectTaskShape(
  state: Rec,
  taskId: string,
  expected: { keepAlive: number; pollFrequency: number; status?: string; created?: readonly [number, number] },
): void {
  for (const key of Object.keys(state)) expect(GET_KEYS, `unexpected key '${key}' in tasks/get result`).toContain(key);
  expect(state['taskId']).toBe(taskId);
  expect(STATUSES).toContain(state['status']);
  if (expected.status !== undefined) expect(state['status']).toBe(expected.status);
  expect(state['keepAlive']).toBe(expected.keepAlive);
  expectPollInterval(state['pollFrequency'], expected.pollFrequency, expected.created === undefined ? { status: state['status'] } : { status: state['status'], created: expected.created });
  expect(relatedOf(state)).toEqual({ taskId });
  if (state['statusMessage'] !== undefined) expect(typeof state['statusMessage']).toBe('string');
}

interface StartedTask {
  taskId: string;
  requestId: JsonRpcId;
  created: JSONRPCNotification;
  /** When the task was created, at the earliest and the latest: the request's send and its notifications/tasks/created's arrival. */
  createdWithin: readonly [number, number];
}

/** Sends a task-augmented tools/call and waits for its notifications/tasks/created. */
async function startTask(
  wire: Wire,
  tool: string,
  args: Rec,
  options: { taskId?: string; keepAlive?: number } = {},
): Promise<StartedTask> {
  const taskId = options.taskId ?? randomUUID();
  const sentAt = Date.now();
  const requestId = wire.sendRequestNoWait('tools/call', toolCall(tool, args, taskMeta(taskId, options.keepAlive)));
  const created = await Promise.race([
    wire.waitForNotification(createdFor(taskId), 5_000),
    wire.responseFor(requestId, 5_000).then((res) => {
      const seen = wire.notifications.find(createdFor(taskId));
      if (seen !== undefined) return seen;
      throw new Error(`tools/call ${tool} was answered without a prior ${CREATED} for ${taskId}: ${JSON.stringify(res)}`);
    }),
  ]);
  return { taskId, requestId, created, createdWithin: [sentAt, Date.now()] };
}

/** startTask + wait for the tools/call response (asserted successful). */
async function runTask(
  wire: Wire,
  tool: string,
  args: Rec,
  options: { taskId?: string; keepAlive?: number } = {},
): Promise<StartedTask & { result: Rec }> {
  const started = await startTask(wire, tool, args, options);
  const result = ok(await wire.responseFor(started.requestId, 10_000));
  return { ...started, result };
}

/** Follows nextCursor through every page of tasks/list. */
async function listPages(wire: Wire): Promise<{ pages: Rec[]; tasks: Rec[] }> {
  const pages: Rec[] = [];
  const tasks: Rec[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 200; i++) {
    const page = ok(await wire.request('tasks/list', cursor === undefined ? {} : { cursor }));
    pages.push(page);
    const pageTasks = page['tasks'];
    if (!Array.isArray(pageTasks)) throw new Error(`tasks/list result has no tasks array: ${JSON.stringify(page)}`);
    for (const t of pageTasks) {
      if (!isRecord(t)) throw new Error(`tasks/list entry is not an object: ${JSON.stringify(t)}`);
      tasks.push(t);
    }
    const next = page['nextCursor'];
    if (next === undefined) return { pages, tasks };
    if (typeof next !== 'string' || next === '') throw new Error(`nextCursor is not a non-empty string: ${JSON.stringify(page)}`);
    cursor = next;
  }
  throw new Error('tasks/list did not reach a page without nextCursor within 200 pages');
}

async function listedIds(wire: Wire): Promise<string[]> {
  return (await listPages(wire)).tasks.map((t) => String(t['taskId']));
}

/**
 * Server processes for the flows. Every configuration is spawned up front, in
 * parallel (startup dominates the wall time), but each describe block awaits
 * only its own server, so a server that fails to start fails only its block.
 */
class ServerPool {
  private readonly started = new Map<string, Promise<Wire>>();
  constructor(private readonly connect: Connect) {}

  start(flags: string[]): Promise<Wire> {
    const key = JSON.stringify(flags);
    let wire = this.started.get(key);
    if (wire === undefined) {
      wire = this.connect(flags);
      wire.catch(() => undefined); // reported by the block that awaits it
      this.started.set(key, wire);
    }
    return wire;
  }

  async closeAll(): Promise<void> {
    const wires = await Promise.all([...this.started.values()].map((w) => w.catch(() => undefined)));
    await Promise.all(wires.map((w) => (w === undefined ? Promise.resolve() : w.close())));
  }
}

/**
 * Connects a describe block to its server (beforeAll), kills it afterAll, and fails
 * a test if the harness saw protocol violations (non-JSON stdout, stray responses...).
 */
function useServer(pool: ServerPool, flags: string[]): () => Wire {
  let wire: Wire | undefined;
  let reported = 0;
  beforeAll(async () => {
    wire = await pool.start(flags);
  });
  afterAll(async () => {
    await wire?.close();
  });
  afterEach(() => {
    if (wire === undefined) return;
    const fresh = wire.violations.slice(reported);
    reported = wire.violations.length;
    expect(fresh, 'protocol violations seen on the wire').toEqual([]);
  });
  return () => {
    if (wire === undefined) throw new Error(`server with flags ${JSON.stringify(flags)} is not connected`);
    return wire;
  };
}

// ---------------------------------------------------------------------------
// the flows
// ---------------------------------------------------------------------------

export function defineSep1686Flows(name: string, connect: Connect): void {
  describe(`SEP-1686 tasks over ${name}`, () => {
    const POLL = 250;
    const MAIN_FLAGS = ['--poll-frequency', String(POLL)];
    const PAGING_FLAGS = ['--page-size', '7'];
    const EXPIRY_FLAGS = ['--default-keep-alive', '300', '--max-keep-alive', '1000'];
    const pool = new ServerPool(connect);
    beforeAll(() => {
      for (const flags of [MAIN_FLAGS, PAGING_FLAGS, EXPIRY_FLAGS]) void pool.start(flags);
    });
    afterAll(async () => {
      await pool.closeAll();
    });

    describe('server with --poll-frequency 250', () => {
      const server = useServer(pool, MAIN_FLAGS);

      it('should declare the tasks capability in the initialize result', () => {
        const init = server().initializeResult;
        expect(init['protocolVersion']).toBe('2025-11-25');
        const capabilities = init['capabilities'];
        expect(isRecord(capabilities)).toBe(true);
        expect((capabilities as Rec)['tasks']).toBeDefined();
        expect((capabilities as Rec)['tasks']).not.toBeNull();
      });

      it('should list the demo tools with their execution.taskSupport', async () => {
        const result = ok(await server().request('tools/list', {}));
        const tools = result['tools'];
        if (!Array.isArray(tools)) throw new Error(`tools/list without tools: ${JSON.stringify(result)}`);
        const support = (toolName: string): unknown => {
          const tool: unknown = tools.find((t: unknown) => isRecord(t) && t['name'] === toolName);
          if (!isRecord(tool)) throw new Error(`tool ${toolName} not listed: ${JSON.stringify(tools)}`);
          const execution = tool['execution'];
          return isRecord(execution) ? execution['taskSupport'] : undefined;
        };
        expect(support('sleep')).toBe('optional');
        expect(support('long_job')).toBe('required');
        expect(support('fail')).toBe('optional');
        expect(support('echo')).toBe('forbidden');
      });

      it('should answer a plain sleep call normally, without task notification, task or related-task metadata', async () => {
        const wire = server();
        const before = await listedIds(wire);
        const notificationsBefore = wire.notifications.length;
        const result = ok(await wire.request('tools/call', toolCall('sleep', { ms: 20 })));
        expect(result['content']).toEqual(text('slept 20 ms'));
        expect(result['isError'] ?? false).toBe(false);
        expect(relatedOf(result)).toBeUndefined();
        expect(wire.notifications.slice(notificationsBefore), 'no notification for a plain call').toEqual([]);
        expect((await listedIds(wire)).sort()).toEqual([...before].sort());
      });

      it('should send notifications/tasks/created (only the related-task key) before the tools/call response', async () => {
        const wire = server();
        const { taskId, requestId, created, result } = await runTask(wire, 'sleep', { ms: 200 });
        expect(created.params).toEqual({ _meta: { [RELATED]: { taskId } } });
        const createdSeq = wire.inbound.find((e) => e.kind === 'notification' && createdFor(taskId)(e.message))?.seq;
        const responseSeq = wire.inbound.find((e) => e.kind === 'response' && e.message.id === requestId)?.seq;
        expect(createdSeq).toBeDefined();
        expect(responseSeq).toBeDefined();
        expect(createdSeq as number).toBeLessThan(responseSeq as number);
        expect(createdCount(wire, taskId)).toBe(1);
        // the normal result, plus the related-task key
        expect(result['content']).toEqual(text('slept 200 ms'));
        expect(result['isError'] ?? false).toBe(false);
        expect(relatedOf(result)).toEqual({ taskId });
      });

      it('should report the task via tasks/get with taskId, status, requested keepAlive, pollFrequency and related-task metadata', async () => {
        const wire = server();
        const { taskId, requestId, createdWithin } = await startTask(wire, 'sleep', { ms: 400 }, { keepAlive: 60_000 });
        const running = await taskState(wire, taskId);
        expectTaskShape(running, taskId, { keepAlive: 60_000, pollFrequency: POLL, created: createdWithin });
        expect(['submitted', 'working']).toContain(running['status']);

        ok(await wire.responseFor(requestId));
        const done = await taskState(wire, taskId);
        expectTaskShape(done, taskId, { keepAlive: 60_000, pollFrequency: POLL, status: 'completed' });
        expect(done).not.toHaveProperty('error');
      });

      it('should report the default keepAlive (300000) when the request gives none', async () => {
        const wire = server();
        const { taskId } = await runTask(wire, 'sleep', { ms: 10 });
        expectTaskShape(await taskState(wire, taskId), taskId, {
          keepAlive: DEFAULT_KEEP_ALIVE,
          pollFrequency: POLL,
          status: 'completed',
        });
      });

      it('should refuse tasks/result before completion with the exact status message', async () => {
        const wire = server();
        const { taskId, requestId } = await startTask(wire, 'sleep', { ms: 500 });
        const s1 = statusOf(await taskState(wire, taskId));
        const early = await wire.request('tasks/result', { taskId });
        const s2 = statusOf(await taskState(wire, taskId));
        expect(['submitted', 'working']).toContain(s1);
        expect(['submitted', 'working']).toContain(s2);
        const error = fails(early, INVALID_PARAMS);
        expect([s1, s2].map((s) => `Cannot retrieve result: Task status is '${s}', not 'completed'`)).toContain(error.message);

        const final = ok(await wire.responseFor(requestId));
        const later = ok(await wire.request('tasks/result', { taskId }));
        expect(later).toEqual(final);
      });

      it('should return the original result from tasks/result, repeatedly, with related-task metadata', async () => {
        const wire = server();
        const { taskId, result } = await runTask(wire, 'sleep', { ms: 50 });
        const first = ok(await wire.request('tasks/result', { taskId }));
        const second = ok(await wire.request('tasks/result', { taskId }));
        expect(first['content']).toEqual(text('slept 50 ms'));
        expect(relatedOf(first)).toEqual({ taskId });
        expect(first).toEqual(result);
        expect(second).toEqual(first);
      });

      it('should list running and completed tasks in tasks/list with status, keepAlive and pollFrequency', async () => {
        const wire = server();
        const { taskId, requestId, createdWithin } = await startTask(wire, 'sleep', { ms: 400 }, { keepAlive: 45_000 });
        const whileRunning = (await listPages(wire)).tasks.filter((t) => t['taskId'] === taskId);
        expect(whileRunning).toHaveLength(1);
        expect(['submitted', 'working']).toContain(whileRunning[0]?.['status']);
        expect(whileRunning[0]).toMatchObject({ taskId, keepAlive: 45_000 });
        expectPollInterval(whileRunning[0]?.['pollFrequency'], POLL, { status: whileRunning[0]?.['status'], created: createdWithin });

        ok(await wire.responseFor(requestId));
        const afterwards = (await listPages(wire)).tasks.filter((t) => t['taskId'] === taskId);
        expect(afterwards).toHaveLength(1);
        expect(afterwards[0]).toMatchObject({ taskId, status: 'completed', keepAlive: 45_000, pollFrequency: POLL });
      });

      it('should delete a task: tasks/delete returns related-task metadata and the task is gone from get, result and list', async () => {
        const wire = server();
        const { taskId } = await runTask(wire, 'sleep', { ms: 10 });
        expect(await listedIds(wire)).toContain(taskId);

        const deleted = ok(await wire.request('tasks/delete', { taskId }));
        expect(deleted).toEqual({ _meta: { [RELATED]: { taskId } } });

        fails(await getTask(wire, taskId), INVALID_PARAMS, NOT_FOUND);
        fails(await wire.request('tasks/result', { taskId }), INVALID_PARAMS, NOT_FOUND);
        expect(await listedIds(wire)).not.toContain(taskId);
        fails(await wire.request('tasks/delete', { taskId }), INVALID_PARAMS, NOT_FOUND);
      });

      it('should answer tasks/get, tasks/result and tasks/delete for an unknown task id with -32602 Task not found', async () => {
        const wire = server();
        const taskId = randomUUID();
        fails(await getTask(wire, taskId), INVALID_PARAMS, NOT_FOUND);
        fails(await wire.request('tasks/result', { taskId }), INVALID_PARAMS, NOT_FOUND);
        fails(await wire.request('tasks/delete', { taskId }), INVALID_PARAMS, NOT_FOUND);
      });

      it('should reject a duplicate task id of a completed task and leave the original untouched', async () => {
        const wire = server();
        const { taskId, result } = await runTask(wire, 'sleep', { ms: 30 }, { keepAlive: 50_000 });
        const stateBefore = await taskState(wire, taskId);

        const duplicate = await wire.request('tools/call', toolCall('sleep', { ms: 5 }, taskMeta(taskId)));
        fails(duplicate, INVALID_PARAMS, `Task ID already exists: ${taskId}`);
        expect(createdCount(wire, taskId)).toBe(1);

        expect(await taskState(wire, taskId)).toEqual(stateBefore);
        expect(stateBefore['status']).toBe('completed');
        expect(stateBefore['keepAlive']).toBe(50_000);
        expect(ok(await wire.request('tasks/result', { taskId }))).toEqual(result);
        expect(result['content']).toEqual(text('slept 30 ms'));
      });

      it('should reject a duplicate task id while the original runs, and the original still completes with its own result', async () => {
        const wire = server();
        const { taskId, requestId } = await startTask(wire, 'sleep', { ms: 400 });
        const duplicate = await wire.request('tools/call', toolCall('sleep', { ms: 5 }, taskMeta(taskId)));
        fails(duplicate, INVALID_PARAMS, `Task ID already exists: ${taskId}`);
        expect(createdCount(wire, taskId)).toBe(1);
        expect(['submitted', 'working']).toContain(statusOf(await taskState(wire, taskId)));

        const original = ok(await wire.responseFor(requestId));
        expect(original['content']).toEqual(text('slept 400 ms'));
        expect(relatedOf(original)).toEqual({ taskId });
        expect(statusOf(await taskState(wire, taskId))).toBe('completed');
        expect(ok(await wire.request('tasks/result', { taskId }))).toEqual(original);
      });

      it('should reject malformed task metadata with -32602 and a message naming the bad field', async () => {
        const wire = server();
        const validId = (): string => randomUUID();
        const cases: { label: string; task: Rec; mentions: RegExp; id?: string }[] = [
          { label: 'numeric taskId', task: { taskId: 42 }, mentions: /task ?id/i },
          { label: 'empty taskId', task: { taskId: '' }, mentions: /task ?id/i },
          { label: 'missing taskId', task: {}, mentions: /task ?id/i },
        ];
        const negativeId = validId();
        const stringKeepAliveId = validId();
        cases.push(
          { label: 'negative keepAlive', task: { taskId: negativeId, keepAlive: -1 }, mentions: /keep ?alive/i, id: negativeId },
          {
            label: 'string keepAlive',
            task: { taskId: stringKeepAliveId, keepAlive: '1000' },
            mentions: /keep ?alive/i,
            id: stringKeepAliveId,
          },
        );
        for (const c of cases) {
          const notificationsBefore = wire.notifications.length;
          const res = await wire.request('tools/call', toolCall('sleep', { ms: 5 }, { [META]: c.task }));
          const error = fails(res, INVALID_PARAMS);
          expect(error.message, c.label).toMatch(c.mentions);
          expect(
            wire.notifications.slice(notificationsBefore).filter((n) => n.method === CREATED),
            `${c.label}: no task may be created`,
          ).toEqual([]);
          if (c.id !== undefined) fails(await getTask(wire, c.id), INVALID_PARAMS, NOT_FOUND);
        }
      });

      it('should ignore task metadata on echo (taskSupport forbidden): normal response, no notification, no task', async () => {
        const wire = server();
        const taskId = randomUUID();
        const words = `hello ${taskId}`;
        const result = ok(await wire.request('tools/call', toolCall('echo', { text: words }, taskMeta(taskId))));
        expect(result['content']).toEqual(text(words));
        expect(result['isError'] ?? false).toBe(false);
        expect(relatedOf(result)).toBeUndefined();
        // A task's notifications/tasks/created travels ahead of its tools/call response, on the same
        // stream: had a task been made, its notification would be in by now.
        expect(createdCount(wire, taskId)).toBe(0);
        fails(await getTask(wire, taskId), INVALID_PARAMS, NOT_FOUND);
        expect(await listedIds(wire)).not.toContain(taskId);
      });

      it('should refuse long_job without task metadata with -32601', async () => {
        const wire = server();
        const notificationsBefore = wire.notifications.length;
        fails(await wire.request('tools/call', toolCall('long_job', { seconds: 0.1 })), METHOD_NOT_FOUND);
        expect(wire.notifications.slice(notificationsBefore).filter((n) => n.method === CREATED)).toEqual([]);
      });

      it('should expose long_job progress as statusMessage "step i/10" via tasks/get while it runs', async () => {
        const wire = server();
        const { taskId, requestId } = await startTask(wire, 'long_job', { seconds: 1.2 });
        const seen: { status: string; statusMessage: unknown }[] = [];
        const deadline = Date.now() + 8_000;
        while (!wire.responseReceived(requestId) && Date.now() < deadline) {
          const state = await taskState(wire, taskId);
          seen.push({ status: statusOf(state), statusMessage: state['statusMessage'] });
          if (statusOf(state) === 'completed') break;
          await sleep(30);
        }
        const result = ok(await wire.responseFor(requestId));
        expect(result['content']).toEqual(text('long_job done in 1.2 s'));
        expect(relatedOf(result)).toEqual({ taskId });

        const working = seen.filter((s) => s.status === 'working');
        const steps = working
          .map((s) => s.statusMessage)
          .filter((m): m is string => typeof m === 'string')
          .map((m) => {
            const match = /^step (\d+)\/10$/.exec(m);
            if (match === null) throw new Error(`statusMessage while working is not 'step i/10': ${JSON.stringify(m)}`);
            return Number(match[1]);
          });
        for (const step of steps) {
          expect(step).toBeGreaterThanOrEqual(1);
          expect(step).toBeLessThanOrEqual(10);
        }
        expect([...steps].sort((a, b) => a - b), 'steps never go backwards').toEqual(steps);
        expect(new Set(steps).size, `distinct steps observed: ${JSON.stringify(seen)}`).toBeGreaterThanOrEqual(3);

        expect(statusOf(await taskState(wire, taskId))).toBe('completed');
        expect(ok(await wire.request('tasks/result', { taskId }))).toEqual(result);
      });

      it('should cancel a running long_job via notifications/cancelled and never answer the cancelled request', async () => {
        const wire = server();
        const { taskId, requestId } = await startTask(wire, 'long_job', { seconds: 3 });
        await waitForStatus(wire, taskId, (s) => s === 'working', 'working', 3_000);
        await wire.notify('notifications/cancelled', { requestId, reason: 'integration test cancel' });

        const cancelled = await waitForStatus(wire, taskId, (s) => s !== 'working' && s !== 'submitted', 'cancelled', 2_000);
        expect(statusOf(cancelled)).toBe('cancelled');
        expect(cancelled['taskId']).toBe(taskId);

        // Three of its steps' worth of time on the server's own timers: a 1 s long_job started after
        // the cancel completes (the cancelled job's steps, had they gone on, were due before its own).
        const control = await startTask(wire, 'long_job', { seconds: 1 });
        expect(ok(await wire.responseFor(control.requestId, 5_000))['content']).toEqual(text('long_job done in 1 s'));
        const later = await taskState(wire, taskId);
        expect(statusOf(later)).toBe('cancelled');
        // the work has ceased: no further progress after cancellation
        expect(later['statusMessage']).toEqual(cancelled['statusMessage']);
        expect(wire.responseReceived(requestId)).toBe(false);

        fails(
          await wire.request('tasks/result', { taskId }),
          INVALID_PARAMS,
          "Cannot retrieve result: Task status is 'cancelled', not 'completed'",
        );
        const listed = (await listPages(wire)).tasks.filter((t) => t['taskId'] === taskId);
        expect(listed).toHaveLength(1);
        expect(listed[0]?.['status']).toBe('cancelled');
        expect(wire.responseReceived(requestId)).toBe(false);
      });

      it('should ignore a notifications/cancelled that arrives after the task completed', async () => {
        const wire = server();
        const { taskId, requestId, result } = await runTask(wire, 'sleep', { ms: 30 });
        await wire.notify('notifications/cancelled', { requestId, reason: 'too late' });
        // Messages are handled in the order they arrive (a notification's handler before a later
        // request's): by the time ping is answered, the late cancel has been dealt with.
        ok(await wire.request('ping', {}));
        expect(statusOf(await taskState(wire, taskId))).toBe('completed');
        expect(ok(await wire.request('tasks/result', { taskId }))).toEqual(result);
      });

      it('should end a fail task as completed (not failed) and return isError true from tasks/result', async () => {
        const wire = server();
        const message = `boom ${randomUUID()}`;
        const { taskId, result } = await runTask(wire, 'fail', { message });
        expect(result['content']).toEqual(text(message));
        expect(result['isError']).toBe(true);
        expect(relatedOf(result)).toEqual({ taskId });

        expect(statusOf(await taskState(wire, taskId))).toBe('completed');
        const stored = ok(await wire.request('tasks/result', { taskId }));
        expect(stored['content']).toEqual(text(message));
        expect(stored['isError']).toBe(true);
        expect(relatedOf(stored)).toEqual({ taskId });
      });

      it('should answer a plain fail call with isError true and no related-task metadata', async () => {
        const wire = server();
        const message = `plain boom ${randomUUID()}`;
        const result = ok(await wire.request('tools/call', toolCall('fail', { message })));
        expect(result['content']).toEqual(text(message));
        expect(result['isError']).toBe(true);
        expect(relatedOf(result)).toBeUndefined();
      });
    });

    describe('server with --page-size 7', () => {
      const server = useServer(pool, PAGING_FLAGS);

      it('should page through 30 tasks 7 at a time, each exactly once, without nextCursor on the last page', async () => {
        const wire = server();
        const ids = Array.from({ length: 30 }, () => randomUUID());
        const requests = ids.map((taskId) =>
          wire.sendRequestNoWait('tools/call', toolCall('sleep', { ms: 0 }, taskMeta(taskId))),
        );
        const results = await Promise.all(requests.map((id) => wire.responseFor(id)));
        results.forEach((res, i) => expect(relatedOf(ok(res))).toEqual({ taskId: ids[i] }));

        const { pages, tasks } = await listPages(wire);
        expect(pages.map((p) => (p['tasks'] as unknown[]).length)).toEqual([7, 7, 7, 7, 2]);
        pages.slice(0, -1).forEach((p) => expect(typeof p['nextCursor']).toBe('string'));
        expect(pages[pages.length - 1]).not.toHaveProperty('nextCursor');

        const listed = tasks.map((t) => String(t['taskId']));
        expect(new Set(listed).size).toBe(listed.length);
        expect([...listed].sort()).toEqual([...ids].sort());
        for (const t of tasks) {
          expect(t).toMatchObject({ status: 'completed', keepAlive: DEFAULT_KEEP_ALIVE, pollFrequency: DEFAULT_POLL_FREQUENCY });
        }
      });

      it('should suggest a young task its age as pollFrequency (at least 25 ms), growing to the default 1000 ms', async () => {
        const wire = server();
        const { taskId, requestId, createdWithin } = await startTask(wire, 'sleep', { ms: 1_500 });
        const reads: { sentAt: number; state: Rec }[] = [];
        for (const wait of [0, 300, 300]) {
          await sleep(wait);
          const sentAt = Date.now();
          reads.push({ sentAt, state: await taskState(wire, taskId) });
        }
        for (const { sentAt, state } of reads) {
          expect(['submitted', 'working']).toContain(state['status']);
          expectTaskShape(state, taskId, { keepAlive: DEFAULT_KEEP_ALIVE, pollFrequency: DEFAULT_POLL_FREQUENCY, created: createdWithin });
          expectPollInterval(state['pollFrequency'], DEFAULT_POLL_FREQUENCY, { status: state['status'], created: createdWithin, sentAt });
        }
        // Young, then older by 300 ms at each read: well below the default, and growing.
        const suggested = reads.map((r) => r.state['pollFrequency'] as number);
        expect(suggested[0]).toBeLessThan(DEFAULT_POLL_FREQUENCY);
        expect(suggested[1]).toBeGreaterThan(suggested[0]!);
        expect(suggested[2]).toBeGreaterThan(suggested[1]!);
        ok(await wire.responseFor(requestId));
        expect((await taskState(wire, taskId))['pollFrequency']).toBe(DEFAULT_POLL_FREQUENCY);
      });

      it('should reject a bogus cursor with -32602 and a message mentioning the cursor', async () => {
        const wire = server();
        const bogus = ['not-a-cursor', Buffer.from(JSON.stringify({ offset: randomUUID() })).toString('base64')];
        for (const cursor of bogus) {
          fails(await wire.request('tasks/list', { cursor }), INVALID_PARAMS, /cursor/i);
        }
      });
    });

    describe('server with --default-keep-alive 300 --max-keep-alive 1000', () => {
      const server = useServer(pool, EXPIRY_FLAGS);

      /**
       * Waits until the server's expiry has passed the default keepAlive (300 ms) counted from now,
       * on its own clock: a control task with the default keepAlive, completed after this call,
       * expires. Anything due earlier under the default is gone by then (deadlines fire in order).
       */
      async function defaultKeepAlivePassed(wire: Wire): Promise<void> {
        const { taskId } = await runTask(wire, 'sleep', { ms: 0 });
        await pollUntil(`the control task ${taskId} to expire`, () => getTask(wire, taskId), (res) => res.error !== undefined, 4_000, 20);
      }

      /** Polls tasks/get until the task is gone; returns ms elapsed since `since`. */
      async function expectExpiry(wire: Wire, taskId: string, since: number, minMs: number, maxMs: number): Promise<void> {
        const gone = await pollUntil(
          `task ${taskId} to expire`,
          () => getTask(wire, taskId),
          (res) => res.error !== undefined,
          maxMs + 1_000,
          20,
        );
        const elapsed = Date.now() - since;
        fails(gone, INVALID_PARAMS, GONE);
        expect(elapsed, 'expired too early').toBeGreaterThanOrEqual(minMs);
        expect(elapsed, 'expired too late').toBeLessThanOrEqual(maxMs);
        const result = await wire.request('tasks/result', { taskId });
        fails(result, INVALID_PARAMS, /^Failed to retrieve task:/);
        expect(await listedIds(wire)).not.toContain(taskId);
      }

      it('should expire a completed task once the default keepAlive (300 ms) has elapsed', async () => {
        const wire = server();
        const { taskId } = await runTask(wire, 'sleep', { ms: 0 });
        const completedAt = Date.now();
        expectTaskShape(await taskState(wire, taskId), taskId, {
          keepAlive: 300,
          pollFrequency: DEFAULT_POLL_FREQUENCY,
          status: 'completed',
        });
        await expectExpiry(wire, taskId, completedAt, 200, 3_000);
      });

      it('should keep a task for its requested keepAlive (900 ms) rather than the default', async () => {
        const wire = server();
        const { taskId, result } = await runTask(wire, 'sleep', { ms: 0 }, { keepAlive: 900 });
        const completedAt = Date.now();
        expect((await taskState(wire, taskId))['keepAlive']).toBe(900);
        await defaultKeepAlivePassed(wire);
        // past the 300 ms default, still there
        expect(statusOf(await taskState(wire, taskId))).toBe('completed');
        expect(ok(await wire.request('tasks/result', { taskId }))).toEqual(result);
        await expectExpiry(wire, taskId, completedAt, 800, 3_500);
      });

      it('should cap a requested keepAlive above --max-keep-alive to 1000 ms, both as reported and as applied', async () => {
        const wire = server();
        const { taskId } = await runTask(wire, 'sleep', { ms: 0 }, { keepAlive: 60_000 });
        const completedAt = Date.now();
        expect((await taskState(wire, taskId))['keepAlive']).toBe(1_000);
        const listed = (await listPages(wire)).tasks.find((t) => t['taskId'] === taskId);
        // On a loaded machine the listing may come after the 1 s retention: then the task is gone
        // from it, which is the cap applied (a listing without it any earlier would be a bug).
        if (listed !== undefined) expect(listed['keepAlive']).toBe(1_000);
        else expect(Date.now() - completedAt, 'left out of tasks/list before its capped retention ended').toBeGreaterThanOrEqual(900);
        await expectExpiry(wire, taskId, completedAt, 900, 4_000);
      });

      it('should not expire a task that is still running, only after it reaches a terminal status', async () => {
        const wire = server();
        const { taskId, requestId } = await startTask(wire, 'long_job', { seconds: 0.8 });
        // Past the 300 ms default keepAlive counted from its start, on the server's own clock.
        await defaultKeepAlivePassed(wire);
        expect(statusOf(await taskState(wire, taskId))).toBe('working');
        const result = ok(await wire.responseFor(requestId));
        const completedAt = Date.now();
        expect(result['content']).toEqual(text('long_job done in 0.8 s'));
        await expectExpiry(wire, taskId, completedAt, 200, 3_000);
      });
    });
  });
}
