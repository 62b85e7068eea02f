/**
 * "Runtime API alone": task lifecycles per second through `createTaskRuntime` (create with a
 * handler that returns at once, then `waitForOutcome`), with no protocol in the way, against a bare
 * XState actor of the same lifecycle machine, which is the ceiling: the runtime cannot be faster
 * than the actor it hosts, so the ratio says what the runtime's bookkeeping costs on top of the machine.
 *
 * @module
 */
import { performance } from 'node:perf_hooks';
import { createActor, toPromise } from 'xstate';
import { taskEvents, taskMachine, type TaskInput } from '../machines/index.js';
import { createTaskRuntime, type TaskRuntime } from '../runtime/index.js';
import { alternate, type Benchmark, type BenchRow } from './lib/report.js';

const OWNER = { session: null, principal: null } as const;
const HANDLER = 'tools/call:ok';
const RESULT = { content: [{ type: 'text', text: 'ok' }] };
/** Lifecycles of the one unmeasured pass each side makes first. */
const WARMUP = 1000;

/** One complete lifecycle; throws unless the task completed (a benchmark of a failure path is worthless). */
type Lifecycle = (i: number) => Promise<void>;

/** Runs `n` lifecycles, `concurrency` at a time, and returns lifecycles per second. */
async function drive(n: number, concurrency: number, lifecycle: Lifecycle): Promise<number> {
  let started = 0;
  const worker = async (): Promise<void> => {
    while (started < n) await lifecycle(started++);
  };
  globalThis.gc?.();
  const start = performance.now();
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
  return n / ((performance.now() - start) / 1000);
}

/** Ours: a fresh runtime per sample (its retained records go with it), ids unique within it. */
async function runtimeSample(n: number, concurrency: number): Promise<number> {
  const runtime: TaskRuntime = createTaskRuntime();
  runtime.registerHandler(HANDLER, async () => RESULT);
  try {
    return await drive(n, concurrency, async (i) => {
      const taskId = `t${i}`;
      await runtime.create({ taskId, owner: OWNER, dialect: 'sep-1686', method: 'tools/call', label: 'ok', handler: HANDLER, params: {} });
      const outcome = await runtime.waitForOutcome(taskId, OWNER);
      if (outcome.task.status !== 'completed' || outcome.result !== RESULT) throw new Error(`task ${taskId} ended ${outcome.task.status}`);
    });
  } finally {
    await runtime.dispose();
  }
}

/** The ceiling: the same machine as one actor, its work resolving at once and its outcome sent as the event that ends it. */
const work = async (): Promise<unknown> => RESULT;

async function actorSample(n: number, concurrency: number): Promise<number> {
  return drive(n, concurrency, async (i) => {
    const input: TaskInput = {
      taskId: `t${i}`, owner: OWNER, dialect: 'sep-1686', method: 'tools/call', label: 'ok',
      keepAlive: 300_000, pollFrequency: 1000, createdAt: Date.now(),
    };
    const actor = createActor(taskMachine, { input }).start();
    actor.send(taskEvents.start());
    await work();
    actor.send(taskEvents.complete(input.taskId, Date.now()));
    await toPromise(actor); // resolves when the machine reaches a final state
    const status = actor.getSnapshot().value;
    if (status !== 'completed') throw new Error(`bare actor ended ${status}`);
  });
}

/**
 * Measures the runtime API's lifecycles per second against a bare actor of the same machine.
 *
 * @example
 * ```ts
 * for (const table of await run({ quick: true })) console.log(renderTable(table));
 * ```
 */
export const run: Benchmark = async ({ quick }) => {
  const n = quick ? 3000 : 20_000;
  // Three samples suffice: each is thousands of lifecycles long (and five would blow the full run's time budget).
  const rounds = 3;
  const rows: BenchRow[] = [];
  for (const [label, concurrency] of [['sequential', 1], ['100 concurrent', 100]] as const) {
    // One unmeasured pass of each side first, so neither pays for JIT warm-up in a sample.
    await runtimeSample(WARMUP, concurrency);
    await actorSample(WARMUP, concurrency);
    const r = await alternate(rounds, () => runtimeSample(n, concurrency), () => actorSample(n, concurrency));
    rows.push({ name: `${label}: create → waitForOutcome`, ours: r.ours, baseline: r.baseline, unit: 'lifecycles/s', higherIsBetter: true, target: 'ceiling' });
  }
  return [
    {
      title: 'Runtime API alone: createTaskRuntime vs a bare XState actor (ceiling)',
      baselineName: 'bare taskMachine actor',
      method:
        `${n} lifecycles per sample, median of ${rounds} samples alternating ours and the ceiling, each side warmed up first. ` +
        'Ours: runtime.create with a registered handler that returns at once, then runtime.waitForOutcome; a fresh runtime per sample, disposed after. ' +
        'Ceiling: createActor(taskMachine), start, send task.start, await work that resolves at once, send task.complete, await the final state (one actor, as each of our tasks is). ' +
        'Every lifecycle is checked to end completed.',
      rows,
    },
  ];
};
