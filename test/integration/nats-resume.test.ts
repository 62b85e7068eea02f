/**
 * Resuming a task through the runtime API (in-process nodes on a real nats-server): a plain async
 * handler that keeps checkpoints with `ctx.checkpoint` continues from the last one on another
 * worker once its worker is lost, and the loss is decided once however many nodes see it.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { Kvm } from '@nats-io/kv';
import { describe, expect, it, vi } from 'vitest';
import { nameFromPrefix, taskKey } from '../../runtime/backends/nats/keys.js';
import { ownerKeyOf } from '../../runtime/task-identity.js';
import type { NatsTaskRuntime, NatsTaskRuntimeOptions } from '../../runtime/backends/nats/nats-runtime.js';
import type { TaskHandlerContext } from '../../runtime/index.js';
import { inProcessNodes } from './harness/nats-nodes.js';
import { capturingLogger } from '../fixtures/capturing-logger.js';

const owner = { session: 's1', principal: null };
/** Every log line of every node, with the node that wrote it. */
const logged: { node: string; msg: string; fields: Record<string, unknown> }[] = [];

/**
 * Counts to `to`, one step per 50 ms, keeping a checkpoint after each; a resumed run starts after
 * the last one kept. Its result says where each run started.
 */
async function counter(params: unknown, ctx: TaskHandlerContext): Promise<unknown> {
  const { to } = params as { to: number };
  const from = (ctx.resumeFrom?.state as { done: number } | undefined)?.done ?? 0;
  for (let i = from + 1; i <= to; i++) {
    await delay(50, undefined, { signal: ctx.signal });
    await ctx.checkpoint({ done: i }, `step ${i}`);
  }
  return { from, attempt: ctx.attempt, key: ctx.stepKey() };
}

const nodes = inProcessNodes((runtime) => runtime.registerHandler('counter', counter, { retry: 'resume', maxAttempts: 3 }), { leaseTtlMs: 600 });

/** A node whose log lines are kept in `logged`. */
const node = (options: NatsTaskRuntimeOptions & { nodeId: string }): Promise<NatsTaskRuntime> =>
  nodes.node({ logger: capturingLogger(({ message, fields }) => void logged.push({ node: options.nodeId, msg: message, fields })), ...options });

describe('resuming a task from its checkpoint', () => {
  it('continues a plain handler from its last checkpoint on another worker, decided by one node of several', async () => {
    const prefix = `resume${Date.now()}`;
    const front = await node({ prefix, role: 'front', nodeId: `${prefix}-front` });
    // Nodes that do nothing but watch leases: each of them sees the lost lease run out.
    for (const i of [1, 2, 3]) await node({ prefix, role: 'front', nodeId: `${prefix}-watch${i}` });
    const first = await node({ prefix, role: 'worker', nodeId: `${prefix}-first` });
    await front.create({ taskId: 'count', owner, dialect: '2025-11-25', method: 'tools/call', handler: 'counter', params: { to: 30 } });
    // Lost a few steps in: its connection goes, as when its process dies.
    for (let i = 0; i < 200 && (await front.get('count', owner)).status !== 'working'; i++) await delay(20);
    await delay(400);
    await first.connection.close();
    const lostLines = (): unknown[] => logged.filter((l) => l.msg === 'worker lost' && l.fields['lostNode'] === `${prefix}-first`).map((l) => l.fields['action']);
    await vi.waitFor(() => expect(lostLines()).toEqual(['resume']), { timeout: 5_000, interval: 20 });
    // A node whose check of the lost lease comes late (after the first node decided and let the
    // lease go) takes it over too: it must decide nothing again. Played here by an expired lease
    // of the lost worker written back, which every node's monitor sees run out.
    const leases = await new Kvm(front.connection).open(`${nameFromPrefix(prefix)}_leases`);
    const key = taskKey({ ownerKey: ownerKeyOf(owner), taskId: 'count' });
    await leases.put(key, JSON.stringify({ nodeId: `${prefix}-first`, expiresAt: Date.now() - 1 }));
    // Taken over and let go again by a node that saw it run out.
    await vi.waitFor(async () => expect((await leases.get(key))?.operation).not.toBe('PUT'), { timeout: 5_000, interval: 20 });
    expect(lostLines()).toEqual(['resume']);
    const second = await node({ prefix, role: 'worker', nodeId: `${prefix}-second` });
    const outcome = await front.waitForOutcome('count', owner, { timeout: 15_000 });
    expect(outcome.task.status).toBe('completed');
    const result = outcome.result as { from: number; attempt: number; key: string };
    // Resumed after the steps the first run kept (about 8 in 400 ms), as attempt 2.
    expect(result.from).toBeGreaterThanOrEqual(3);
    expect(result.attempt).toBe(2);
    // The step key counts every checkpoint of the task, across both runs: 30 in all.
    expect(result.key).toMatch(/^[\w-]{22}:30$/);
    // One node decided the loss, once, and one run resumed it.
    expect(lostLines()).toEqual(['resume']);
    expect(logged.filter((l) => l.msg === 'task run' && l.fields['attempt'] === 3)).toEqual([]);
    const runs = logged.filter((l) => l.msg === 'task run' && l.node === second.nodeId);
    expect(runs.map((l) => [l.fields['attempt'], l.fields['resumedFrom']])).toEqual([[2, `step ${result.from}`]]);
  });
});
