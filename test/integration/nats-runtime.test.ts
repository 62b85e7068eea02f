/**
 * The NATS runtime's API across nodes, in one process: a front node and worker nodes, each its
 * own runtime with its own connection to a real nats-server, sharing one task space.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { jetstreamManager } from '@nats-io/jetstream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createNatsTaskRuntime, type NatsTaskRuntime, type NatsTaskRuntimeOptions } from '../../runtime/backends/nats/nats-runtime.js';
import type { TaskHandlerContext } from '../../runtime/index.js';
import { startNatsServer, type NatsServer } from './harness/nats-server.js';

const owner = { session: 's1', principal: null };
const other = { session: 's2', principal: null };
let server: NatsServer;
const runtimes: NatsTaskRuntime[] = [];
let prefixSeq = 0;
const aborted = new Set<string>();

async function node(options: NatsTaskRuntimeOptions): Promise<NatsTaskRuntime> {
  const runtime = await createNatsTaskRuntime({ nats: { servers: server.url }, ...options });
  runtime.registerHandler('sleep', async (p, ctx: TaskHandlerContext) => {
    try {
      await delay((p as { ms: number }).ms, undefined, { signal: ctx.signal });
    } catch (error) {
      aborted.add(ctx.taskId);
      throw error;
    }
    return { slept: (p as { ms: number }).ms, on: runtime.nodeId };
  });
  runtime.registerHandler('sleep-restartable', async (p, ctx) => {
    await delay((p as { ms: number }).ms, undefined, { signal: ctx.signal });
    return { slept: (p as { ms: number }).ms, on: runtime.nodeId };
  }, { retry: 'restart', maxAttempts: 2 });
  // 2.5 MB of JSON: more than NATS carries in one message (1 MiB by default).
  runtime.registerHandler('big', async () => ({ text: 'x'.repeat(2_500_000), on: runtime.nodeId }));
  runtime.registerHandler('ask', async (_p, ctx) => ({ got: await ctx.requestInput('elicitation/create', { message: 'name?' }) }));
  runtimes.push(runtime);
  return runtime;
}

/** A front node and one worker on a fresh prefix. */
async function pair(extra: NatsTaskRuntimeOptions = {}): Promise<{ front: NatsTaskRuntime; worker: NatsTaskRuntime; prefix: string }> {
  const prefix = `rt${++prefixSeq}`;
  const front = await node({ prefix, role: 'front', nodeId: `${prefix}-front`, ...extra });
  const worker = await node({ prefix, role: 'worker', nodeId: `${prefix}-worker`, ...extra });
  return { front, worker, prefix };
}

/**
 * A clock for the nodes of one test: real time, moved ahead by hand. Jumping onto a deadline
 * reaches it at once on every node, before any timer of the cluster has had a chance to act.
 */
function skewedClock(): { now: () => number; jumpTo: (at: number) => void } {
  let skew = 0;
  const now = (): number => Date.now() + skew;
  return { now, jumpTo: (at) => void (skew += Math.max(0, at - now())) };
}

const create = (r: NatsTaskRuntime, taskId: string, handler: string, params: unknown, o: { keepAlive?: number; who?: typeof owner } = {}) =>
  r.create({ taskId, owner: o.who ?? owner, dialect: 'sep-1686', method: 'tools/call', handler, params, ...(o.keepAlive !== undefined && { keepAlive: o.keepAlive }) });

beforeAll(async () => {
  server = await startNatsServer();
});
afterAll(async () => {
  await Promise.allSettled(runtimes.map((r) => r.dispose()));
  await server?.stop();
});

