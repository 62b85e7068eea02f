/**
 * Found in review: a run resumed from a checkpoint kept after an input request was answered numbers its
 * input requests from 1 again (TaskRun's `#inputs` counter starts at 0 on every run), so its next
 * request gets the id of the earlier, answered one and is handed that earlier answer.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { NatsTaskRuntime, NatsTaskRuntimeOptions } from '../../runtime/backends/nats/nats-runtime.js';
import type { TaskHandlerContext } from '../../runtime/index.js';
import { inProcessNodes } from './harness/nats-nodes.js';

const owner = { session: 's1', principal: null };

/** Asks two questions; keeps a checkpoint once the first is answered. */
async function twoQuestions(_params: unknown, ctx: TaskHandlerContext): Promise<unknown> {
  let first = (ctx.resumeFrom?.state as { first?: unknown } | undefined)?.first;
  if (first === undefined) {
    first = await ctx.requestInput('elicitation/create', { q: 'first' });
    await ctx.checkpoint({ first }, 'answered first');
  }
  const second = await ctx.requestInput('elicitation/create', { q: 'second' });
  return { first, second, attempt: ctx.attempt };
}

const nodes = inProcessNodes((runtime) => {
  runtime.registerHandler('two', twoQuestions, { retry: 'resume', maxAttempts: 3 });
}, { leaseTtlMs: 600 });
const node = (options: NatsTaskRuntimeOptions & { nodeId: string }): Promise<NatsTaskRuntime> => nodes.node(options);

describe('input ids of a resumed run', () => {
  it('does not hand the answer of an earlier question to a later one after a resume', async () => {
    const prefix = `rvin${Date.now()}`;
    const front = await node({ prefix, role: 'front', nodeId: `${prefix}-front` });
    const first = await node({ prefix, role: 'worker', nodeId: `${prefix}-first` });
    await front.create({ taskId: 't', owner, dialect: '2025-11-25', method: 'tools/call', handler: 'two', params: {} });
    const pending = async (): Promise<{ inputId: string; params: unknown }[]> => front.pendingInputRequests('t', owner);
    // First question: answered A.
    let asked: { inputId: string; params: unknown }[] = [];
    for (let i = 0; i < 200 && (asked = await pending()).length === 0; i++) await delay(20);
    expect(asked.map((r) => r.params)).toEqual([{ q: 'first' }]);
    await front.answerInput('t', owner, asked[0]!.inputId, { result: 'A' });
    // Second question asked (after the checkpoint): the worker is lost while it waits.
    for (let i = 0; i < 200; i++) {
      asked = await pending();
      if (asked.some((r) => (r.params as { q: string }).q === 'second')) break;
      await delay(20);
    }
    expect(asked.map((r) => r.params)).toEqual([{ q: 'second' }]);
    await first.connection.close();
    await node({ prefix, role: 'worker', nodeId: `${prefix}-second` });
    // The resumed run asks the second question again; it is answered B.
    const answerSecond = (async () => {
      for (let i = 0; i < 400; i++) {
        const now = await pending().catch(() => []);
        const second = now.find((r) => (r.params as { q: string }).q === 'second');
        if (second) {
          await front.answerInput('t', owner, second.inputId, { result: 'B' }).catch(() => undefined);
          return;
        }
        await delay(25);
      }
    })();
    const outcome = await front.waitForOutcome('t', owner, { timeout: 15_000 });
    await answerSecond;
    expect(outcome.task.status).toBe('completed');
    // Before the fix: { first: 'A', second: 'A', attempt: 2 } — the resumed run's `input-1` is the first question's id.
    expect(outcome.result).toEqual({ first: 'A', second: 'B', attempt: 2 });
  });
});
