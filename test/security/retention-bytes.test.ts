/**
 * What `maxRetainedBytes` counts (issue 31, item 3), on the memory backend and a NATS front +
 * worker: every byte a kept task holds, so the budget bounds many small tasks of many requesters
 * (each session is a requester with its own `maxRetainedTasks`) as it bounds large ones, and a
 * failure detail kept without a result. Memory counted about 40 bytes for a small ended task that
 * holds 1.1 KB, and nothing of a detail without a result; NATS counted a small task's 0.9 KB
 * record but not its 3.5 KB of events, kept as long.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createTaskRuntime, TaskFailure, TaskLimitError, type TaskHandler, type TaskRuntime } from '../../runtime/index.js';
import { sleep } from '../integration/harness/json.js';
import { inProcessNodes } from '../integration/harness/nats-nodes.js';

const handlers: Record<string, TaskHandler> = {
  small: async () => ({ ok: true }),
  // Fails keeping a 100 KB detail and no result.
  detail: async () => {
    throw new TaskFailure('failed with a large detail', { detail: { blob: 'd'.repeat(100_000) } });
  },
};
const register = (runtime: TaskRuntime): void => {
  for (const [name, handler] of Object.entries(handlers)) runtime.registerHandler(name, handler);
};
const nodes = inProcessNodes(register, {});

async function open(backend: 'memory' | 'nats', budget: number): Promise<TaskRuntime> {
  const limits = { createsPerSecond: null, pollsPerSecond: null, maxRetainedBytes: budget };
  if (backend === 'memory') {
    const runtime = createTaskRuntime({ limits });
    register(runtime);
    return runtime;
  }
  const prefix = `kb${randomUUID().slice(0, 8)}`;
  await nodes.node({ prefix, role: 'worker', nodeId: `w-${prefix}`, limits });
  return nodes.node({ prefix, role: 'front', nodeId: `f-${prefix}`, limits });
}

/** Creates tasks of `handler` in rounds of `round` (each by its own requester) until one is refused; returns how many were kept and the refusal. */
async function fill(runtime: TaskRuntime, backend: 'memory' | 'nats', handler: string, round: number, most: number): Promise<{ kept: number; refusal: unknown }> {
  let kept = 0;
  while (kept < most) {
    const owners = Array.from({ length: round }, () => ({ session: randomUUID(), principal: null }));
    for (const owner of owners) {
      const taskId = randomUUID();
      const refused = await runtime.create({ taskId, owner, dialect: '2025-11-25', method: 'tools/call', handler, params: {}, keepAlive: 600_000 }).then(
        () => null,
        (error: unknown) => error,
      );
      if (refused !== null) return { kept, refusal: refused };
      await runtime.waitForOutcome(taskId, owner, { timeout: 10_000 });
      kept++;
    }
    // NATS reads what the space keeps at most once a second.
    if (backend === 'nats') await sleep(1_100);
  }
  return { kept, refusal: null };
}

describe.each(['memory', 'nats'] as const)('maxRetainedBytes counts what kept tasks hold (%s)', (backend) => {
  it('should fill the budget with many small tasks of many requesters, not only with large results', async () => {
    const budget = 300_000;
    const runtime = await open(backend, budget);
    // At least about 1 KB each: 300 tasks at most (memory counted 40 bytes, NATS 0.9 KB each).
    const { kept, refusal } = await fill(runtime, backend, 'small', 20, 400);
    expect(refusal).toBeInstanceOf(TaskLimitError);
    expect(refusal).toMatchObject({ limit: 'maxRetainedBytes' });
    expect(kept).toBeLessThanOrEqual(backend === 'memory' ? 300 : 140);
  }, 90_000);

  it('should count a failure detail kept without a result', async () => {
    const runtime = await open(backend, 250_000);
    const { kept, refusal } = await fill(runtime, backend, 'detail', 1, 10);
    expect(refusal).toMatchObject({ limit: 'maxRetainedBytes' });
    expect(kept).toBeLessThanOrEqual(3);
  }, 60_000);
});
