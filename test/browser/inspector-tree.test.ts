/**
 * The inspector page's task tree and partial results in real headless Chromium, on the demo
 * server (`serve --http 0 --inspect 0`): a `fan_out` task's `sleep` subtasks listed right under
 * it, their statuses counted on its row and listed in its detail as links (and the subtask's
 * detail linking back), all moving live from working to completed; `long_job`'s partial results
 * appearing in its detail one by one as it runs. With `--inspect-results` the partial results
 * show their text; without it (the default) the page says they are hidden and the API does not
 * carry them. The push deliveries an inspector is given a source of are listed in the detail of
 * their task (an embedded runtime, whose source answers for one task). Screenshots go to
 * `test-artifacts/inspector-tree/`.
 */
import type { Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachInspector, type Inspector, type PushDeliveryView } from '../../adapters/inspector/index.js';
import { createTaskRuntime, type TaskRuntime } from '../../runtime/index.js';
import { PageProbe, launchBrowser, screenshot, type TestBrowser } from '../integration/harness/browser.js';
import { getJson } from '../integration/harness/inspector.js';
import { inspectorSuite } from '../integration/harness/inspector-page.js';
import { create2025 } from '../integration/harness/task-calls.js';

const SHOTS = 'inspector-tree';
const TEST_TIMEOUT_MS = 40_000;
const SUBTASKS = 3;