describe('NATS runtime across nodes', () => {
  it('runs a task created on a front node on a worker, and answers for it from every node', async () => {
    const { front, worker } = await pair();
    const created = await create(front, 't1', 'sleep', { ms: 50 });
    expect(created.status).toBe('submitted');
    const outcome = await front.waitForOutcome('t1', owner, { timeout: 5_000 });
    expect(outcome.task.status).toBe('completed');
    expect(outcome.result).toEqual({ slept: 50, on: worker.nodeId });
    expect((await worker.result('t1', owner)).result).toEqual({ slept: 50, on: worker.nodeId });
    expect((await worker.get('t1', owner)).status).toBe('completed');
    // Scoped to the owner on every node: another owner cannot see it, not even with its id.
    await expect(worker.get('t1', other)).rejects.toMatchObject({ name: 'TaskNotFoundError' });
    await expect(front.result('t1', other)).rejects.toMatchObject({ name: 'TaskNotFoundError' });
    expect((await front.list(other)).tasks).toEqual([]);
  });

  it('refuses a duplicate id of the same owner and allows the same id for another owner', async () => {
    const { front } = await pair();
    await create(front, 'dup', 'sleep', { ms: 1 });
    await expect(create(front, 'dup', 'sleep', { ms: 1 })).rejects.toMatchObject({ name: 'DuplicateTaskIdError' });
    await expect(create(front, 'dup', 'sleep', { ms: 1 }, { who: other })).resolves.toMatchObject({ taskId: 'dup' });
    expect((await front.list(owner)).tasks.map((t) => t.taskId)).toEqual(['dup']);
  });

  it('lists an owner\'s tasks in pages, oldest first, without deleted ones', async () => {
    const { front, worker } = await pair({ pageSize: 2 });
    for (let i = 1; i <= 5; i++) await create(front, `p${i}`, 'sleep', { ms: 1 });
    await create(front, 'x', 'sleep', { ms: 1 }, { who: other });
    await front.waitForTerminal('p3', owner, { timeout: 5_000 });
    await worker.delete('p3', owner);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await worker.list(owner, { cursor });
      expect(page.tasks.length).toBeLessThanOrEqual(2);
      seen.push(...page.tasks.map((t) => t.taskId));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(seen).toEqual(['p1', 'p2', 'p4', 'p5']);
    await expect(worker.list(owner, { cursor: 'bogus' })).rejects.toMatchObject({ name: 'InvalidCursorError' });
  });

  it('cancels from the front node and aborts the handler running on the worker', async () => {
    const { front } = await pair();
    await create(front, 'long', 'sleep', { ms: 30_000 });
    for (let i = 0; i < 100 && (await front.get('long', owner)).status !== 'working'; i++) await delay(20);
    const started = Date.now();
    await front.cancel('long', owner, 'stop');
    const end = await front.waitForTerminal('long', owner, { timeout: 5_000 });
    expect(end.status).toBe('cancelled');
    for (let i = 0; i < 100 && !aborted.has('long'); i++) await delay(10);
    expect(aborted.has('long')).toBe(true);
    expect(Date.now() - started).toBeLessThan(2_000);
    await expect(front.cancel('long', owner)).rejects.toMatchObject({ name: 'TaskTerminalError' });
  });

  it('parks a task in input_required and resumes it with an answer given on another node', async () => {
    const { front, worker } = await pair();
    const requests: string[] = [];
    const stop = front.onInputRequest((r) => requests.push(`${r.taskId}:${r.inputId}:${r.method}`), { taskId: 'ask1', owner });
    await create(front, 'ask1', 'ask', {});
    for (let i = 0; i < 100 && (await front.get('ask1', owner)).status !== 'input_required'; i++) await delay(20);
    expect((await front.get('ask1', owner)).status).toBe('input_required');
    const pending = await worker.pendingInputRequests('ask1', owner);
    expect(pending).toMatchObject([{ inputId: 'input-1', method: 'elicitation/create', params: { message: 'name?' } }]);
    expect(requests).toEqual(['ask1:input-1:elicitation/create']);
    await expect(worker.answerInput('ask1', other, 'input-1', { result: 1 })).rejects.toMatchObject({ name: 'TaskNotFoundError' });
    await worker.answerInput('ask1', owner, 'input-1', { result: { action: 'accept', content: { name: 'Ada' } } });
    await expect(front.answerInput('ask1', owner, 'input-1', { result: 2 })).rejects.toMatchObject({ name: 'InvalidArgumentError' });
    const outcome = await front.waitForOutcome('ask1', owner, { timeout: 5_000 });
    expect(outcome.result).toEqual({ got: { action: 'accept', content: { name: 'Ada' } } });
    stop();
  });

  it('ends a lost worker\'s task unknown with an error naming it, within the lease time', async () => {
    const { front, worker } = await pair({ leaseTtlMs: 600 });
    await create(front, 'orphan', 'sleep', { ms: 30_000 });
    for (let i = 0; i < 100 && (await front.get('orphan', owner)).status !== 'working'; i++) await delay(20);
    const killed = Date.now();
    await worker.connection.close(); // the worker is gone: no renewals, no goodbye
    const end = await front.waitForTerminal('orphan', owner, { timeout: 5_000 });
    expect(end.status).toBe('unknown');
    expect(end.error).toBe(`Worker ${worker.nodeId} was lost while running the task`);
    expect(Date.now() - killed).toBeLessThan(600 + 1_000);
  });

  it('re-runs a lost worker\'s task on another worker when its handler is safe to re-run', async () => {
    const { front, worker, prefix } = await pair({ leaseTtlMs: 600 });
    await create(front, 'again', 'sleep-restartable', { ms: 1_500 });
    for (let i = 0; i < 100 && (await front.get('again', owner)).status !== 'working'; i++) await delay(20);
    const second = await node({ prefix, role: 'worker', nodeId: `${prefix}-second`, leaseTtlMs: 600 });
    await worker.connection.close();
    const outcome = await front.waitForOutcome('again', owner, { timeout: 8_000 });
    expect(outcome.task.status).toBe('completed');
    expect(outcome.result).toEqual({ slept: 1_500, on: second.nodeId });
    expect(outcome.task.statusMessage).toMatch(/was lost; running again on .*-second \(attempt 2 of 2\)/);
  });

  it('removes a task once its keepAlive has passed, on every node, result included', async () => {
    const clock = skewedClock();
    const { front, worker } = await pair({ now: clock.now });
    await create(front, 'brief', 'sleep', { ms: 1 }, { keepAlive: 300 });
    const done = await front.waitForTerminal('brief', owner, { timeout: 5_000 });
    expect(done.expiresAt).toBe(done.updatedAt + 300);
    clock.jumpTo(done.expiresAt!);
    // Past its retention the task is gone everywhere, even before the timer removes it (it has
    // not had the time to: the clock jumped).
    await expect(worker.get('brief', owner)).rejects.toMatchObject({ name: 'TaskExpiredError' });
    // Nor listed: what get calls gone is not in the listing either.
    expect((await worker.list(owner)).tasks.map((t) => t.taskId)).not.toContain('brief');
    for (let i = 0; i < 100; i++) {
      const listed = (await front.list(owner)).tasks.map((t) => t.taskId);
      if (!listed.includes('brief')) break;
      await delay(50);
    }
    expect((await front.list(owner)).tasks.map((t) => t.taskId)).not.toContain('brief');
    await expect(front.result('brief', owner)).rejects.toMatchObject({ name: 'TaskExpiredError' });
  });

  it('waits for a running task with one read, before its end: the end comes with the record as written', async () => {
    // A long lease: its renewals (which read the record) do not fall inside this short test.
    const { front, worker, prefix } = await pair({ leaseTtlMs: 60_000 });
    let open: () => void = () => undefined;
    const opened = new Promise<void>((resolve) => (open = resolve));
    for (const r of [front, worker]) r.registerHandler('gate', async () => (await opened, { opened: true }));
    await create(front, 'gated', 'gate', {});
    await vi.waitFor(async () => expect((await front.get('gated', owner)).status).toBe('working'), { timeout: 5_000 });
    // Every record read is a JetStream direct-get request; a plain subscription sees each one.
    const reads: string[] = [];
    const sub = front.connection.subscribe(`$JS.API.STREAM.MSG.GET.KV_${prefix}_snapshots`, { callback: (_e, m) => void reads.push(m.string()) });
    await front.connection.flush();
    const waited = front.waitForOutcome('gated', owner, { timeout: 5_000 });
    await vi.waitFor(() => expect(reads.length).toBe(1));
    open();
    expect((await waited).result).toEqual({ opened: true });
    await front.connection.flush();
    sub.unsubscribe();
    // Before: a second read once the watch was set (to close the gap between read and watch), and
    // then one more after the end (the event carried only the view, not the record and its result).
    expect(reads).toHaveLength(1);
  });

  it('reads no record in a lifecycle on one node, and still reads for a get and for a wait on another node', async () => {
    const prefix = `rt-fresh-${Date.now()}`;
    const one = await node({ prefix, role: 'both', nodeId: `${prefix}-one` });
    const other = await node({ prefix, role: 'front', nodeId: `${prefix}-other` });
    let open: () => void = () => undefined;
    const opened = new Promise<void>((resolve) => (open = resolve));
    one.registerHandler('gate', async () => (await opened, { opened: true }));
    // Each read's reply subject: its requester's inbox, so the reading node can be told apart.
    const reads: string[] = [];
    const sub = one.connection.subscribe(`$JS.API.STREAM.MSG.GET.KV_${prefix}_snapshots`, { callback: (_e, m) => void reads.push(m.reply ?? '') });
    await one.connection.flush();
    // Created, started, ended and waited for on one node: the worker starts from the record this
    // node wrote, and the wait from what the feed has followed since the create.
    await create(one, 'quick', 'sleep', { ms: 1 });
    expect((await one.waitForOutcome('quick', owner, { timeout: 5_000 })).task.status).toBe('completed');
    await one.connection.flush();
    expect(reads).toHaveLength(0);
    // A get is never answered from what the node knows: another node may have written since.
    await create(one, 'held', 'gate', {});
    const waited = one.waitForOutcome('held', owner, { timeout: 5_000 });
    expect((await one.get('held', owner)).taskId).toBe('held');
    await one.connection.flush();
    expect(reads).toHaveLength(1);
    // A node that did not create the task reads it once before it waits.
    const elsewhere = other.waitForOutcome('held', owner, { timeout: 5_000 });
    await vi.waitFor(() => expect(reads.length).toBe(2));
    open();
    expect((await waited).result).toEqual({ opened: true });
    expect((await elsewhere).result).toEqual({ opened: true });
    await one.connection.flush();
    expect(reads).toHaveLength(2);
    // That read was the other node's: its inbox (everything up to the request's own token).
    const otherInbox = reads[1]!.slice(0, reads[1]!.lastIndexOf('.') + 1);
    expect(reads[0]!.startsWith(otherInbox)).toBe(false);
    // Created on a front node, run on another: the worker starts from the record the create's
    // event carried, and the front's wait reads nothing either.
    other.registerHandler('sleep', async () => ({ slept: 1 }));
    await create(other, 'apart', 'sleep', { ms: 1 });
    expect((await other.waitForOutcome('apart', owner, { timeout: 5_000 })).task.status).toBe('completed');
    await Promise.all([one.connection.flush(), other.connection.flush()]);
    sub.unsubscribe();
    expect(reads.slice(2)).toEqual([]);
  });

  it('keeps a small result in the task record itself, and a larger one in the results bucket', async () => {
    const { front, worker, prefix } = await pair();
    for (const r of [front, worker]) r.registerHandler('sized', async (p) => ({ text: 'y'.repeat((p as { n: number }).n) }));
    const jsm = await jetstreamManager(front.connection);
    const resultMessages = async (): Promise<number> => (await jsm.streams.info(`KV_${prefix}_results`)).state.messages;
    await create(front, 'small', 'sized', { n: 100 });
    expect((await front.waitForOutcome('small', owner, { timeout: 5_000 })).result).toEqual({ text: 'y'.repeat(100) });
    expect((await worker.result('small', owner)).result).toEqual({ text: 'y'.repeat(100) });
    expect(await resultMessages()).toBe(0);
    await create(front, 'large', 'sized', { n: 10_000 });
    expect((await front.waitForOutcome('large', owner, { timeout: 5_000 })).result).toEqual({ text: 'y'.repeat(10_000) });
    expect(await resultMessages()).toBe(1);
  });

  it('keeps a result larger than one NATS message when the result limit is off, and removes all of it on delete', async () => {
    const { front, worker, prefix } = await pair({ limits: { maxResultBytes: null } });
    await create(front, 'big', 'big', {});
    const outcome = await front.waitForOutcome('big', owner, { timeout: 10_000 });
    expect(outcome.task.status).toBe('completed');
    const result = outcome.result as { text: string; on: string };
    expect(result.text).toHaveLength(2_500_000);
    expect(result.on).toBe(worker.nodeId);
    expect(((await worker.result('big', owner)).result as { text: string }).text).toBe(result.text);
    const stream = `KV_${prefix}_results`;
    const jsm = await jetstreamManager(front.connection);
    expect((await jsm.streams.info(stream)).state.bytes).toBeGreaterThan(2_500_000);
    await front.delete('big', owner);
    // Its chunks are purged with it: what is left of the bucket is a few markers, not the data.
    expect((await jsm.streams.info(stream)).state.bytes).toBeLessThan(10_000);
  });

  it('counts ended tasks as retained on every node until they are deleted or expire', async () => {
    const clock = skewedClock();
    const { front, worker } = await pair({ now: clock.now });
    await create(front, 'kept', 'sleep', { ms: 1 });
    // Long enough not to end by itself under a loaded machine's delays: the clock jumps to its end.
    await create(front, 'brief', 'sleep', { ms: 1 }, { keepAlive: 20_000 });
    await front.waitForTerminal('kept', owner, { timeout: 5_000 });
    const brief = await front.waitForTerminal('brief', owner, { timeout: 5_000 });
    for (const r of [front, worker]) await vi.waitFor(() => expect(r.stats().retained).toBe(2), { timeout: 3_000, interval: 20 });
    expect(worker.stats().live).toBe(0);
    await front.delete('kept', owner);
    for (const r of [front, worker]) await vi.waitFor(() => expect(r.stats().retained).toBe(1), { timeout: 3_000, interval: 20 });
    clock.jumpTo(brief.expiresAt!);
    for (const r of [front, worker]) expect(r.stats().retained).toBe(0);
  });

  it('drives a task without handler from outside, as the SDK TaskStore does', async () => {
    const { front, worker } = await pair();
    const t = await front.create({ taskId: 'ext', owner, dialect: '2025-11-25', method: 'tools/call' });
    expect(t.status).toBe('working');
    const changes: string[] = [];
    const stop = worker.subscribe((c) => changes.push(c.task.status), { taskId: 'ext', owner });
    // The watch starts after the record it reads on the worker's connection; a read sent after it
    // on that connection answers after it, so the watch has its starting point before the writes.
    await worker.get('ext', owner);
    await worker.update('ext', owner, { status: 'input_required', statusMessage: 'wait' });
    await front.update('ext', owner, { status: 'completed', result: { ok: true } });
    expect((await worker.result('ext', owner)).result).toEqual({ ok: true });
    for (let i = 0; i < 50 && changes.length < 3; i++) await delay(20);
    // The status message "wait" is set first (still working), then the status moves.
    expect(changes).toEqual(['working', 'input_required', 'completed']);
    stop();
  });

  it('gives queued work to an idle worker while another is busy, and to a worker that has the handler', async () => {
    const prefix = `rt${++prefixSeq}`;
    const front = await node({ prefix, role: 'front', nodeId: `${prefix}-front` });
    // A worker that has no handlers at all (starting up, or another version): it must not keep work.
    const bare = await createNatsTaskRuntime({ nats: { servers: server.url }, prefix, role: 'worker', nodeId: `${prefix}-bare`, workerConcurrency: 1 });
    runtimes.push(bare);
    const busy = await node({ prefix, role: 'worker', nodeId: `${prefix}-busy`, workerConcurrency: 1 });
    await create(front, 'hog', 'sleep', { ms: 30_000 });
    for (let i = 0; i < 100 && (await front.get('hog', owner)).status !== 'working'; i++) await delay(20);
    const idle = await node({ prefix, role: 'worker', nodeId: `${prefix}-idle`, workerConcurrency: 1 });
    const started = Date.now();
    await create(front, 'next', 'sleep', { ms: 10 });
    const outcome = await front.waitForOutcome('next', owner, { timeout: 8_000 });
    expect(outcome.result).toEqual({ slept: 10, on: idle.nodeId });
    expect(Date.now() - started).toBeLessThan(3_000);
    await front.cancel('hog', owner);
    void busy;
  });

  it('runs a task again under an id used before, once the first task was deleted or expired', async () => {
    const clock = skewedClock();
    const { front } = await pair({ now: clock.now });
    await create(front, 'again-id', 'sleep', { ms: 1 });
    await front.waitForTerminal('again-id', owner, { timeout: 5_000 });
    await front.delete('again-id', owner);
    await create(front, 'again-id', 'sleep', { ms: 2 });
    expect((await front.waitForOutcome('again-id', owner, { timeout: 5_000 })).result).toMatchObject({ slept: 2 });

    await create(front, 'brief-id', 'sleep', { ms: 1 }, { keepAlive: 100 });
    const brief = await front.waitForTerminal('brief-id', owner, { timeout: 5_000 });
    clock.jumpTo(brief.expiresAt!); // past its keepAlive, before the retention timer removed it
    await expect(front.get('brief-id', owner)).rejects.toMatchObject({ name: 'TaskExpiredError' });
    // Within the server's dedup window of the first task's messages: the new one must still run.
    await create(front, 'brief-id', 'sleep', { ms: 3 });
    expect((await front.waitForOutcome('brief-id', owner, { timeout: 5_000 })).result).toMatchObject({ slept: 3 });
  });
});
