/**
 * Found in review: RunningTasks.claim returns at once when the entry *as this node last saw it* already
 * names the task key. A key reused after its task ended elsewhere (a worker node released it)
 * and was deleted is still in the front's cached entry, so the new task is never counted: the
 * requester runs more tasks than `maxConcurrentTasks`.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { NatsTaskRuntime, NatsTaskRuntimeOptions } from '../../runtime/backends/nats/nats-runtime.js';
import { TaskLimitError } from '../../runtime/errors.js';
import type { TaskHandlerContext } from '../../runtime/index.js';
import { inProcessNodes } from './harness/nats-nodes.js';

const owner = { session: 's1', principal: null };
const limits = { maxConcurrentTasks: 1, createsPerSecond: null, pollsPerSecond: null, listsPerSecond: null };

const nodes = inProcessNodes((runtime) => {
  runtime.registerHandler('quick', async () => 'done');
  runtime.registerHandler('hold', (_p: unknown, ctx: TaskHandlerContext) => new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('aborted')))));
}, { limits });
const node = (options: NatsTaskRuntimeOptions & { nodeId: string }): Promise<NatsTaskRuntime> => nodes.node(options);

describe('running-task claims on a reused task id', () => {
  it('counts a task created again under an id whose earlier task ended on another node', async () => {
    const prefix = `rvrun${Date.now()}`;
    const front = await node({ prefix, role: 'front', nodeId: `${prefix}-front` });
    await node({ prefix, role: 'worker', nodeId: `${prefix}-worker` });
    const create = (taskId: string, handler: string) => front.create({ taskId, owner, dialect: 'sep-1686', method: 'tools/call', handler, params: {} });
    // k1 runs and ends on the worker node, whose write ends it: the worker releases the claim.
    await create('k1', 'quick');
    await front.waitForTerminal('k1', owner, { timeout: 5_000 });
    await delay(300);
    await front.delete('k1', owner);
    // The requester reuses the id (SEP-1686 requesters choose ids) for a long task...
    await create('k1', 'hold');
    // ...and with maxConcurrentTasks 1 a second running task must be refused.
    const second = await create('k2', 'hold').then(
      () => null,
      (e: unknown) => e,
    );
    const statuses = [(await front.get('k1', owner)).status, ...(second === null ? [(await front.get('k2', owner)).status] : [])];
    // Before the fix: k2 is created and both are running (the cap of 1 exceeded).
    expect({ statuses, refused: second instanceof TaskLimitError }).toEqual({ statuses: [expect.any(String)], refused: true });
  });
});
