/**
 * Found in review: a worker whose lease was taken over (it stalled, or was cut off from NATS a moment)
 * may itself be handed the next attempt of the same task before its renewal notices the loss.
 * TaskWorker#take never checks #running: `#running.set(key, run2)` replaces the first run, whose
 * #finish (on LeaseLostError, or any end) then returns early because the map no longer names it.
 * The first run is never stopped: its handler runs on, beside the second, to its end.
 *
 * The loss is played by writing the lease back as expired (as nats-resume.test.ts does): every
 * node's monitor sees it run out, one takes it over and queues attempt 2, which the only worker
 * (the first run's own node) takes.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { Kvm } from '@nats-io/kv';
import { describe, expect, it } from 'vitest';
import { nameFromPrefix, taskKey } from '../../runtime/backends/nats/keys.js';
import type { NatsTaskRuntime, NatsTaskRuntimeOptions } from '../../runtime/backends/nats/nats-runtime.js';
import type { TaskHandlerContext } from '../../runtime/index.js';
import { ownerKeyOf } from '../../runtime/task-identity.js';
import { inProcessNodes } from './harness/nats-nodes.js';

const owner = { session: 's1', principal: null };
/** Every tick of every run: attempt and time. */
const ticks: { attempt: number; at: number }[] = [];

/** Ticks every 50 ms for 6 s, until aborted. */
async function ticker(_params: unknown, ctx: TaskHandlerContext): Promise<unknown> {
  for (let i = 0; i < 120; i++) {
    await delay(50, undefined, { signal: ctx.signal });
    ticks.push({ attempt: ctx.attempt, at: Date.now() });
  }
  return ctx.attempt;
}

const nodes = inProcessNodes((runtime) => {
  runtime.registerHandler('tick', ticker, { retry: 'resume', maxAttempts: 3 });
}, { leaseTtlMs: 3_000 });
const node = (options: NatsTaskRuntimeOptions & { nodeId: string }): Promise<NatsTaskRuntime> => nodes.node(options);

describe('a node handed the next attempt of its own lost run', () => {
  it('stops the first run once the second has started', async () => {
    const prefix = `rvsame${Date.now()}`;
    const front = await node({ prefix, role: 'front', nodeId: `${prefix}-front` });
    const worker = await node({ prefix, role: 'worker', nodeId: `${prefix}-worker` });
    await front.create({ taskId: 't', owner, dialect: '2025-11-25', method: 'tools/call', handler: 'tick', params: {} });
    for (let i = 0; i < 200 && ticks.length < 3; i++) await delay(20);
    // The worker's lease, as if it had run out while the worker stalled.
    const leases = await new Kvm(front.connection).open(`${nameFromPrefix(prefix)}_leases`);
    const key = taskKey({ ownerKey: ownerKeyOf(owner), taskId: 't' });
    await leases.put(key, JSON.stringify({ nodeId: worker.nodeId, expiresAt: Date.now() - 1 }));
    for (let i = 0; i < 200 && !ticks.some((t) => t.attempt === 2); i++) await delay(20);
    const secondStarted = ticks.find((t) => t.attempt === 2)?.at;
    expect(secondStarted).toBeDefined();
    // Well past the first run's next renewal (every 1 s), which finds the lease gone.
    await delay(2_500);
    const firstAfter = ticks.filter((t) => t.attempt === 1 && t.at > secondStarted! + 1_500);
    // Before the fix: the first run keeps ticking beside the second (both handlers run at once).
    expect(firstAfter).toEqual([]);
  }, 20_000);
});
