// StandaloneInputs costs nothing for tasks that never ask: watching makes no runtime subscription
// (one input listener per connection); a task that asks gets a deliverer and a status
// subscription, both ended with the task; a closed connection sends nothing more.
import { afterEach, expect, it } from 'vitest';
import { StandaloneInputs } from '../../../adapters/wire/standalone-inputs.js';
import { createTaskRuntime, type TaskRuntime } from '../../../runtime/index.js';

const owner = { session: 's', principal: null };
let runtime: TaskRuntime;
afterEach(async () => {
  await runtime.dispose();
});

/** A runtime whose subscriptions are counted (made, and still open). */
function counted() {
  runtime = createTaskRuntime();
  const open = { subscribe: 0, onInputRequest: 0 };
  for (const name of ['subscribe', 'onInputRequest'] as const) {
    const original = runtime[name].bind(runtime) as (...a: unknown[]) => () => void;
    (runtime as unknown as Record<string, unknown>)[name] = (...a: unknown[]) => {
      open[name]++;
      const stop = original(...a);
      return () => (open[name]--, stop());
    };
  }
  return open;
}
const create = (taskId: string, handler: string) => runtime.create({ taskId, owner, dialect: '2025-11-25', method: 'tools/call', label: handler, handler, params: {} });
const until = async (check: () => boolean): Promise<void> => {
  for (let i = 0; !check(); i++) {
    if (i > 200) throw new Error('not within 5 s');
    await new Promise((r) => setTimeout(r, 25));
  }
};

it('watches 100 tasks that never ask with one input listener and no status subscription', async () => {
  const open = counted();
  runtime.registerHandler('quick', async () => ({ ok: true }));
  const standalone = new StandaloneInputs(runtime, { inFlight: new Set(), peerSupports: () => true }, () => new Promise(() => undefined));
  for (let i = 0; i < 100; i++) standalone.watch(await create(`t${i}`, 'quick'), owner);
  expect(open).toEqual({ subscribe: 0, onInputRequest: 1 });
  standalone.close();
  expect(open).toEqual({ subscribe: 0, onInputRequest: 0 });
});

it('sends what a watched task asks after the grace, and ends its deliverer with the task', async () => {
  const open = counted();
  // Asks once it has been watched a while: the connection's listener hears the question.
  runtime.registerHandler('ask', async (_p, ctx) => {
    await new Promise((r) => setTimeout(r, 50));
    return { answer: await ctx.requestInput('elicitation/create', { message: 'name?' }) };
  });
  const sent: string[] = [];
  const standalone = new StandaloneInputs(runtime, { inFlight: new Set(), peerSupports: () => true }, async (request) => (sent.push(request.method), { action: 'accept', content: { name: 'Ada' } }), 10);
  const task = await create('a1', 'ask');
  standalone.watch(task, owner);
  const outcome = await runtime.waitForOutcome('a1', owner, { timeout: 5_000 });
  expect(outcome.result).toEqual({ answer: { action: 'accept', content: { name: 'Ada' } } });
  expect(sent).toEqual(['elicitation/create']);
  await until(() => open.subscribe === 0);
  expect(open).toEqual({ subscribe: 0, onInputRequest: 1 });
  standalone.close();
});

it('sends nothing once closed: the input stays pending for the next connection', async () => {
  counted();
  runtime.registerHandler('ask', async (_p, ctx) => ({ answer: await ctx.requestInput('elicitation/create', { message: 'name?' }) }));
  const sent: string[] = [];
  const standalone = new StandaloneInputs(runtime, { inFlight: new Set(), peerSupports: () => true }, async (request) => (sent.push(request.method), {}), 10);
  standalone.close();
  standalone.watch(await create('c1', 'ask'), owner);
  for (let i = 0; (await runtime.get('c1', owner, { countsAsPoll: false })).status !== 'input_required'; i++) {
    if (i > 200) throw new Error('never input_required');
    await new Promise((r) => setTimeout(r, 25));
  }
  const pending = await runtime.pendingInputRequests('c1', owner);
  expect(pending.map((p) => p.method)).toEqual(['elicitation/create']);
  expect(sent).toEqual([]);
});
