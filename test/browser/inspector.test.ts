/**
 * The inspector page in real headless Chromium (Debian's `chromium` driven by `playwright-core`):
 * a `serve --http 0 --inspect 0` server, tasks created through a raw MCP client in the 2025-11-25
 * dialect (`tools/call` with `params.task`), and the page checked as an operator would see it:
 * rows appear live, a cancelled `long_job` turns from working to cancelled without a reload,
 * `ask_name` is highlighted in `input_required` on the machine diagram with its question hidden
 * (results are not shown by this inspector), a `long_job` shows its progress in its row and its
 * detail, the chips count the tasks per status, the status filter and the search box filter the
 * table (on the server: the rows filtered out are not on the page), and no Operator control is
 * offered (no operators). Screenshots go to `test-artifacts/inspector/`.
 *
 * With `INSPECTOR_SCREENSHOT=<path>` (e.g. `docs/inspector.png`) the last test also saves the
 * README's picture of the page there.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PageProbe, launchBrowser, screenshot, type TestBrowser } from '../integration/harness/browser.js';
import { attachInteractiveHttpWire } from '../integration/harness/http-wire.js';
import { spawnInspectorServer, type InspectorServer } from '../integration/harness/inspector-server.js';
import { ok } from '../integration/harness/json.js';
import { REPO_ROOT } from '../integration/harness/process.js';
import { create2025 } from '../integration/harness/task-calls.js';
import type { InteractiveWire } from '../integration/harness/types.js';

const SHOTS = 'inspector';
const STATES = ['submitted', 'working', 'input_required', 'completed', 'failed', 'cancelled', 'unknown'];
const TEST_TIMEOUT_MS = 40_000;

/** The tasks the suite creates, by role. */
interface Tasks {
  /** long_job cancelled by the test. */
  cancelled: string;
  /** long_job left working (the README picture shows its progress). */
  running: string;
  /** sleep that completes at once. */
  completed: string;
  /** fail: a tool error, so the task fails (2025-11-25). */
  failed: string;
  /** ask_name, parked in input_required (nobody answers). */
  asking: string;
}