describe('inspector page: the task tree of fan_out and the partial results of long_job', () => {
  const t = inspectorSuite(['--inspect-results']);
  let parentId = '';
  let parentKey = '';

  it(
    'should list the subtasks of fan_out under it and count them by status, live from working to completed',
    async () => {
      const { page, probe } = t;
      parentId = (await create2025(t.wire, 'fan_out', { count: SUBTASKS, ms: 2_500 })).taskId;
      await probe.see(t.row(parentId), `the fan_out ${parentId} row`);
      parentKey = (await t.row(parentId).getAttribute('data-task-key')) ?? '';
      expect(parentKey, "the fan_out row's data-task-key").not.toBe('');
      const children = page.locator(`table#tasks tbody tr[data-parent-key="${parentKey}"]`);
      const subtasksCell = t.row(parentId).locator('td[data-col="subtasks"]');

      await probe.see(subtasksCell.locator('.count[data-status="working"]', { hasText: `${SUBTASKS} working` }), `the fan_out row to count ${SUBTASKS} working subtasks`);
      await probe.see(subtasksCell.locator('.total', { hasText: String(SUBTASKS) }), `the fan_out row's subtask total to say ${SUBTASKS}`);
      expect(await children.count(), 'rows under the fan_out row (tr[data-parent-key])').toBe(SUBTASKS);
      for (let i = 0; i < SUBTASKS; i++) {
        const child = children.nth(i);
        expect(await child.getAttribute('data-level'), `level of subtask row ${i}`).toBe('1');
        expect(await child.getAttribute('data-status'), `status of subtask row ${i}`).toBe('working');
        expect(await child.locator('td[data-col="label"]').textContent(), `label of subtask row ${i}`).toContain('sleep');
      }
      // Right under their parent: the rows after the fan_out row are its subtasks.
      const order = await page.evaluate((key) => {
        const rows = [...(globalThis as any).document.querySelectorAll('table#tasks tbody tr')] as any[];
        const at = rows.findIndex((r) => r.dataset.taskKey === key);
        return rows.slice(at + 1, at + 1 + 3).map((r) => r.dataset.parentKey ?? null);
      }, parentKey);
      expect(order, 'data-parent-key of the rows after the fan_out row').toEqual(Array(SUBTASKS).fill(parentKey));
      await screenshot(page, SHOTS, '01-fan-out-working');

      await probe.see(subtasksCell.locator('.count[data-status="completed"]', { hasText: `${SUBTASKS} completed` }), `the fan_out row to count ${SUBTASKS} completed subtasks`);
      await probe.see(page.locator(`table#tasks tbody tr[data-task-key="${parentKey}"][data-status="completed"]`), 'the fan_out row to turn completed');
      await probe.see(children.and(page.locator('[data-status="completed"]')).nth(SUBTASKS - 1), `all ${SUBTASKS} subtask rows to turn completed`);
      expect(await subtasksCell.locator('.count[data-status="working"]').count(), 'working subtasks counted once all completed').toBe(0);
      await screenshot(page, SHOTS, '02-fan-out-completed');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "should show fan_out's subtasks with their statuses in its detail, as links, and link a subtask back to it",
    async () => {
      const { page, probe } = t;
      await t.row(parentId).click();
      await probe.see(page.locator('#detail-title', { hasText: parentId }), `#detail-title to show ${parentId}`);
      await probe.see(page.locator('#family'), 'the parent-and-subtasks section (#family)');
      const items = page.locator('ul#children > li');
      await probe.see(items.nth(SUBTASKS - 1), `${SUBTASKS} subtasks in ul#children`);
      expect(await items.count()).toBe(SUBTASKS);
      for (let i = 0; i < SUBTASKS; i++) {
        expect(await items.nth(i).getAttribute('data-status'), `data-status of subtask ${i} in the detail`).toBe('completed');
        await probe.see(items.nth(i).locator('.status', { hasText: 'completed' }), `subtask ${i}'s status to say completed`);
      }
      const childId = (await items.first().getAttribute('data-task-id')) ?? '';
      expect(childId).not.toBe('');

      await items.first().locator('a.task-link').click();
      await probe.see(page.locator('#detail-title', { hasText: childId }), `the link to select the subtask ${childId}`);
      await probe.see(page.locator('table#tasks tbody tr.selected').filter({ has: page.locator('td[data-col="taskId"]', { hasText: childId }) }), 'the subtask row to be selected');
      const back = page.locator('#detail-parent a.task-link', { hasText: parentId });
      await probe.see(back, `the subtask's detail to link its parent ${parentId}`);
      expect(await back.getAttribute('data-task-key')).toBe(parentKey);
      await screenshot(page, SHOTS, '03-subtask-detail');
      await back.click();
      await probe.see(page.locator('#detail-title', { hasText: parentId }), 'the parent link to select fan_out again');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "should show long_job's partial results in its detail as they are published",
    async () => {
      const { page, probe } = t;
      const jobId = (await create2025(t.wire, 'long_job', { seconds: 4 })).taskId;
      await probe.see(t.row(jobId), `the long_job ${jobId} row`);
      await t.row(jobId).click();
      await probe.see(page.locator('#detail-title', { hasText: jobId }), `#detail-title to show ${jobId}`);
      await probe.see(page.locator('ol#partials > li[data-seq="1"]', { hasText: 'step 1/10 done' }), 'the first partial result (li[data-seq="1"]) with its text');
      await probe.see(page.locator('ol#partials > li[data-seq="3"]', { hasText: 'step 3/10 done' }), 'a later partial result to arrive live');
      expect(await t.row(jobId).count(), `rows for the long_job ${jobId}`).toBe(1);
      // It arrived while the job ran: the page showed it live, not with the outcome.
      expect(await t.row(jobId).getAttribute('data-status')).toBe('working');
      await screenshot(page, SHOTS, '04-long-job-partials');
      await probe.see(page.locator('ol#partials > li[data-seq="10"]', { hasText: 'step 10/10 done' }), 'the last partial result');
      expect(await page.locator('ol#partials > li').count()).toBe(10);
      await probe.see(page.locator('ol#timeline > li[data-event="task.partial"]'), 'task.partial entries in the timeline', 'attached');

      expect(t.uncaught(), 'uncaught errors in the page').toEqual([]);
      expect(t.wire.violations, 'protocol violations seen by the MCP client').toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );
});

describe('inspector page without --inspect-results: partial results hidden', () => {
  const t = inspectorSuite([]);

  it(
    "should list long_job's partial results by number and time only, in the page and in the API",
    async () => {
      const { page, probe } = t;
      const jobId = (await create2025(t.wire, 'long_job', { seconds: 1 })).taskId;
      await probe.see(t.row(jobId), `the long_job ${jobId} row`);
      await t.row(jobId).click();
      await probe.see(page.locator('ol#partials > li[data-seq="2"]', { hasText: 'hidden' }), 'the partial results to be listed, their content hidden');
      await probe.see(page.locator(`table#tasks tbody tr[data-status="completed"]`).filter({ hasText: jobId }), 'the long_job to complete');
      const key = (await t.row(jobId).getAttribute('data-task-key')) ?? '';
      const base = new URL(t.server.inspectorUrl);
      const detail = await getJson(new URL(`/api/tasks/${key}`, base).href);
      expect(detail.body.task.partials).toHaveLength(10);
      expect(detail.body.task.partials[0]).toEqual({ seq: 1, at: expect.any(Number) });
      const list = await getJson(new URL('/api/tasks', base).href);
      expect(JSON.stringify([detail.body, list.body]), 'the API with results off').not.toContain('step 1/10 done');
      expect(await page.locator('ol#partials').textContent()).not.toContain('step 1/10 done');
    },
    TEST_TIMEOUT_MS,
  );
});

describe('inspector page: push deliveries from the detail', () => {
  let runtime: TaskRuntime | undefined;
  let inspector: Inspector | undefined;
  let browser: TestBrowser | undefined;
  const owner = { session: 'deliveries', principal: null };
  const attempts: PushDeliveryView[] = [
    { eventId: 'e1', taskId: 'hooked', url: 'https://hooks.example/a', attempt: 1, at: Date.now(), status: 503, error: null, delivered: false, final: false },
    { eventId: 'e1', taskId: 'hooked', url: 'https://hooks.example/a', attempt: 2, at: Date.now(), status: null, error: 'connect ECONNREFUSED', delivered: false, final: false },
    { eventId: 'e1', taskId: 'hooked', url: 'https://hooks.example/a', attempt: 3, at: Date.now(), status: 200, error: null, delivered: true, final: true },
  ];

  beforeAll(async () => {
    runtime = createTaskRuntime();
    runtime.registerHandler('noop', async () => ({ ok: true }));
    inspector = await attachInspector(runtime, { port: 0, pushDeliveries: async ({ taskId }) => (taskId === 'hooked' ? attempts : []) });
    browser = await launchBrowser();
  }, TEST_TIMEOUT_MS);
  afterAll(async () => {
    await browser?.close();
    await inspector?.close();
    await runtime?.dispose();
  });

  it(
    'should list the attempts of a task that has some, and no section for one that has none',
    async () => {
      const page = browser!.page;
      const probe = new PageProbe(page, browser!.pageErrors);
      for (const taskId of ['hooked', 'quiet']) await runtime!.create({ taskId, owner, dialect: '2025-11-25', method: 'tools/call', label: 'noop', handler: 'noop', params: {} });
      await page.goto(inspector!.url);
      const row = (taskId: string): Locator => page.locator('table#tasks tbody tr').filter({ has: page.locator('td[data-col="taskId"]', { hasText: taskId }) });

      await probe.see(row('hooked'), 'the hooked task row');
      await row('hooked').click();
      const rows = page.locator('table#deliveries tbody tr');
      await probe.see(rows.nth(2), 'three delivery attempts in table#deliveries');
      expect(await rows.count()).toBe(3);
      expect(await rows.locator('td[data-col="answer"]').allTextContents()).toEqual(['HTTP 503', 'connect ECONNREFUSED', 'HTTP 200']);
      expect(await rows.locator('td[data-col="attempt"]').allTextContents()).toEqual(['#1', '#2', '#3']);
      // No operator token: a webhook's path (which may hold its receiver's secret) is not shown.
      expect(await rows.locator('td[data-col="url"]').first().textContent()).toBe('https://hooks.example/…');
      expect(await page.locator('table#deliveries tbody tr[data-delivered="true"][data-final="true"]').count()).toBe(1);
      await screenshot(page, SHOTS, '05-push-deliveries');

      await row('quiet').click();
      await probe.see(page.locator('#detail-title', { hasText: 'quiet' }), '#detail-title to show quiet');
      await probe.see(page.locator('#deliveries-box'), 'no push deliveries section for a task without any', 'hidden');
      expect(await rows.count()).toBe(0);
    },
    TEST_TIMEOUT_MS,
  );
});
