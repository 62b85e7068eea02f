/**
 * Subtasks through the runtime API on both backends (memory, and NATS with a worker of one slot,
 * where a parent that held its slot while its child needs one would hang, and of four): input asked
 * by a child and answered through the parent or the child, the parent's record of children that
 * ended after it stopped waiting, and a fan-out past the creation rate.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTaskRuntime, type TaskHandlerContext, type TaskRuntime, type TaskRuntimeOptions } from '../../runtime/index.js';
import { createNatsTaskRuntime } from '../../runtime/backends/nats/nats-runtime.js';
import { freshPrefix, pollUntil } from './harness/cluster.js';
import { startNatsServer, type NatsServer } from './harness/nats-server.js';

const owner = { session: 's-subtasks', principal: null };
let nats: NatsServer | null = null;

beforeAll(async () => {
  nats = await startNatsServer({ jetstream: true });
});
afterAll(async () => {
  await nats?.stop();
});

/** The handlers every case uses: `ask` asks one question (or two at once), `parent` runs the case's work. */
function register(rt: TaskRuntime, parent: (params: unknown, ctx: TaskHandlerContext) => Promise<unknown>): TaskRuntime {
  rt.registerHandler('ask', async (params, ctx) => {
    const n = (params as { questions?: number } | null)?.questions ?? 1;
    const answers = await Promise.all(Array.from({ length: n }, (_, i) => ctx.requestInput('elicitation/create', { message: `q${i + 1}` })));
    return answers;
  });
  rt.registerHandler('sleep', async (params, ctx) => {
    await new Promise((resolve, reject) => {
      const timer = setTimeout(resolve, (params as { ms: number }).ms);
      ctx.signal.addEventListener('abort', () => (clearTimeout(timer), reject(new Error('aborted'))), { once: true });
    });
    return 'slept';
  });
  rt.registerHandler('parent', parent);
  return rt;
}

/** On NATS, `slots` worker slots: with one, a parent that held its slot while its child needs one hangs. */
const onNats = (slots: number) => async (o: TaskRuntimeOptions) =>
  createNatsTaskRuntime({ ...o, nats: { servers: nats!.url }, prefix: freshPrefix('subrt'), role: 'both', workerConcurrency: slots });

const backends = [
  { name: 'memory', open: async (o: TaskRuntimeOptions) => createTaskRuntime(o), slots: Infinity },
  { name: 'NATS, one worker slot', open: onNats(1), slots: 1 },
  { name: 'NATS, four worker slots', open: onNats(4), slots: 4 },
];

describe.each(backends)('subtasks on $name', ({ open, slots }) => {
  const runtimes: TaskRuntime[] = [];
  const start = async (parent: (params: unknown, ctx: TaskHandlerContext) => Promise<unknown>, o: TaskRuntimeOptions = {}): Promise<TaskRuntime> => {
    const rt = register(await open(o), parent);
    runtimes.push(rt);
    return rt;
  };
  afterAll(async () => {
    await Promise.all(runtimes.map((rt) => rt.dispose()));
  });

  const waitForChild = async (ctx: TaskHandlerContext, params: unknown): Promise<unknown> => {
    const child = await ctx.spawnTask('ask', params);
    const [outcome] = await ctx.waitForSubtasks([child]);
    return outcome!.result;
  };

  it("a child's question answered through the parent reaches the child, and the parent takes no slot it does not need", async () => {
    const rt = await start((_p, ctx) => waitForChild(ctx, {}));
    await rt.create({ taskId: 'p1', owner, dialect: '2025-11-25', method: 'tools/call', handler: 'parent' });
    const [mirror] = await pollUntil('the question on the parent', () => rt.pendingInputRequests('p1', owner), (r) => r.length === 1);
    expect(mirror!.params).toMatchObject({ message: 'q1' });
    await rt.answerInput('p1', owner, mirror!.inputId, { result: { action: 'accept', content: { name: 'Ada' } } });
    const out = await rt.waitForOutcome('p1', owner, { timeout: 15_000 });
    expect(out.result).toEqual([{ action: 'accept', content: { name: 'Ada' } }]);
  });

  it("a child's question answered through the child withdraws the parent's copy of it (another one still pending stays)", async () => {
    const rt = await start((_p, ctx) => waitForChild(ctx, { questions: 2 }));
    await rt.create({ taskId: 'p2', owner, dialect: '2025-11-25', method: 'tools/call', handler: 'parent' });
    await pollUntil('both questions on the parent', () => rt.pendingInputRequests('p2', owner), (r) => r.length === 2);
    const childId = (await rt.get('p2', owner)).children![0]!.taskId;
    const [first] = await pollUntil('both questions on the child', () => rt.pendingInputRequests(childId, owner), (r) => r.length === 2);
    await rt.answerInput(childId, owner, first!.inputId, { result: 'direct' });
    const left = await pollUntil('the parent keeps only the other one', () => rt.pendingInputRequests('p2', owner), (r) => r.length === 1);
    expect(left[0]!.params).toMatchObject({ message: 'q2' });
    await rt.answerInput('p2', owner, left[0]!.inputId, { result: 'through the parent' });
    expect((await rt.waitForOutcome('p2', owner, { timeout: 15_000 })).result).toEqual(['direct', 'through the parent']);
  });

  // With one slot, a parent's children run one after the other: waiting for 'any' of them is waiting for the first.
  if (slots > 1) it("a parent that stopped waiting ('any') ends with its leftover children recorded as they ended", async () => {
    const rt = await start(async (_p, ctx) => {
      const kids = [await ctx.spawnTask('sleep', { ms: 60_000 }), await ctx.spawnTask('sleep', { ms: 1 })];
      return (await ctx.waitForSubtasks(kids, 'any'))[0]!.result;
    });
    await rt.create({ taskId: 'p3', owner, dialect: '2025-11-25', method: 'tools/call', handler: 'parent' });
    const out = await rt.waitForOutcome('p3', owner, { timeout: 15_000 });
    expect(out.task.status).toBe('completed');
    expect(out.task.children?.map((c) => c.status)).toEqual(['cancelled', 'completed']);
  });

  it('a cancelled parent records its live children cancelled', async () => {
    const rt = await start(async (_p, ctx) => ctx.waitForSubtasks([await ctx.spawnTask('sleep', { ms: 60_000 })]));
    await rt.create({ taskId: 'p4', owner, dialect: '2025-11-25', method: 'tools/call', handler: 'parent' });
    await pollUntil('the child running', () => rt.get('p4', owner), (t) => t.children?.[0]?.status === 'working');
    const cancelled = await rt.cancel('p4', owner);
    expect(cancelled.children?.map((c) => c.status)).toEqual(['cancelled']);
    expect((await rt.get(cancelled.children![0]!.taskId, owner)).status).toBe('cancelled');
  });

  it('a fan-out past the creation rate goes at that rate instead of failing', async () => {
    const rt = await start(
      async (_p, ctx) => {
        const kids = [];
        for (let i = 0; i < 8; i++) kids.push(await ctx.spawnTask('sleep', { ms: 1 }));
        return (await ctx.waitForSubtasks(kids, 'first-error')).length;
      },
      { limits: { createsPerSecond: 4, pollsPerSecond: null, maxConcurrentTasks: null } },
    );
    await rt.create({ taskId: 'p5', owner, dialect: '2025-11-25', method: 'tools/call', handler: 'parent' });
    const out = await rt.waitForOutcome('p5', owner, { timeout: 20_000, countsAsPoll: false });
    expect([out.task.status, out.result]).toEqual(['completed', 8]);
  });
});
