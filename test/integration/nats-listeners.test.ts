/**
 * No listener build-up on a node's long-lived signals (issue 16, item 4): every abort listener
 * added to an AbortSignal in this process is counted (add minus remove, per signal) while one NATS
 * node (role both, a small worker so that pulls wait for slots) runs 10,000 tasks. The most any
 * one signal carries stays small, and Node never warns of too many listeners.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNatsTaskRuntime, type NatsTaskRuntime } from '../../runtime/backends/nats/nats-runtime.js';
import { startNatsServer, type NatsServer } from './harness/nats-server.js';

const TASKS = 10_000;
const IN_FLIGHT = 50;
const OWNER = { session: 'listeners', principal: null };

/** Counts 'abort' listeners per AbortSignal from now until `stop()`; remembers the most any one had. */
function countAbortListeners(): { most(): number; stop(): void } {
  const proto = EventTarget.prototype;
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called with .call(signal)
  const add = proto.addEventListener;
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called with .call(signal)
  const remove = proto.removeEventListener;
  const live = new WeakMap<object, Set<unknown>>();
  let most = 0;
  proto.addEventListener = function (this: EventTarget, type: string, listener: Parameters<EventTarget['addEventListener']>[1], options?: Parameters<EventTarget['addEventListener']>[2]) {
    if (this instanceof AbortSignal && type === 'abort' && listener) {
      const set = live.get(this) ?? new Set();
      live.set(this, set);
      set.add(listener);
      most = Math.max(most, set.size);
      // A `once` listener is gone when it fires.
      if (typeof options === 'object' && options.once) {
        add.call(this, 'abort', () => set.delete(listener), { once: true });
      }
    }
    return add.call(this, type, listener, options);
  };
  proto.removeEventListener = function (this: EventTarget, type: string, listener: Parameters<EventTarget['removeEventListener']>[1], options?: Parameters<EventTarget['removeEventListener']>[2]) {
    if (this instanceof AbortSignal && type === 'abort') live.get(this)?.delete(listener);
    return remove.call(this, type, listener, options);
  };
  return {
    most: () => most,
    stop: () => {
      proto.addEventListener = add;
      proto.removeEventListener = remove;
    },
  };
}

describe('listeners on a NATS node’s shared signals', () => {
  let server: NatsServer;
  let node: NatsTaskRuntime | undefined;
  const warnings: Error[] = [];
  const onWarning = (w: Error): void => void warnings.push(w);

  beforeAll(async () => {
    server = await startNatsServer();
  });
  afterAll(async () => {
    process.off('warning', onWarning);
    await node?.dispose();
    await server.stop();
  });

  it(`should stay bounded over ${TASKS.toLocaleString('en')} tasks`, { timeout: 240_000 }, async () => {
    const counter = countAbortListeners();
    process.on('warning', onWarning);
    try {
      node = await createNatsTaskRuntime({ nats: { servers: server.url }, prefix: 'listeners', role: 'both', nodeId: 'listeners-node', workerConcurrency: 4 });
      node.registerHandler('noop', async () => ({ ok: true }));
      let next = 0;
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          while (next < TASKS) {
            const taskId = `t${next++}`;
            await node!.create({ taskId, owner: OWNER, dialect: 'sep-1686', method: 'tools/call', handler: 'noop', params: null });
            const { task } = await node!.waitForOutcome(taskId, OWNER, { timeout: 60_000 });
            expect(task.status).toBe('completed');
          }
        }),
      );
    } finally {
      counter.stop();
    }
    // Before: the stop signal carried one listener per pull loop (8 + 8), one per slot waiter and the lease watch.
    expect(counter.most()).toBeLessThanOrEqual(3);
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
  });
});
