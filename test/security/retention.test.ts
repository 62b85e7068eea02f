/**
 * The retention limits (issue 31, item 3), through the runtime on both backends: a requester keeps
 * at most `maxRetainedTasks` tasks (running, or ended within their keepAlive; on NATS counted
 * across the cluster, whichever node created them), and the node keeps at most `maxRetainedBytes`
 * of results and messages; past either, a new task is refused naming the limit, and nothing kept
 * is evicted for it. Deleting a task frees its place.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createTaskRuntime, TaskLimitError, type TaskHandler, type TaskRuntime } from '../../runtime/index.js';
import { sleep } from '../integration/harness/json.js';
import { inProcessNodes } from '../integration/harness/nats-nodes.js';

const alice = { session: 'alice', principal: null };
const bob = { session: 'bob', principal: null };
const handlers: Record<string, TaskHandler> = {
  small: async () => ({ ok: true }),
  sized: async (params) => ({ text: 'r'.repeat((params as { bytes: number }).bytes) }),
};
const register = (runtime: TaskRuntime): void => {
  for (const [name, handler] of Object.entries(handlers)) runtime.registerHandler(name, handler);
};
const nodes = inProcessNodes(register, {});

const run = async (runtime: TaskRuntime, owner: typeof alice, handler: string, params: unknown = {}): Promise<string> => {
  const taskId = randomUUID();
  await runtime.create({ taskId, owner, dialect: '2025-11-25', method: 'tools/call', handler, params, keepAlive: 600_000 });
  await runtime.waitForOutcome(taskId, owner, { timeout: 10_000 });
  return taskId;
};

describe.each(['memory', 'nats'] as const)('retention limits (%s)', (backend) => {
  /** Two runtimes on one task space (NATS: two front nodes and a worker), or one (memory). */
  async function open(limits: Record<string, number | null>): Promise<[TaskRuntime, TaskRuntime]> {
    const all = { createsPerSecond: null, pollsPerSecond: null, ...limits };
    if (backend === 'memory') {
      const runtime = createTaskRuntime({ limits: all });
      register(runtime);
      return [runtime, runtime];
    }
    const prefix = `keep${randomUUID().slice(0, 8)}`;
    await nodes.node({ prefix, role: 'worker', nodeId: `w-${prefix}`, limits: all });
    return [await nodes.node({ prefix, role: 'front', nodeId: `a-${prefix}`, limits: all }), await nodes.node({ prefix, role: 'front', nodeId: `b-${prefix}`, limits: all })];
  }

  it('should refuse a requester its task past maxRetainedTasks, whichever node, until one is deleted; others are not touched', async () => {
    const [a, b] = await open({ maxRetainedTasks: 3 });
    const kept = [await run(a, alice, 'small'), await run(a, alice, 'small'), await run(b, alice, 'small')];
    const refused = await run(b, alice, 'small').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TaskLimitError);
    expect(refused).toMatchObject({ limit: 'maxRetainedTasks', retryAfterMs: null });
    expect(String((refused as Error).message)).toContain('--max-retained-tasks');
    // Nothing kept was evicted for it.
    for (const id of kept) expect((await a.get(id, alice, { countsAsPoll: false })).status).toBe('completed');
    // Another requester has its own count.
    await run(a, bob, 'small');
    await a.delete(kept[0]!, alice);
    // Its place is free at once on memory, within about a second on NATS (readings renew in the background).
    const deadline = Date.now() + 5_000;
    for (;;) {
      const again = await run(b, alice, 'small').then(() => null, (e: unknown) => e);
      if (again === null) break;
      expect(again).toMatchObject({ limit: 'maxRetainedTasks' });
      expect(backend === 'nats' && Date.now() < deadline).toBe(true);
      await sleep(300);
    }
  }, 30_000);

  it('should refuse every new task past maxRetainedBytes, keeping what was kept', async () => {
    const budget = 60_000;
    // Each requester's share off: the node's budget is what is filled here.
    const [a] = await open({ maxRetainedBytes: budget, maxRetainedBytesPerRequester: null });
    const kept: string[] = [];
    let refusal: unknown;
    for (let i = 0; i < 20 && refusal === undefined; i++) {
      try {
        kept.push(await run(a, i % 2 === 0 ? alice : bob, 'sized', { bytes: 10_000 }));
      } catch (error) {
        refusal = error;
      }
      if (backend === 'nats') await sleep(1_100);
    }
    expect(refusal).toBeInstanceOf(TaskLimitError);
    expect(refusal).toMatchObject({ limit: 'maxRetainedBytes' });
    expect(String((refusal as Error).message)).toContain('--max-retained-bytes');
    // It took about the budget's worth of 10 KB results (NATS counts its records too).
    expect(kept.length).toBeGreaterThanOrEqual(backend === 'memory' ? 6 : 2);
    expect(kept.length).toBeLessThanOrEqual(8);
    for (const [i, id] of kept.entries()) expect((await a.get(id, i % 2 === 0 ? alice : bob, { countsAsPoll: false })).status).toBe('completed');
  }, 60_000);
});
