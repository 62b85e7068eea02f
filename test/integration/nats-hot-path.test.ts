/**
 * What the lean NATS hot path must not cost in correctness (issue 16, found by a review of it):
 * what a node knows without a read (its own last write, a task it just created) is never taken
 * for the truth when another node has written since, a task id used again starts clean, and a
 * task removed right after its end leaves no lease marker. Real nats-server, several nodes.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { jetstreamManager } from '@nats-io/jetstream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createNatsTaskRuntime, type NatsTaskRuntime, type NatsTaskRuntimeOptions } from '../../runtime/backends/nats/nats-runtime.js';
import { startNatsServer, type NatsServer } from './harness/nats-server.js';

const owner = { session: 's1', principal: null };
let server: NatsServer;
const runtimes: NatsTaskRuntime[] = [];
let prefixSeq = 0;

async function node(o: NatsTaskRuntimeOptions): Promise<NatsTaskRuntime> {
  const r = await createNatsTaskRuntime({ nats: { servers: server.url }, ...o });
  const sleep = async (p: unknown, ctx: { signal: AbortSignal }) => {
    await delay((p as { ms: number }).ms, undefined, { signal: ctx.signal });
    return { on: r.nodeId };
  };
  r.registerHandler('sleep', sleep);
  r.registerHandler('restartable', sleep, { retry: 'restart', maxAttempts: 3 });
  r.registerHandler('ask', async (_p, ctx) => ({ got: await ctx.requestInput('elicitation/create', { message: 'name?' }) }));
  runtimes.push(r);
  return r;
}

const create = (r: NatsTaskRuntime, taskId: string, handler: string, params: unknown, keepAlive?: number) =>
  r.create({ taskId, owner, dialect: 'sep-1686', method: 'tools/call', handler, params, ...(keepAlive !== undefined && { keepAlive }) });

async function statusOf(r: NatsTaskRuntime, taskId: string): Promise<string> {
  return (await r.get(taskId, owner)).status;
}

beforeAll(async () => {
  server = await startNatsServer();
});
afterAll(async () => {
  await Promise.allSettled(runtimes.map((r) => r.dispose()));
  await server?.stop();
});

describe('NATS hot path: what a node knows without a read', () => {
  it('runs again a restartable task handed over by a stopping worker, on the node that created it', async () => {
    const prefix = `hp${++prefixSeq}`;
    // One slot on the creator, taken by a long task, so that the other worker runs attempt 1.
    const a = await node({ prefix, role: 'both', nodeId: `${prefix}-a`, workerConcurrency: 1, leaseTtlMs: 1_000 });
    await create(a, 'hog', 'sleep', { ms: 60_000 });
    await vi.waitFor(async () => expect(await statusOf(a, 'hog')).toBe('working'), { timeout: 5_000, interval: 20 });
    const b = await node({ prefix, role: 'worker', nodeId: `${prefix}-b`, workerConcurrency: 4, leaseTtlMs: 1_000 });
    await create(a, 'again', 'restartable', { ms: 1_500 });
    await vi.waitFor(async () => expect(await statusOf(a, 'again')).toBe('working'), { timeout: 5_000, interval: 20 });
    await a.cancel('hog', owner);
    // A clean stop hands 'again' over: attempt 2 is queued, and the creator (whose own last write
    // is the task as created) takes it. Before: it started from that stale record, its start was
    // refused, the run was dropped, and the task stayed working for good.
    await b.dispose();
    const outcome = await a.waitForOutcome('again', owner, { timeout: 10_000 });
    expect(outcome.task.status).toBe('completed');
    expect(outcome.result).toEqual({ on: a.nodeId });
  });

  it('answers a one-shot wait on the creating node with a cancel another node acknowledged', async () => {
    const prefix = `hp${++prefixSeq}`;
    const a = await node({ prefix, role: 'front', nodeId: `${prefix}-a` });
    const c = await node({ prefix, role: 'front', nodeId: `${prefix}-c` });
    for (let i = 0; i < 10; i++) {
      await create(a, `t${i}`, 'sleep', { ms: 60_000 });
      await c.cancel(`t${i}`, owner, 'stop');
      // A SEP-1686 tasks/result: the outcome now, or "not yet". Before: "not yet" (submitted),
      // from the record as this node created it, although the cancel was acknowledged.
      const seen = await a.waitForOutcome(`t${i}`, owner, { timeout: 0 }).then(
        (o) => o.task.status,
        (e: unknown) => `timeout:${(e as { task?: { status: string } }).task?.status}`,
      );
      expect(seen).toBe('cancelled');
    }
  });

  it('delivers the events of a task id used again at once, on the node that followed the first one', async () => {
    const prefix = `hp${++prefixSeq}`;
    const a = await node({ prefix, role: 'both', nodeId: `${prefix}-a`, leaseTtlMs: 30_000 });
    const c = await node({ prefix, role: 'front', nodeId: `${prefix}-c`, leaseTtlMs: 30_000 });
    await create(a, 'x', 'sleep', { ms: 1 });
    await a.waitForTerminal('x', owner, { timeout: 5_000 });
    await a.delete('x', owner);
    // Created again on another node within the 5 s the creator follows a task it created.
    const asked: string[] = [];
    await create(c, 'x', 'ask', {});
    const stop = a.onInputRequest((r) => asked.push(r.inputId), { taskId: 'x', owner });
    // Before: the creator's watch kept the old task's cursor, past the new task's first events,
    // so its input request never reached a listener there, and an answer took a lease renewal.
    await vi.waitFor(() => expect(asked).toHaveLength(1), { timeout: 5_000, interval: 20 });
    stop();
    const answered = Date.now();
    await c.answerInput('x', owner, asked[0]!, { result: { action: 'accept' } });
    expect((await c.waitForTerminal('x', owner, { timeout: 20_000 })).status).toBe('completed');
    expect(Date.now() - answered).toBeLessThan(5_000);
  });

  it('leaves no lease marker of tasks removed as soon as they end (keepAlive 0)', async () => {
    const prefix = `hp${++prefixSeq}`;
    const a = await node({ prefix, role: 'both', nodeId: `${prefix}-a` });
    const b = await node({ prefix, role: 'both', nodeId: `${prefix}-b` });
    const n = 100;
    await Promise.all(Array.from({ length: n }, (_, i) => create(i % 2 ? a : b, `k${i}`, 'sleep', { ms: i % 37 }, 0)));
    const jsm = await jetstreamManager(a.connection);
    const left = async (stream: string): Promise<number> => (await jsm.streams.info(stream)).state.messages;
    // Before: the worker let its lease go after the removal had taken its bounds, and most of
    // these tasks left a delete marker in the leases stream for good.
    await vi.waitFor(
      async () => {
        expect(await left(`KV_${prefix}_snapshots`)).toBe(0);
        expect(await left(`KV_${prefix}_leases`)).toBe(0);
        expect(await left(`${prefix}_events`)).toBe(0);
      },
      { timeout: 20_000, interval: 250 },
    );
  });
});