describe('inspector page in headless Chromium', () => {
  let server: InspectorServer | undefined;
  let browser: TestBrowser | undefined;
  let wire: InteractiveWire | undefined;
  let page: Page;
  let probe: PageProbe;
  const tasks: Partial<Tasks> = {};

  const id = (role: keyof Tasks): string => {
    const taskId = tasks[role];
    if (taskId === undefined) throw new Error(`the ${role} task was not created (an earlier test failed)`);
    return taskId;
  };
  const rows = (): Locator => page.locator('table#tasks tbody tr');
  /** The row whose taskId cell shows `taskId`. */
  const row = (taskId: string): Locator => rows().filter({ has: page.locator('td[data-col="taskId"]', { hasText: taskId }) });
  const rowIn = (taskId: string, status: string): Locator =>
    page.locator(`table#tasks tbody tr[data-status="${status}"]`).filter({ has: page.locator('td[data-col="taskId"]', { hasText: taskId }) });
  const current = (state: string): Locator => page.locator(`#diagram svg g[data-state="task.${state}"].current`);

  /** Waits until exactly one diagram state is `current` and it is `state`. */
  const onlyCurrent = (state: string): Promise<void> =>
    probe.until(
      `the diagram to highlight only task.${state} (g[data-state="task.${state}"].current)`,
      ({ wanted, states }: { wanted: string; states: string[] }) => {
        // Only the lifecycle states count: a handler machine's own diagram may highlight its states too.
        const marked = states.filter((s) => (globalThis as any).document.querySelector(`#diagram svg g[data-state="${s}"].current`) !== null);
        return marked.length === 1 && marked[0] === wanted;
      },
      { wanted: `task.${state}`, states: STATES.map((s) => `task.${s}`) },
    );

  /** Waits until the visible rows are exactly those whose taskId cell shows one of `taskIds`. */
  const visibleRowsAre = (what: string, taskIds: string[]): Promise<void> =>
    probe.until(
      what,
      (wanted: string[]) => {
        const all = [...(globalThis as any).document.querySelectorAll('table#tasks tbody tr')];
        const shown = all.filter((r: any) => !r.hidden && r.checkVisibility());
        const idOf = (r: any): string => r.querySelector('td[data-col="taskId"]')?.textContent?.trim() ?? '';
        return shown.length === wanted.length && shown.every((r: any) => wanted.some((w) => idOf(r).includes(w)));
      },
      taskIds,
    );

  beforeAll(async () => {
    server = await spawnInspectorServer();
    browser = await launchBrowser();
    page = browser.page;
    probe = new PageProbe(page, browser.pageErrors);
    wire = await attachInteractiveHttpWire(server.url, () => server?.stderr() ?? '');
  }, TEST_TIMEOUT_MS);

  afterAll(async () => {
    await wire?.close();
    await browser?.close();
    await server?.close();
  });

  it(
    'should connect live and list the tasks created through MCP after the page loaded',
    async () => {
      await page.goto(server!.inspectorUrl);
      await probe.see(page.locator('#live[data-connected="true"]'), 'the live stream to connect (#live[data-connected="true"])', 'attached');
      await probe.see(page.locator('table#tasks'), 'the task table (table#tasks)');

      const w = wire!;
      tasks.cancelled = (await create2025(w, 'long_job', { seconds: 60 })).taskId;
      tasks.running = (await create2025(w, 'long_job', { seconds: 40 })).taskId;
      tasks.completed = (await create2025(w, 'sleep', { ms: 10 })).taskId;
      tasks.failed = (await create2025(w, 'fail', { message: 'the disk is full' })).taskId;
      tasks.asking = (await create2025(w, 'ask_name', {})).taskId;

      const expected: [keyof Tasks, string, string][] = [
        ['cancelled', 'long_job', 'working'],
        ['running', 'long_job', 'working'],
        ['completed', 'sleep', 'completed'],
        ['failed', 'fail', 'failed'],
        ['asking', 'ask_name', 'input_required'],
      ];
      for (const [role, tool, status] of expected) {
        const taskId = id(role);
        await probe.see(rowIn(taskId, status), `a ${status} row for the ${tool} task ${taskId} (tr[data-status="${status}"])`);
        await probe.see(row(taskId).locator('td[data-col="label"]', { hasText: tool }), `the ${tool} row's label cell to name the tool`);
        await probe.see(row(taskId).locator('td[data-col="dialect"]', { hasText: '2025-11-25' }), `the ${tool} row's dialect cell to say 2025-11-25`);
        await probe.see(row(taskId).locator('td[data-col="status"]', { hasText: status }), `the ${tool} row's status cell to say ${status}`);
        expect(await row(taskId).count(), `rows for task ${taskId}`).toBe(1);
        const key = await row(taskId).getAttribute('data-task-key');
        expect(key, `data-task-key of task ${taskId}'s row`).toBeTruthy();
      }
      // long_job reports progress as each of its 10 steps begins: the first at once.
      for (const role of ['cancelled', 'running'] as const) {
        await probe.see(row(id(role)).locator('td[data-col="progress"]', { hasText: '1/10' }), `the long_job row's progress cell to say 1/10`);
      }
      expect(await row(id('completed')).locator('td[data-col="progress"]').textContent(), 'the progress cell of a task that reported none').toBe('');
      for (const [status, count] of [['working', 2], ['completed', 1], ['failed', 1], ['input_required', 1], ['cancelled', 0]] as const) {
        await probe.see(page.locator(`#status-counts [data-status="${status}"] .n`, { hasText: new RegExp(`^${count}$`) }), `the ${status} chip to count ${count}`);
      }
      await probe.see(page.locator('#page-info', { hasText: '1–5 of 5' }), '#page-info to say 1–5 of 5');
      await probe.see(page.locator('#operator'), 'no Operator control on an inspector without operators', 'hidden');
      await screenshot(page, SHOTS, '01-listed');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'should move a long_job from working to cancelled on screen without a reload',
    async () => {
      const taskId = id('cancelled');
      await probe.see(rowIn(taskId, 'working'), `the long_job ${taskId} row to show working`);
      await page.evaluate(() => {
        (globalThis as any).__marker = 1;
      });

      await row(taskId).click();
      await probe.see(page.locator('table#tasks tbody tr.selected').filter({ has: page.locator('td[data-col="taskId"]', { hasText: taskId }) }), `the long_job row to be selected (tr.selected)`);
      await probe.see(page.locator('#detail-title', { hasText: taskId }), `#detail-title to show ${taskId}`);
      await onlyCurrent('working');
      await probe.see(page.locator('#detail-meta dd', { hasText: /^1\/10$/ }), 'the detail to show the progress 1/10 (#detail-meta)');
      await probe.see(page.locator('#outcome', { hasText: 'progress 1/10' }), 'the not-ended outcome to say the progress');
      await screenshot(page, SHOTS, '02-long-job-working');

      ok(await wire!.request('tasks/cancel', { taskId }));

      await probe.see(rowIn(taskId, 'cancelled'), `the long_job ${taskId} row to turn cancelled after tasks/cancel`);
      await probe.see(row(taskId).locator('td[data-col="status"]', { hasText: 'cancelled' }), `the long_job row's status cell to say cancelled`);
      await onlyCurrent('cancelled');
      await probe.see(page.locator('ol#timeline > li[data-status="cancelled"][data-event]'), 'a cancelled entry in the timeline (ol#timeline > li[data-status="cancelled"])', 'attached');
      await probe.see(page.locator('#outcome', { hasText: 'cancelled' }), "the outcome to say the task was cancelled");
      expect(await page.evaluate(() => (globalThis as any).__marker), 'window.__marker set before the cancel (gone = the page reloaded)').toBe(1);
      await screenshot(page, SHOTS, '03-long-job-cancelled');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'should highlight input_required on the diagram for ask_name',
    async () => {
      const taskId = id('asking');
      await probe.see(rowIn(taskId, 'input_required'), `the ask_name ${taskId} row to show input_required`);
      await row(taskId).click();
      await probe.see(page.locator('table#tasks tbody tr.selected').filter({ has: page.locator('td[data-col="taskId"]', { hasText: taskId }) }), 'the ask_name row to be selected (tr.selected)');
      await probe.see(page.locator('#detail-title', { hasText: taskId }), `#detail-title to show ${taskId}`);
      for (const state of STATES) {
        await probe.see(page.locator(`#diagram svg g[data-state="task.${state}"]`), `the diagram to draw state task.${state}`, 'attached');
      }
      await probe.see(current('input_required'), 'g[data-state="task.input_required"].current in #diagram');
      await onlyCurrent('input_required');
      await probe.see(page.locator('ol#timeline > li[data-status="input_required"][data-event]'), 'an input_required entry in the timeline (ol#timeline > li[data-status="input_required"])', 'attached');
      const input = page.locator('ul#inputs > li[data-kind="elicitation"]');
      await probe.see(input.locator('.redacted', { hasText: 'hidden: start the inspector with --inspect-results to show it' }), 'the question listed, its content hidden (#inputs .redacted)');
      expect(await page.locator('#inputs').textContent(), 'the question text without --inspect-results').not.toContain('What is your name?');
      await screenshot(page, SHOTS, '04-ask-name-input-required');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'should show the error of a failed task as its outcome',
    async () => {
      const taskId = id('failed');
      await row(taskId).click();
      await probe.see(page.locator('#detail-title', { hasText: taskId }), `#detail-title to show ${taskId}`);
      await onlyCurrent('failed');
      await probe.see(page.locator('#outcome', { hasText: 'the disk is full' }), "the failed task's outcome to carry its error (the disk is full)");
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'should filter rows by status and by a searched task id',
    async () => {
      const all = (['cancelled', 'running', 'completed', 'failed', 'asking'] as const).map(id);

      await page.locator('select#status-filter').selectOption('cancelled');
      await visibleRowsAre('only the cancelled long_job to stay visible with the status filter on cancelled', [id('cancelled')]);
      expect(await rows().count(), 'rows on the page with the filter on cancelled (the server filters)').toBe(1);
      await screenshot(page, SHOTS, '05-filter-cancelled');

      await page.locator('select#status-filter').selectOption('working');
      await visibleRowsAre('only the running long_job to stay visible with the status filter on working', [id('running')]);

      await page.locator('select#status-filter').selectOption('');
      await visibleRowsAre('every task to be visible again with the status filter on all', all);

      await page.locator('input#search').fill(id('asking'));
      await visibleRowsAre(`only the ask_name task to stay visible when searching its id ${id('asking')}`, [id('asking')]);
      await screenshot(page, SHOTS, '06-search-task-id');

      await page.locator('input#search').fill('');
      await visibleRowsAre('every task to be visible again with an empty search', all);

      const uncaught = browser!.pageErrors.filter((e) => e.startsWith('pageerror:'));
      expect(uncaught, 'uncaught errors in the page').toEqual([]);
      expect(wire!.violations, 'protocol violations seen by the MCP client').toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'should show a working long_job with its handler machine beside tasks in other states (README picture)',
    async () => {
      const taskId = id('running');
      await page.locator('select#status-filter').selectOption('');
      await page.locator('input#search').fill('');
      await row(taskId).click();
      await probe.see(rowIn(taskId, 'working'), 'the running long_job row to still show working');
      await probe.see(page.locator('#detail-title', { hasText: taskId }), `#detail-title to show ${taskId}`);
      await onlyCurrent('working');
      await probe.see(page.locator('#handler-diagram svg g[data-state].current'), "the long_job handler machine's diagram with its current state");
      await screenshot(page, SHOTS, '07-overview');
      const target = process.env['INSPECTOR_SCREENSHOT'];
      if (target !== undefined && target !== '') {
        const file = path.resolve(REPO_ROOT, target);
        await mkdir(path.dirname(file), { recursive: true });
        await page.screenshot({ path: file, fullPage: true });
        console.log(`README screenshot: ${file}`);
      }
    },
    TEST_TIMEOUT_MS,
  );
});
