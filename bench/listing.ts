/**
 * "Listing": one full `tasks/list` scan (every page, following `nextCursor` to the end) over one
 * session holding N completed tasks, ours against the SDK's `InMemoryTaskStore`.
 *
 * Ours is measured twice over the same runtime: through `runtime.list` (what our own server
 * answers `tasks/list` with) and through `RuntimeTaskStore.listTasks`, the SDK `TaskStore`
 * interface, which is the like-for-like comparison with `InMemoryTaskStore.listTasks`. Both stores
 * are filled the same way, through `createTask` + `storeTaskResult`.
 *
 * @module
 */
import { performance } from 'node:perf_hooks';
import { InMemoryTaskStore, type TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import type { Request } from '@modelcontextprotocol/sdk/types.js';
import { RuntimeTaskStore } from '../adapters/mcp-server/index.js';
import { createTaskRuntime, type TaskRuntime } from '../runtime/index.js';
import { median, type Benchmark, type BenchRow } from './lib/report.js';

const SESSION = 'bench-session';
const OWNER = { session: SESSION, principal: null } as const;
/**
 * One hour: our runtime's default maximum keepAlive, and far longer than a run. The SDK store evicts
 * a task `ttl` ms after its last change whatever its status, so the ttl must outlast the timing.
 */
const TTL = 3_600_000;
/** A scan shorter than this is repeated inside one sample, so timer resolution does not dominate. */
const MIN_SAMPLE_MS = 50;
const TARGET_SIZE = 5000;
const TARGET_FACTOR = 20;

/** Fills a store with `n` completed tasks of one session, the way an SDK task tool would. */
async function fill(store: TaskStore, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const request: Request = { method: 'tools/call', params: { name: 'work', arguments: {} } };
    const task = await store.createTask({ ttl: TTL, pollInterval: 1000 }, i, request, SESSION);
    await store.storeTaskResult(task.taskId, 'completed', { content: [{ type: 'text', text: 'ok' }] }, SESSION);
  }
}

/** Runs one full scan and returns how many tasks it saw (checked, so a short scan cannot pass). */
type Scan = () => Promise<number>;

function scanStore(store: TaskStore): Scan {
  return async () => {
    let seen = 0;
    let cursor: string | undefined;
    do {
      const page = await store.listTasks(cursor, SESSION);
      seen += page.tasks.length;
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return seen;
  };
}

function scanRuntime(runtime: TaskRuntime): Scan {
  return async () => {
    let seen = 0;
    let cursor: string | undefined;
    do {
      const page = await runtime.list(OWNER, { cursor });
      seen += page.tasks.length;
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return seen;
  };
}

/** ms per scan: at least one scan, repeated until the sample lasts MIN_SAMPLE_MS. */
async function sample(scan: Scan, n: number): Promise<number> {
  let scans = 0;
  const started = performance.now();
  let elapsed = 0;
  do {
    const seen = await scan();
    if (seen !== n) throw new Error(`listing: a full scan saw ${seen} tasks, expected ${n}`);
    scans++;
    elapsed = performance.now() - started;
  } while (elapsed < MIN_SAMPLE_MS);
  return elapsed / scans;
}

function row(name: string, ours: number, baseline: number, n: number): BenchRow {
  const base = { name, ours, baseline, unit: 'ms/scan', higherIsBetter: false } as const;
  if (n !== TARGET_SIZE) return base;
  return { ...base, target: `≥ ${TARGET_FACTOR}× faster than the SDK at ${TARGET_SIZE}`, met: baseline / ours >= TARGET_FACTOR };
}

/**
 * Times full `tasks/list` scans at several sizes; one table, two rows per size.
 *
 * @example
 * ```ts
 * const [table] = await run({ quick: true });
 * console.log(renderTable(table!));
 * ```
 */
export const run: Benchmark = async ({ quick }) => {
  const sizes = quick ? [1000, 5000] : [1000, 5000, 20_000];
  const rows: BenchRow[] = [];
  const samples: string[] = [];
  for (const [i, n] of sizes.entries()) {
    const runtime = createTaskRuntime();
    const ours = new RuntimeTaskStore(runtime);
    const sdk = new InMemoryTaskStore();
    await fill(ours, n);
    await fill(sdk, n);
    const scans = { list: scanRuntime(runtime), store: scanStore(ours), sdk: scanStore(sdk) };
    // The SDK scan is quadratic; fewer rounds at the largest size (and when quick) keep runs short.
    const rounds = n >= 20_000 || quick ? 3 : 7;
    // One warm-up scan each at the first size (JIT); later sizes run warm, which spares a
    // multi-second SDK scan at 20k. Then the three alternate so drift on a shared machine hits all
    // (a three-way `alternate`: both of our rows share one SDK sample set, each SDK scan being dear).
    if (i === 0) for (const scan of Object.values(scans)) await scan();
    const times = { list: [] as number[], store: [] as number[], sdk: [] as number[] };
    for (let r = 0; r < rounds; r++) {
      times.list.push(await sample(scans.list, n));
      times.store.push(await sample(scans.store, n));
      times.sdk.push(await sample(scans.sdk, n));
    }
    const sdkMs = median(times.sdk);
    const label = n.toLocaleString('en-US');
    rows.push(row(`full scan, ${label} tasks — runtime.list`, median(times.list), sdkMs, n));
    rows.push(row(`full scan, ${label} tasks — RuntimeTaskStore.listTasks`, median(times.store), sdkMs, n));
    samples.push(`${label}: ${rounds}`);
    sdk.cleanup();
    await runtime.dispose();
  }
  return [
    {
      title: 'Listing',
      baselineName: 'SDK InMemoryTaskStore',
      method:
        'One session holding N completed tasks (createTask + storeTaskResult, ttl 1 h) in each store; a full scan follows nextCursor ' +
        'to the end (ours: default page size 20; the SDK: its fixed 10). Median of alternating rounds ' +
        `(${samples.join(', ')}); a scan under ${MIN_SAMPLE_MS} ms is repeated within its sample. The SDK column is the same ` +
        'measurement for both rows of a size.',
      rows,
    },
  ];
};
