/**
 * A requester's share of the node's kept bytes (issue 42, item 5), through the runtime on both
 * backends: requester A may keep at most `maxRetainedBytesPerRequester` bytes of ended tasks
 * (default a quarter of `maxRetainedBytes`); past it A's next task is refused naming the limit and
 * its flag, while B creates tasks as before; deleting one of A's tasks frees its share. On NATS the
 * share is counted across the cluster: A's tasks created on one front count on the other, and on a
 * front started after they ended. Before,
 * the budget was node-wide only: one requester filled it and every other one was refused.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createTaskRuntime, TaskLimitError, type TaskHandler, type TaskRuntime } from '../../runtime/index.js';
import { pollUntil } from '../integration/harness/cluster.js';
import { inProcessNodes } from '../integration/harness/nats-nodes.js';

const alice = { session: 'alice', principal: null };
const bob = { session: 'bob', principal: null };
const handlers: Record<string, TaskHandler> = {
  sized: async (params) => ({ text: 'r'.repeat((params as { bytes: number }).bytes) }),
};
const register = (runtime: TaskRuntime): void => {
  for (const [name, handler] of Object.entries(handlers)) runtime.registerHandler(name, handler);
};
const nodes = inProcessNodes(register, {});

/** 30 KB of result: over half of the 50 KB share below with a record of either backend. */
const RESULT = 30_000;
/** The node budget; the default share is a quarter of it: 50,000 bytes. */
const BUDGET = 200_000;

const create = async (runtime: TaskRuntime, owner: typeof alice): Promise<string> => {
  const taskId = randomUUID();
  await runtime.create({ taskId, owner, dialect: '2025-11-25', method: 'tools/call', handler: 'sized', params: { bytes: RESULT }, keepAlive: 600_000 });
  return taskId;
};
const run = async (runtime: TaskRuntime, owner: typeof alice): Promise<string> => {
  const taskId = await create(runtime, owner);
  await runtime.waitForOutcome(taskId, owner, { timeout: 10_000 });
  return taskId;
};

describe.each(['memory', 'nats'] as const)('maxRetainedBytesPerRequester (%s)', (backend) => {
  /** Two runtimes on one task space (NATS: two front nodes and a worker), or one (memory). */
  async function open(limits: Record<string, number | null>): Promise<[TaskRuntime, TaskRuntime]> {
    const all = { createsPerSecond: null, pollsPerSecond: null, ...limits };
    if (backend === 'memory') {
      const runtime = createTaskRuntime({ limits: all });
      register(runtime);
      return [runtime, runtime];
    }
    const prefix = `share${randomUUID().slice(0, 8)}`;
    await nodes.node({ prefix, role: 'worker', nodeId: `w-${prefix}`, limits: all });
    return [await nodes.node({ prefix, role: 'front', nodeId: `a-${prefix}`, limits: all }), await nodes.node({ prefix, role: 'front', nodeId: `b-${prefix}`, limits: all })];
  }

  it('should refuse a requester past its share, naming the limit and its flag, while another requester is served', async () => {
    const [a, b] = await open({ maxRetainedBytes: BUDGET });
    // Front b hears every task end, wherever it ran.
    const endedOnB = new Set<string>();
    const stop = b.subscribe((change) => {
      if (change.task.status === 'completed') endedOnB.add(change.task.taskId);
    });
    try {
      // Both of alice's tasks through front a; the second passes (one task is under the share).
      const kept = [await run(a, alice), await run(a, alice)];
      await pollUntil('both ends heard on the other front', async () => kept.every((id) => endedOnB.has(id)), (heard) => heard, { timeoutMs: 5_000 });
      // Front b, which created none of them, counts them: alice is over her share there.
      const refused = await create(b, alice).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(TaskLimitError);
      expect(refused).toMatchObject({ limit: 'maxRetainedBytesPerRequester', retryAfterMs: null });
      expect(String((refused as Error).message)).toContain('--max-retained-bytes-per-requester');
      expect(await create(a, alice).catch((e: unknown) => e)).toMatchObject({ limit: 'maxRetainedBytesPerRequester' });
      // Bob, under his own share and the node's budget, is served on either front.
      await run(b, bob);
      await run(a, bob);
      // Nothing of alice's was evicted for it.
      for (const id of kept) expect((await b.get(id, alice, { countsAsPoll: false })).status).toBe('completed');
      // A deleted task frees its share (at once on memory, once the delete is heard on NATS).
      await a.delete(kept[0]!, alice);
      const servedAgain = async (): Promise<boolean> => {
        try {
          await create(b, alice);
          return true;
        } catch (error) {
          if (error instanceof TaskLimitError) return false;
          throw error;
        }
      };
      await pollUntil('alice served again', servedAgain, (served) => served, { timeoutMs: 5_000, intervalMs: 100 });
    } finally {
      stop();
    }
  }, 30_000);

  it.runIf(backend === 'nats')('should count, on a front started later, the tasks that ended before it started', async () => {
    const prefix = `late${randomUUID().slice(0, 8)}`;
    const limits = { createsPerSecond: null, pollsPerSecond: null, maxRetainedBytes: BUDGET };
    await nodes.node({ prefix, role: 'worker', nodeId: `w-${prefix}`, limits });
    const a = await nodes.node({ prefix, role: 'front', nodeId: `a-${prefix}`, limits });
    await run(a, alice);
    await run(a, alice);
    // Front c never heard those tasks end: it reads what is kept as it starts.
    const c = await nodes.node({ prefix, role: 'front', nodeId: `c-${prefix}`, limits });
    expect(await create(c, alice).catch((e: unknown) => e)).toMatchObject({ limit: 'maxRetainedBytesPerRequester' });
    await run(c, bob);
  }, 30_000);

  it('should leave a requester unbounded but for the node budget when the share is off', async () => {
    const [a] = await open({ maxRetainedBytes: BUDGET, maxRetainedBytesPerRequester: null });
    for (let i = 0; i < 3; i++) await run(a, alice);
  }, 30_000);
});
