/**
 * The inspector page's task detail in real headless Chromium, on the demo server with
 * `--inspect-results` (memory backend): a `long_job` shows its own machine (the handler's) with
 * the highlighted state and step advancing live and its `task.handler` timeline entries; clicking
 * a timeline entry shows both diagrams as they were then (and live updates do not move them) until
 * Back to live; `ask_name` shows the question it asks; `/tasks/<taskId>` opens a task after a
 * reload, the URL follows the selection and the filters, back/forward work, and an unknown id
 * says so; an anonymous task, whose id the page sees shortened, is linked with its key. Pictures: `docShot` (see `inspector-page.ts`).
 */
import { describe, expect, it } from 'vitest';
import { docShot, inspectorSuite, onlyCurrent } from '../integration/harness/inspector-page.js';
import { extWire } from '../integration/harness/ext-wire.js';
import { create2025 } from '../integration/harness/task-calls.js';

const TEST_TIMEOUT_MS = 60_000;

describe('inspector page: the handler machine, live and stepped through its history', () => {
  const t = inspectorSuite(['--inspect-results']);
  let jobId = '';

  it(
    'should show a long_job with its own machine, the step advancing live, and its handler entries in the timeline',
    async () => {
      const { page, probe } = t;
      // 8 s of 10 steps: on a loaded CI machine the page's first probes took over 4 s, and a 4 s
      // job had completed before an early step could be seen.
      jobId = (await create2025(t.wire, 'long_job', { seconds: 8 })).taskId;
      await probe.see(t.row(jobId), `the long_job ${jobId} row`);
      await t.row(jobId).click();
      await probe.see(page.locator('#detail-title', { hasText: jobId }), `#detail-title to show ${jobId}`);
      await probe.see(page.locator('#handler-figure'), 'the handler machine figure (#handler-figure)');
      await probe.see(page.locator('#handler-name', { hasText: 'long_job' }), 'the caption to name the machine long_job');
      await onlyCurrent(probe, '#handler-diagram', ['long_job.working'], "the handler machine's working state highlighted");
      await onlyCurrent(probe, '#diagram', ['task.working'], 'the lifecycle at working');
      await probe.see(page.locator('#handler-step', { hasText: /^step [1-7]\b/ }), 'a step before the eighth in the caption');
      const early = Number(/step (\d+)/.exec((await page.locator('#handler-step').textContent()) ?? '')?.[1]);
      // Up to 11: the done state keeps the step count one past the last step.
      const later = Array.from({ length: 11 - early - 1 }, (_, i) => early + 2 + i).join('|');
      await probe.see(page.locator('#handler-step', { hasText: new RegExp(`^step (${later})\\b`) }), `the caption's step to advance past ${early + 1} live`);
      await probe.see(page.locator('ol#timeline > li[data-event="task.handler"] .handler-states', { hasText: 'long_job.working' }), 'task.handler entries with their states in the timeline', 'attached');
      await docShot(page, 'detail-handler', '#detail');

      await onlyCurrent(probe, '#handler-diagram', ['long_job.done'], 'the handler machine at done once the job completed');
      await onlyCurrent(probe, '#diagram', ['task.completed'], 'the lifecycle at completed');
      await probe.see(page.locator('#handler-status', { hasText: 'done' }), 'the caption to say done');
      expect(t.uncaught(), 'uncaught errors in the page').toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'should show both diagrams as at a clicked timeline entry, step with the arrow keys, and return to live',
    async () => {
      const { page, probe } = t;
      const handlerEntries = page.locator('ol#timeline > li[data-event="task.handler"]');
      await probe.see(handlerEntries.nth(1), 'at least two task.handler entries');
      const first = handlerEntries.first();
      const index = Number(await first.getAttribute('data-index'));
      await first.click();
      await probe.see(page.locator('#detail[data-mode="history"]'), '#detail[data-mode="history"] after clicking an entry', 'attached');
      await probe.see(page.locator(`ol#timeline > li.stepped[data-index="${index}"]`), 'the clicked entry marked stepped');
      await onlyCurrent(probe, '#diagram', ['task.working'], 'the lifecycle as at the first handler entry (working)');
      await onlyCurrent(probe, '#handler-diagram', ['long_job.working'], 'the handler machine as at its first entry (working, not done)');
      await probe.see(page.locator('#history-at dd[data-field="status"]', { hasText: 'working' }), '#history-at to give the status then');
      await probe.see(page.locator('#history-at dd[data-field="handler"]', { hasText: 'step 1' }), '#history-at to give the handler step then');
      await probe.see(page.locator('#handler-step', { hasText: /^step 1\b/ }), 'the caption to give the step then');
      await docShot(page, 'history-step', '#history-at');

      await page.keyboard.press('ArrowRight');
      await probe.see(page.locator(`ol#timeline > li.stepped[data-index="${index + 1}"]`), '→ to step to the next entry');
      await page.keyboard.press('ArrowLeft');
      await probe.see(page.locator(`ol#timeline > li.stepped[data-index="${index}"]`), '← to step back');

      // The entry before any handler state: no state of the handler machine yet.
      await page.locator('ol#timeline > li[data-index="0"]').click();
      await onlyCurrent(probe, '#handler-diagram', [], 'no handler state as at the creation');
      await probe.see(page.locator('#history-at dd[data-field="handler"]', { hasText: '—' }), '#history-at without a handler state');

      await page.locator('#back-to-live').click();
      await probe.see(page.locator('#detail[data-mode="live"]'), '#detail[data-mode="live"] after Back to live', 'attached');
      await probe.see(page.locator('#history-at'), '#history-at hidden live', 'hidden');
      await onlyCurrent(probe, '#diagram', ['task.completed'], 'the lifecycle live again (completed)');
      await onlyCurrent(probe, '#handler-diagram', ['long_job.done'], 'the handler machine live again (done)');
      expect(await page.locator('ol#timeline > li.stepped').count(), 'stepped entries once live').toBe(0);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'should keep the stepped diagrams while live entries arrive',
    async () => {
      const { page, probe } = t;
      const id = (await create2025(t.wire, 'long_job', { seconds: 5 })).taskId;
      await t.row(id).click();
      await probe.see(page.locator('#detail-title', { hasText: id }), `#detail-title to show ${id}`);
      await probe.see(page.locator('ol#timeline > li[data-event="task.handler"]'), 'a first task.handler entry', 'attached');
      await page.locator('ol#timeline > li[data-index="0"]').click();
      await onlyCurrent(probe, '#handler-diagram', [], 'no handler state as at the creation');
      const count = await page.locator('ol#timeline > li').count();
      await probe.see(page.locator(`ol#timeline > li[data-index="${count + 1}"]`), 'two more live entries to arrive while stepped', 'attached');
      await onlyCurrent(probe, '#handler-diagram', [], 'the handler diagram still as at the creation');
      expect(await page.locator('#detail').getAttribute('data-mode')).toBe('history');
      expect(await page.locator('ol#timeline > li.stepped').getAttribute('data-index')).toBe('0');
      await page.locator('#back-to-live').click();
      await onlyCurrent(probe, '#handler-diagram', ['long_job.working'], 'the live state once back');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'should show the question an ask_name task waits on',
    async () => {
      const { page, probe } = t;
      const id = (await create2025(t.wire, 'ask_name', {})).taskId;
      await probe.see(page.locator('table#tasks tbody tr[data-status="input_required"]').filter({ hasText: id }), `the ask_name ${id} row in input_required`);
      await t.row(id).click();
      const input = page.locator('ul#inputs > li[data-kind="elicitation"]');
      await probe.see(input.locator('.question', { hasText: 'What is your name?' }), 'the elicitation message in #inputs');
      await probe.see(input.locator('.schema-fields li[data-field="name"] .type', { hasText: 'string' }), 'the requested field name, a string');
      await probe.see(input.locator('.schema-fields li[data-field="name"] .required', { hasText: 'required' }), 'the field name marked required');
      expect(await input.locator('details.raw pre').textContent(), 'the raw schema').toContain('"required"');
      expect(await input.getAttribute('data-input-id')).toBeTruthy();
      await docShot(page, 'question');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'should open /tasks/<taskId> after a reload, follow the selection in the URL, go back and forward, and keep the filters',
    async () => {
      const { page, probe } = t;
      const other = (await create2025(t.wire, 'sleep', { ms: 10 })).taskId;
      await probe.see(t.row(other), `the sleep ${other} row`);

      await t.row(jobId).click();
      await probe.see(page.locator('#detail-title', { hasText: jobId }), `#detail-title to show ${jobId}`);
      expect(new URL(page.url()).pathname, 'the URL after selecting the long_job').toBe(`/tasks/${jobId}`);
      await page.reload();
      await probe.see(page.locator('#detail-title', { hasText: jobId }), `the reloaded /tasks/${jobId} to open its detail`);
      await onlyCurrent(probe, '#handler-diagram', ['long_job.done'], 'the reloaded detail to draw the handler machine');

      await t.row(other).click();
      await probe.see(page.locator('#detail-title', { hasText: other }), `#detail-title to show ${other}`);
      expect(new URL(page.url()).pathname).toBe(`/tasks/${other}`);
      await page.goBack();
      await probe.see(page.locator('#detail-title', { hasText: jobId }), 'back to reselect the long_job');
      await probe.see(t.row(jobId).and(page.locator('.selected')), 'its row selected again');
      await page.goForward();
      await probe.see(page.locator('#detail-title', { hasText: other }), 'forward to reselect the sleep task');

      await page.locator('#close-detail').click();
      await probe.see(page.locator('#detail'), 'the detail closed', 'hidden');
      expect(new URL(page.url()).pathname).toBe('/');
      await page.goBack();
      await probe.see(page.locator('#detail-title', { hasText: other }), 'back to reopen the closed detail');

      await page.locator('select#status-filter').selectOption('completed');
      await probe.until('the status filter in the URL', () => new URL((globalThis as any).location.href).searchParams.get('status') === 'completed', null);
      await page.reload();
      await probe.see(page.locator('#detail-title', { hasText: other }), 'the reloaded link to open the task again');
      expect(await page.locator('select#status-filter').inputValue(), 'the status filter after the reload').toBe('completed');
      await probe.see(page.locator('#status-counts [data-status="completed"][aria-pressed="true"]'), 'the completed chip pressed');
      expect(await page.locator('table#tasks tbody tr:not([data-status="completed"])').count(), 'rows of another status').toBe(0);

      await page.goto(`${t.base}/tasks/no-such-task`);
      await probe.see(page.locator('#notice', { hasText: 'No task with the id no-such-task' }), 'an unknown id to say so (#notice)');
      await probe.see(page.locator('#detail'), 'no detail for an unknown id', 'hidden');
      expect(t.uncaught(), 'uncaught errors in the page').toEqual([]);
      expect(t.wire.violations, 'protocol violations seen by the MCP client').toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "should link an anonymous task, whose id the page sees shortened, with its key, and open that link after a reload",
    async () => {
      const { page, probe } = t;
      const bearerId = String((await extWire(t.server.url).call('sleep', { ms: 60_000 }))['taskId']);
      const shown = `${bearerId.slice(0, 8)}…`;
      await page.goto(t.server.inspectorUrl);
      await probe.see(t.row(shown), `the anonymous task's row, its id shortened (${shown})`);
      await t.row(shown).click();
      await probe.see(page.locator('#detail-title', { hasText: shown }), `#detail-title to show ${shown}`);
      const link = new URL(page.url());
      expect(decodeURIComponent(link.pathname)).toBe(`/tasks/${shown}`);
      const key = await t.row(shown).getAttribute('data-task-key');
      expect(link.searchParams.get('key'), 'the link names the task by its key').toBe(key);
      expect(page.url()).not.toContain(bearerId);
      await page.reload();
      await probe.see(page.locator('#detail-title', { hasText: shown }), 'the reloaded link to open the anonymous task');
      await probe.see(page.locator('#notice'), 'no notice', 'hidden');
      expect(t.uncaught(), 'uncaught errors in the page').toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );
});
