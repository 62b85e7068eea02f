/**
 * The task core over a store that is briefly unreachable, as a NATS store is while its server
 * restarts: the real memory store, with reads made to fail for a moment (the core's only rule
 * under test is what a wait does when a read fails for a reason that is not the task's).
 */
import { describe, expect, it } from 'vitest';
import { errors as natsErrors } from '@nats-io/transport-node';
import { isNatsTransient } from '../../../runtime/backends/nats/transient.js';
import { MemoryStore } from '../../../runtime/backends/memory/memory-store.js';
import { createCoreRuntime, type RegisteredHandler } from '../../../runtime/core/core-runtime.js';
import { RequesterLimiter } from '../../../runtime/limits.js';
import { resolveTaskRuntimeOptions } from '../../../runtime/options.js';

const owner = { session: 's1', principal: null };

/**
 * A runtime whose store's reads fail while `failing` says so: with a NATS timeout, as NATS
 * answers while away (or with `o.fault`), and judged by the NATS backend's list of what passes.
 */
function flakyRuntime(o: { readonly knowsWithoutRead?: boolean; readonly fault?: () => Error; readonly log?: (level: string, message: string, fields?: Record<string, unknown>) => void } = {}) {
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
            return Promise.reject(o.fault?.() ?? new natsErrors.TimeoutError());
          }
          return target.read(key);
        };
      }
      // A store that may miss a change (as NATS does): re-read on a timer, and reachable only over a network.
      if (prop === 'rereadMs') return 2_000;
      if (prop === 'isTransient') return isNatsTransient;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  const handlers = new Map<string, RegisteredHandler>();
  const runtime = createCoreRuntime(opts, store, { limiter, handlers, hasWork: (entry) => entry.hasWork, log: o.log });
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
    // Told the store is unavailable and to retry, never the store's bare timeout.
    await expect(runtime.waitForOutcome('n', owner)).rejects.toMatchObject({ name: 'StoreUnavailableError', code: 'STORE_UNAVAILABLE', retryAfterMs: 1_000 });
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

describe('what the core rides out: only what the backend lists as passing', () => {
  it('should fail a server\'s own wait at once on a plain Error (a fault of the program), reading once', async () => {
    const { runtime, state } = flakyRuntime({ fault: () => new Error('a bug in the backend') });
    runtime.registerHandler('now', async () => ({ done: true }));
    await runtime.create({ taskId: 'n', owner, dialect: 'sep-1686', method: 'tools/call', handler: 'now', params: {} });
    await runtime.waitForTerminal('n', owner, { countsAsPoll: false });
    state.failing = 1_000;
    const reads = state.reads;
    const started = Date.now();
    // Before: a plain Error counted as transient, and the wait re-read it for 120 s, silently.
    await expect(runtime.waitForOutcome('n', owner, { countsAsPoll: false })).rejects.toThrow('a bug in the backend');
    expect(state.reads - reads).toBe(1);
    expect(Date.now() - started).toBeLessThan(1_000);
    // Not dressed up as an outage either: a requester sees the fault as it is.
    await expect(runtime.get('n', owner)).rejects.not.toMatchObject({ name: 'StoreUnavailableError' });
    await runtime.dispose();
  });

  it('should retry a NATS timeout in a server\'s own wait, logging one warn for the outage, not one per retry or per wait', async () => {
    const lines: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
    const { runtime, state } = flakyRuntime({ log: (level, message, fields) => lines.push({ level, message, ...(fields && { fields }) }) });
    runtime.registerHandler('now', async () => ({ done: true }));
    await runtime.create({ taskId: 'n', owner, dialect: 'sep-1686', method: 'tools/call', handler: 'now', params: {} });
    await runtime.waitForTerminal('n', owner, { countsAsPoll: false });
    expect(lines).toEqual([]);
    // Two waits at once, each meeting several failed reads (250 ms apart).
    state.failing = 6;
    const [a, b] = await Promise.all([runtime.waitForOutcome('n', owner, { countsAsPoll: false }), runtime.waitForOutcome('n', owner, { countsAsPoll: false })]);
    expect(a.result).toEqual({ done: true });
    expect(b.result).toEqual({ done: true });
    expect(state.failing).toBe(0);
    expect(lines).toEqual([{ level: 'warn', message: 'task store unreachable: waiting for it', fields: { taskId: 'n', giveUpMs: 120_000, error: 'TimeoutError: timeout' } }]);
    // A later outage is a new one: it is logged again.
    state.failing = 1;
    await runtime.waitForOutcome('n', owner, { countsAsPoll: false });
    expect(lines.filter((l) => l.level === 'warn')).toHaveLength(2);
    await runtime.dispose();
  });

  it('should answer a requester\'s get during an outage with StoreUnavailableError carrying retryAfterMs, its cause the NATS timeout', async () => {
    const { runtime, state } = flakyRuntime();
    runtime.registerHandler('now', async () => ({ done: true }));
    await runtime.create({ taskId: 'n', owner, dialect: 'sep-1686', method: 'tools/call', handler: 'now', params: {} });
    state.failing = 1;
    const error = await runtime.get('n', owner).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'StoreUnavailableError', retryAfterMs: 1_000, message: 'The task store is unavailable (it did not answer: TimeoutError); retry after 1000 ms' });
    expect((error as Error).cause).toBeInstanceOf(natsErrors.TimeoutError);
    await runtime.dispose();
  });
});
