/**
 * Found in review: `stepKey()` is documented as the same on every run that reaches the same step ("a run
 * that resumes from checkpoint N repeats what came after it under the same key"). In a machine
 * handler the checkpoint of a state is numbered (TaskRun.checkpoint, `++seq`) only after the
 * state's invoked effect has started, so the first run's effect in state `b` sees the previous
 * state's number, and the run that resumes from `b`'s checkpoint sees `b`'s own: the same effect
 * is repeated under a different idempotency key.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { fromPromise, setup } from 'xstate';
import { describe, expect, it } from 'vitest';
import { machineHandler } from '../../runtime/handlers/machine-handler.js';
import type { NatsTaskRuntime, NatsTaskRuntimeOptions } from '../../runtime/backends/nats/nats-runtime.js';
import type { TaskHandlerContext } from '../../runtime/index.js';
import { inProcessNodes } from './harness/nats-nodes.js';

const owner = { session: 's1', principal: null };
/** Each effect made: state, attempt, idempotency key. */
const effects: { state: string; attempt: number; key: string }[] = [];

const unprovided = fromPromise<void, string>(() => Promise.reject(new Error('provided per run')));
const twoSteps = setup({ actors: { effect: unprovided } }).createMachine({
  id: 'two',
  initial: 'a',
  states: {
    a: { invoke: { src: 'effect', input: 'a', onDone: 'b' } },
    b: { invoke: { src: 'effect', input: 'b', onDone: 'done' } },
    done: { type: 'final' },
  },
});

const handler = machineHandler(twoSteps, {
  input: () => undefined,
  provide: (ctx: TaskHandlerContext) => ({
    actors: {
      effect: fromPromise<void, string>(async ({ input }) => {
        effects.push({ state: input, attempt: ctx.attempt, key: ctx.stepKey() });
        // The first run stays in `b` until its worker is lost.
        if (input === 'b' && ctx.attempt === 1) await new Promise(() => undefined);
      }),
    },
  }),
});

const nodes = inProcessNodes((runtime) => {
  runtime.registerHandler('two', (p, ctx) => handler(p, ctx), { retry: 'resume', maxAttempts: 3 });
}, { leaseTtlMs: 600 });
const node = (options: NatsTaskRuntimeOptions & { nodeId: string }): Promise<NatsTaskRuntime> => nodes.node(options);

describe('step keys of a resumed machine handler', () => {
  it('repeats the effect of the state it resumes in under the key the first run used', async () => {
    const prefix = `rvsk${Date.now()}`;
    const front = await node({ prefix, role: 'front', nodeId: `${prefix}-front` });
    const first = await node({ prefix, role: 'worker', nodeId: `${prefix}-first` });
    await front.create({ taskId: 't', owner, dialect: '2025-11-25', method: 'tools/call', handler: 'two', params: {} });
    for (let i = 0; i < 200 && !effects.some((e) => e.state === 'b'); i++) await delay(20);
    // Let b's checkpoint land, then lose the worker.
    await delay(300);
    await first.connection.close();
    await node({ prefix, role: 'worker', nodeId: `${prefix}-second` });
    const outcome = await front.waitForOutcome('t', owner, { timeout: 15_000 });
    expect(outcome.task.status).toBe('completed');
    const inB = effects.filter((e) => e.state === 'b');
    expect(inB.map((e) => e.attempt)).toEqual([1, 2]);
    // Before the fix: ['t:1', 't:2'] — the repeated effect gets a new key, defeating the receiver's dedup.
    expect(inB[1]!.key).toBe(inB[0]!.key);
  });
});
