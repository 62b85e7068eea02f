/**
 * The inspector page's list at scale in real headless Chromium, on the demo server: 250 tasks
 * (200 completed, 50 failed) shown one server page of 100 at a time, with Newer/Older, the counts
 * per status on chips that filter when clicked, a new task joining the first page live while the
 * page keeps at most its size of rows, and the filters kept in the URL. Pictures: `docShot`.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { docShot, inspectorSuite } from '../integration/harness/inspector-page.js';
import { create2025 } from '../integration/harness/task-calls.js';

const TEST_TIMEOUT_MS = 90_000;
const COMPLETED = 200;
const FAILED = 50;
const TOTAL = COMPLETED + FAILED;
const PAGE = 100;
const UNLIMITED = ['--max-creates-per-second', 'off', '--max-running-tasks', 'off', '--max-retained-tasks', 'off'];

const rowCount = (page: Page): Promise<number> => page.locator('table#tasks tbody tr').count();

describe('inspector page: 250 tasks, paged by the server', () => {
  const t = inspectorSuite(UNLIMITED, 60_000);

  it(
    'should show one page of 100 with the counts per status, and page through them',
    async () => {
      const { page, probe } = t;
      const created: Promise<unknown>[] = [];
      for (let i = 0; i < TOTAL; i++) {
        created.push(i % 5 === 4 ? create2025(t.wire, 'fail', { message: `failure ${i}` }) : create2025(t.wire, 'sleep', { ms: 0 }));
        if (created.length % 25 === 0) await Promise.all(created.splice(0));
      }
      await Promise.all(created);
      const info = page.locator('#page-info');
      await probe.see(page.locator('#status-counts [data-status="completed"] .n', { hasText: String(COMPLETED) }), `the completed chip to count ${COMPLETED}`);
      await probe.see(page.locator('#status-counts [data-status="failed"] .n', { hasText: String(FAILED) }), `the failed chip to count ${FAILED}`);
      await probe.see(info.filter({ hasText: `1–${PAGE} of ${TOTAL}` }), `#page-info to say 1–${PAGE} of ${TOTAL}`);
      expect(await rowCount(page), 'rows of the first page').toBe(PAGE);
      expect(await page.locator('#page-newer').isDisabled(), 'Newer on the first page').toBe(true);
      await docShot(page, 'list');

      const firstTop = await page.locator('table#tasks tbody tr').first().getAttribute('data-task-key');
      await page.locator('#page-older').click();
      await probe.see(info.filter({ hasText: `101–200 of ${TOTAL}` }), '#page-info on the second page');
      expect(await rowCount(page), 'rows of the second page').toBe(PAGE);
      await page.locator('#page-older').click();
      await probe.see(info.filter({ hasText: `201–${TOTAL} of ${TOTAL}` }), '#page-info on the last page');
      expect(await rowCount(page), 'rows of the last page').toBe(TOTAL - 2 * PAGE);
      expect(await page.locator('#page-older').isDisabled(), 'Older on the last page').toBe(true);
      await page.locator('#page-newer').click();
      await page.locator('#page-newer').click();
      await probe.see(info.filter({ hasText: `1–${PAGE} of ${TOTAL}` }), 'back on the first page');
      expect(await page.locator('table#tasks tbody tr').first().getAttribute('data-task-key'), 'the newest task on top again').toBe(firstTop);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'should filter by a clicked status chip, in the URL too',
    async () => {
      const { page, probe } = t;
      await page.locator('#status-counts [data-status="failed"]').click();
      await probe.see(page.locator('#page-info', { hasText: `1–${FAILED} of ${FAILED}` }), `#page-info to say 1–${FAILED} of ${FAILED}`);
      expect(await rowCount(page)).toBe(FAILED);
      expect(await page.locator('table#tasks tbody tr:not([data-status="failed"])').count(), 'rows of another status').toBe(0);
      expect(await page.locator('select#status-filter').inputValue()).toBe('failed');
      expect(new URL(page.url()).searchParams.get('status')).toBe('failed');
      // Counts are over every filter but the status: the other chips keep theirs.
      expect(await page.locator('#status-counts [data-status="completed"] .n').textContent()).toBe(String(COMPLETED));
      await page.locator('#status-counts [data-status="failed"]').click();
      await probe.see(page.locator('#page-info', { hasText: `of ${TOTAL}` }), 'the filter cleared by clicking the chip again');
      expect(new URL(page.url()).searchParams.get('status')).toBeNull();
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'should take a new task onto the first page live, keeping at most a page of rows',
    async () => {
      const { page, probe } = t;
      await page.locator('#filter-label').fill('sleep');
      await probe.see(page.locator('#page-info', { hasText: `1–${PAGE} of ${COMPLETED}` }), 'the tool filter on sleep');
      expect(new URL(page.url()).searchParams.get('label')).toBe('sleep');
      // The stream is ordered: once the sleep created after it shows, the fail task was seen and left out.
      const failing = (await create2025(t.wire, 'fail', { message: 'not a sleep' })).taskId;
      const id = (await create2025(t.wire, 'sleep', { ms: 0 })).taskId;
      await probe.see(page.locator('table#tasks tbody tr').first().filter({ hasText: id }), 'the new sleep task on top of the first page');
      await probe.see(page.locator('#page-info', { hasText: `1–${PAGE} of ${COMPLETED + 1}` }), 'the total to count it');
      expect(await rowCount(page), 'rows once it joined').toBe(PAGE);
      expect(await page.locator('table#tasks tbody tr').filter({ hasText: failing }).count(), 'a task the filters leave out').toBe(0);
      // Older reads the first page's boundary afresh: no task is skipped or shown twice.
      await page.locator('#page-older').click();
      await probe.see(page.locator('#page-info', { hasText: `101–200 of ${COMPLETED + 1}` }), 'the second page after a live insert');
      await page.locator('#page-older').click();
      await probe.see(page.locator('#page-info', { hasText: `201–201 of ${COMPLETED + 1}` }), 'the last page holds the one task pushed off');
      expect(t.uncaught(), 'uncaught errors in the page').toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );
});
