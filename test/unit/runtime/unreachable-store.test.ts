/**
 * The task core over a store that is briefly unreachable, as a NATS store is while its server
 * restarts: the real memory store, with reads made to fail for a moment (the core's only rule
 * under test is what a wait does when a read fails for a reason that is not the task's).
 */
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../runtime/backends/memory/memory-store.js';
import { createCoreRuntime, type RegisteredHandler } from '../../../runtime/core/core-runtime.js';
import { RequesterLimiter } from '../../../runtime/limits.js';
import { resolveTaskRuntimeOptions } from '../../../runtime/options.js';

const owner = { session: 's1', principal: null };

/** A runtime whose store's reads fail (a timeout, as NATS answers while away) while `failing` says so. */
function flakyRuntime(o: { readonly knowsWithoutRead?: boolean } = {}) {
  const opts = resolveTaskRuntimeOptions({});
  const limiter = new RequesterLimiter(opts.limits, opts.now);
  const inner = new MemoryStore(opts, limiter, null, 'local');
  const state = { failing: 0, reads: 0 };
  const store = new Proxy(inner, {
    get(target, prop) {
      // A store that delivers changes by sequence and answers a watcher's first look from what it
      // knows, without a read (as NATS does for a task its node just created).
      if (prop === 'watchesBySequence' && o.knowsWithoutRead) return true;
      if (prop === 'read') {
        return (key: string, how?: { readonly watched?: boolean }) => {
          if (how?.watched && o.knowsWithoutRead) return target.read(key);
          state.reads++;
          if (state.failing > 0) {
            state.failing--;
            return Promise.reject(new Error('TimeoutError: timeout'));
          }
          return target.read(key);
        };
      }
      // A store that may miss a change (as NATS does): re-read on a timer, and reachable only over a network.
      if (prop === 'rereadMs') return 2_000;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  const handlers = new Map<string, RegisteredHandler>();
  const runtime = createCoreRuntime(opts, store, { limiter, handlers, hasWork: (entry) => entry.hasWork });
  return { runtime, state };
}

describe('a wait over a store that stops answering for a moment', () => {
  it('reads again and returns the result, not an end without it', async () => {
    const { runtime, state } = flakyRuntime();
    let open: () => void = () => undefined;
    const opened = new Promise<void>((resolve) => (open = resolve));
    runtime.registerHandler('gate', async () => (await opened, { opened: true }));
    await runtime.create({ taskId: 'g', owner, dialect: 'sep-1686', method: 'tools/call', handler: 'gate', params: {} });
    const waited = runtime.waitForOutcome('g', owner, { countsAsPoll: false });
    // The wait has read the task twice (before and after its watch was set) and now waits.
    await expect.poll(() => state.reads, { timeout: 1_000, interval: 5 }).toBe(2);
    // The end is seen from the watch; the next two reads fail.
    state.failing = 2;
    open();
    const outcome = await waited;
    expect(outcome.task.status).toBe('completed');
    // Before: the end the watch reported, with no result, as if the task had been deleted.
    expect(outcome.result).toEqual({ opened: true });
    expect(state.reads).toBeGreaterThanOrEqual(5);
    await runtime.dispose();
  });

  it('lets the server\'s own wait ride out a first read that fails, and a requester\'s poll answer at once', async () => {
    const { runtime, state } = flakyRuntime();
    runtime.registerHandler('now', async () => ({ done: true }));
    await runtime.create({ taskId: 'n', owner, dialect: 'sep-1686', method: 'tools/call', handler: 'now', params: {} });
    await runtime.waitForTerminal('n', owner, { countsAsPoll: false });
    state.failing = 1;
    await expect(runtime.waitForOutcome('n', owner)).rejects.toThrow('TimeoutError');
    state.failing = 2;
    expect((await runtime.waitForOutcome('n', owner, { countsAsPoll: false })).result).toEqual({ done: true });
    await runtime.dispose();
  });

  it('rides out an outage in the read that confirms what the store knew without one, in the server\'s own one-shot look', async () => {
    const { runtime, state } = flakyRuntime({ knowsWithoutRead: true });
    let open: () => void = () => undefined;
    const opened = new Promise<void>((resolve) => (open = resolve));
    runtime.registerHandler('gate', async () => (await opened, { opened: true }));
    await runtime.create({ taskId: 'g', owner, dialect: 'sep-1686', method: 'tools/call', handler: 'gate', params: {} });
    // The SEP-1686 request's own first look (timeout 0): "not ended yet" is said only after a
    // real read, and that read meets the outage. Before: the outage's error, and the adapter
    // cancelled the task ("The request that created it failed"), as the chaos soak showed.
    state.failing = 2;
    await expect(runtime.waitForOutcome('g', owner, { timeout: 0, countsAsPoll: false })).rejects.toMatchObject({ name: 'TaskTimeoutError', task: { status: 'working' } });
    expect(state.reads).toBe(3);
    open();
    await runtime.dispose();
  });

  it('still fails the wait with the task\'s own error when the task is gone', async () => {
    const { runtime } = flakyRuntime();
    await expect(runtime.waitForOutcome('missing', owner, { countsAsPoll: false })).rejects.toMatchObject({ name: 'TaskNotFoundError' });
    await runtime.dispose();
  });
});
