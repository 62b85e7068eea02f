/**
 * "Inspector page": how long the inspector's task list takes to show its first page in headless
 * Chromium (Debian's `chromium`, driven by `playwright-core`) with 10,000 tasks retained, beside
 * the same page over 100 tasks: a page that renders only what it shows costs about the same at
 * both sizes, one that renders every task does not.
 *
 * Each load is a fresh navigation to the page, timed from the request until the table holds its
 * first page of rows (`table#tasks tbody tr`, as many as a page holds or as there are tasks).
 *
 * @module
 */
import { performance } from 'node:perf_hooks';
import { chromium, type Browser, type Page } from 'playwright-core';
import { attachInspector } from '../adapters/inspector/attach-inspector.js';
import { createTaskRuntime, type TaskHandler, type TaskRuntime } from '../runtime/index.js';
import { CHROMIUM_FLAGS, resolveChromium } from '../test/integration/harness/browser.js';
import { median, type Benchmark, type BenchRow } from './lib/report.js';

const TARGET_TASKS = 10_000;
const TARGET_MS = 1_000;
/** Rows the first page holds (the inspector's default page size). */
const PAGE_ROWS = 100;
/** Tasks per requester: well under the default retention limit per requester (10,000). */
const PER_OWNER = 1_000;
const KEEP_ALIVE = 3_600_000;

const done: TaskHandler = async () => ({ content: [{ type: 'text', text: 'ok' }] });
const failing: TaskHandler = async () => {
  throw new Error('bench: a failed task');
};
/** Never settles by itself: the task stays `working` until the runtime is disposed. */
const forever: TaskHandler = (_params, ctx) => new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('disposed'))));

/** Fills a runtime with `n` tasks over several requesters and tools: mostly completed, some failed, some working. */
async function fill(runtime: TaskRuntime, n: number): Promise<void> {
  const created: Promise<unknown>[] = [];
  for (let i = 0; i < n; i++) {
    const owner = { session: `bench-session-${Math.floor(i / PER_OWNER)}`, principal: null };
    const handler = i % 50 === 0 ? 'forever' : i % 17 === 0 ? 'failing' : 'done';
    created.push(runtime.create({ taskId: `task-${i}`, owner, dialect: '2025-11-25', method: 'tools/call', label: i % 3 === 0 ? 'long_job' : 'sleep', keepAlive: KEEP_ALIVE, handler, params: {} }));
    // In batches: a promise per task for 10,000 tasks at once would measure the filling, not the page.
    if (created.length >= 500) await Promise.all(created.splice(0));
  }
  await Promise.all(created);
}

/** ms from navigation until the table shows its first page. */
async function load(page: Page, url: string, rows: number): Promise<number> {
  const started = performance.now();
  await page.goto(url, { waitUntil: 'commit' });
  await page.waitForFunction((wanted) => (globalThis as unknown as { document: { querySelectorAll(s: string): { length: number } } }).document.querySelectorAll('table#tasks tbody tr').length >= wanted, rows, {
    timeout: 60_000,
    polling: 'raf',
  });
  return performance.now() - started;
}

/** Median first-page time over `rounds` fresh loads of an inspector over `n` tasks. */
async function measure(browser: Browser, n: number, rounds: number): Promise<number> {
  const runtime = createTaskRuntime();
  runtime.registerHandler('done', done);
  runtime.registerHandler('failing', failing);
  runtime.registerHandler('forever', forever);
  // Opened before the tasks are made, as `serve --inspect` does: every task's timeline is kept.
  const inspector = await attachInspector(runtime, { port: 0 });
  try {
    await fill(runtime, n);
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const rows = Math.min(PAGE_ROWS, n);
    await load(page, inspector.url, rows); // warm-up: the browser's caches, the server's JIT
    const times: number[] = [];
    for (let r = 0; r < rounds; r++) times.push(await load(page, inspector.url, rows));
    await page.close();
    return median(times);
  } finally {
    await inspector.close();
    await runtime.dispose();
  }
}

/**
 * Times the inspector's first page at 10,000 tasks against 100.
 *
 * @example
 * ```ts
 * const [table] = await run({ quick: true });
 * console.log(renderTable(table!));
 * ```
 */
export const run: Benchmark = async ({ quick }) => {
  const rounds = quick ? 3 : 7;
  const browser = await chromium.launch({ executablePath: resolveChromium(), headless: true, args: [...CHROMIUM_FLAGS] });
  try {
    const small = await measure(browser, PAGE_ROWS, rounds);
    const large = await measure(browser, TARGET_TASKS, rounds);
    const row: BenchRow = {
      name: `first page of the task list, ${TARGET_TASKS.toLocaleString('en-US')} tasks retained`,
      ours: large,
      baseline: small,
      unit: 'ms',
      higherIsBetter: false,
      target: `< ${TARGET_MS.toLocaleString('en-US')} ms`,
      met: large < TARGET_MS,
    };
    return [
      {
        title: 'Inspector page',
        baselineName: `the same page, ${PAGE_ROWS} tasks`,
        method:
          `A memory runtime with N tasks (${PER_OWNER.toLocaleString('en-US')} per requester; mostly completed, 1 in 17 failed, 1 in 50 working) and attachInspector; ` +
          `headless Chromium loads the page afresh, timed from navigation until the table holds its first ${PAGE_ROWS} rows. ` +
          `Median of ${rounds} loads after one warm-up.`,
        rows: [row],
      },
    ];
  } finally {
    await browser.close();
  }
};
