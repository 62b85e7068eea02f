/**
 * Found in review: `ctx.stepKey()` is `<taskId>:<seq>`, documented as an idempotency key for effects. Task
 * ids are unique per requester only (SEP-1686 requesters choose them: "1", "job"), and an id may
 * be used again after its task is deleted, so two different tasks make their effects under the
 * same key: a receiver that remembers keys drops the second task's effect.
 */
import { describe, expect, it } from 'vitest';
import { createTaskRuntime } from '../../../runtime/index.js';

describe('step keys of different tasks', () => {
  it('differ for two requesters that chose the same task id', async () => {
    const runtime = createTaskRuntime();
    runtime.registerHandler('effect', async (_p, ctx) => ctx.stepKey());
    const alice = { session: 'alice', principal: null };
    const bob = { session: 'bob', principal: null };
    for (const owner of [alice, bob]) await runtime.create({ taskId: 'job', owner, dialect: 'sep-1686', method: 'tools/call', handler: 'effect', params: {} });
    const a = (await runtime.waitForOutcome('job', alice, { timeout: 5_000 })).result;
    const b = (await runtime.waitForOutcome('job', bob, { timeout: 5_000 })).result;
    await runtime.dispose();
    // Before the fix: both are 'job:0'.
    expect(a).not.toBe(b);
  });
});
