/**
 * "Memory": heap bytes per task, ours against the SDK's `InMemoryTaskStore` holding as many tasks.
 *
 * Two cases: live tasks (ours: an XState actor each, whose handler never settles; the SDK: a
 * `createTask` record) and retained terminal tasks (ours: a completed record with its result; the
 * SDK: `createTask` + `storeTaskResult`). Each store starts empty, the heap is measured after a full
 * gc before and after filling it, and the difference is divided by the task count. Phases run one
 * after another, each store disposed and dropped before the next one is measured.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import { createTaskRuntime, type TaskRuntime } from '../runtime/index.js';
import { settledHeap } from './lib/heap.js';
import type { Benchmark, BenchRow } from './lib/report.js';

const SESSION = 'bench-session';
const OWNER = { session: SESSION, principal: null } as const;
/** One hour for both: long enough that nothing expires mid-phase, and within our default maximum. */
const TTL = 3_600_000;
const KB = 1024;
/** Tasks created at a time in the retained case. */
const BATCH = 1000;

/** A store under measurement: created empty, then filled, then disposed. */
interface Phase {
  fill(n: number): Promise<void>;
  dispose(): Promise<void> | void;
}

/** Heap bytes per task that `phase` holds once filled with `n` tasks. */
async function bytesPerTask(n: number, makePhase: () => Phase): Promise<number> {
  const phase = makePhase();
  const before = await settledHeap('memory');
  await phase.fill(n);
  const after = await settledHeap('memory');
  await phase.dispose();
  return (after - before) / n;
}

/** Waits (polling, so no per-task waiter is held) until `done` is true. */
async function until(done: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`memory: timed out waiting for ${what}`);
    await sleep(5);
  }
}

/** Params / request shaped like a real `tools/call`, fresh per task as a server would get them. */
const toolParams = (): unknown => ({ name: 'work', arguments: {} });
const tinyResult = () => ({ content: [{ type: 'text' as const, text: 'ok' }] });

/** Creates `count` tasks running `handler`; resolves with their ids once every one exists. */
async function createOurs(runtime: TaskRuntime, handler: string, count: number): Promise<string[]> {
  // Ids as they arrive off the wire: flat strings, 32 hex like the SDK store's own. Not
  // `randomUUID()`: on Node 20 it returns a rope of ~14 cons-string pieces (~490 heap bytes against
  // ~50 for a flat id), which would bill the id generator to the runtime. One random draw for all:
  // a draw per id was a visible share of the run time.
  const random = randomBytes(16 * count);
  const ids: string[] = [];
  const created: Promise<unknown>[] = [];
  for (let i = 0; i < count; i++) {
    const taskId = random.toString('hex', 16 * i, 16 * (i + 1));
    ids.push(taskId);
    created.push(
      runtime.create({ taskId, owner: OWNER, dialect: '2025-11-25', method: 'tools/call', label: 'work', keepAlive: TTL, handler, params: toolParams() }),
    );
  }
  await Promise.all(created);
  return ids;
}

/** Ours, live: every handler has started and never settles, so every task keeps its actor. */
function oursLive(): Phase {
  const runtime = createTaskRuntime();
  let started = 0;
  runtime.registerHandler('never', () => {
    started++;
    return new Promise<never>(() => undefined);
  });
  return {
    async fill(n) {
      await createOurs(runtime, 'never', n);
      await until(() => started === n, 'every handler to start');
      if (runtime.stats().live !== n) throw new Error(`memory: expected ${n} live tasks, got ${JSON.stringify(runtime.stats())}`);
    },
    dispose: () => runtime.dispose(),
  };
}

/** Ours, retained: every handler returned at once; only completed records (and results) remain. */
function oursCompleted(): Phase {
  const runtime = createTaskRuntime();
  runtime.registerHandler('tiny', async () => tinyResult());
  return {
    async fill(n) {
      // In batches, as tasks would arrive: with all n actors alive at once before they complete,
      // gc over the big live heap made up most of the run time. What is measured is the same.
      for (let made = 0; made < n; made += BATCH) {
        const ids = await createOurs(runtime, 'tiny', Math.min(BATCH, n - made));
        await Promise.all(ids.map((id) => runtime.waitForTerminal(id, OWNER)));
      }
      if (runtime.stats().retained !== n) throw new Error(`memory: expected ${n} retained tasks, got ${JSON.stringify(runtime.stats())}`);
    },
    dispose: () => runtime.dispose(),
  };
}

function sdk(complete: boolean): Phase {
  const store = new InMemoryTaskStore();
  return {
    async fill(n) {
      for (let i = 0; i < n; i++) {
        const request = { method: 'tools/call', params: toolParams() as Record<string, unknown> };
        const task = await store.createTask({ ttl: TTL, pollInterval: 1000 }, i, request, SESSION);
        if (complete) await store.storeTaskResult(task.taskId, 'completed', tinyResult(), SESSION);
      }
    },
    dispose: () => store.cleanup(),
  };
}

/**
 * Measures heap bytes per live and per retained task; one table.
 *
 * @throws Error when node runs without `--expose-gc`
 * @example
 * ```ts
 * const [table] = await run({ quick: true }); // node --expose-gc …
 * console.log(renderTable(table!));
 * ```
 */
export const run: Benchmark = async ({ quick }) => {
  const n = quick ? 20_000 : 100_000;
  await settledHeap('memory'); // fails early, before any work, when gc is not exposed
  const live = { ours: await bytesPerTask(n, oursLive), baseline: await bytesPerTask(n, () => sdk(false)) };
  const done = { ours: await bytesPerTask(n, oursCompleted), baseline: await bytesPerTask(n, () => sdk(true)) };
  const label = n.toLocaleString('en-US');
  const rows: BenchRow[] = [
    { name: `live task (working, handler pending), ${label} tasks`, ...live, unit: 'bytes/task', higherIsBetter: false, target: '≤ 4 KB', met: live.ours <= 4 * KB },
    { name: `retained terminal task (completed, tiny result), ${label} tasks`, ...done, unit: 'bytes/task', higherIsBetter: false, target: '≤ 1 KB', met: done.ours <= KB },
  ];
  return [
    {
      title: 'Memory',
      baselineName: 'SDK InMemoryTaskStore',
      method:
        `${label} tasks of one session per phase; heapUsed after full gc, before and after filling an empty store, divided by ${label}. ` +
        'Ours: createTaskRuntime().create with a handler (live: never settles; retained: returns {content:[text "ok"]} at once). ' +
        'SDK: createTask (+ storeTaskResult for retained), ttl 1 h. Fresh params/request and result objects per task on both sides; ids are flat 32-hex strings on both sides. ' +
        'Phases run in turn (ours live, SDK live, ours retained, SDK retained), each disposed before the next. KB = 1024 bytes.',
      rows,
    },
  ];
};
