/**
 * The inspector page's operator actions and cluster view in real headless Chromium, on the demo
 * server with `--inspect-operator <token>=alice`: signing in with the operator token shows the
 * operator's name and a Cancel button on a live task; confirming it cancels the task through the
 * runtime (its requester sees `cancelled` through its own MCP client) and the server's stderr
 * carries the audit line naming alice. Without the token (signed out, or a wrong one) no action is
 * offered and the API refuses one; an inspector without operators offers no Operator control at
 * all. The cluster view lists the node. Pictures: `docShot` (see `inspector-page.ts`).
 */
import { describe, expect, it } from 'vitest';
import { docShot, inspectorSuite } from '../integration/harness/inspector-page.js';
import { getTask, create2025, statusOf } from '../integration/harness/task-calls.js';

const TEST_TIMEOUT_MS = 40_000;
const OPERATOR_TOKEN = 'op-secret-7f3a91c2';

describe('inspector page: an operator cancels a task', () => {
  const t = inspectorSuite(['--inspect-operator', `${OPERATOR_TOKEN}=alice`]);
  let jobId = '';
  let jobKey = '';

  it(
    'should offer no action before signing in, and refuse one without the operator token',
    async () => {
      const { page, probe } = t;
      jobId = (await create2025(t.wire, 'long_job', { seconds: 60 })).taskId;
      await probe.see(t.row(jobId), `the long_job ${jobId} row`);
      jobKey = (await t.row(jobId).getAttribute('data-task-key')) ?? '';
      await t.row(jobId).click();
      await probe.see(page.locator('#detail-title', { hasText: jobId }), `#detail-title to show ${jobId}`);
      await probe.see(page.locator('#operator-token'), 'the Operator control (#operator-token) on an inspector with operators');
      expect(await page.locator('#cancel-task').count(), 'Cancel buttons before signing in').toBe(0);
      await probe.see(page.locator('#actions'), 'no action box before signing in', 'hidden');

      const cancelUrl = `${t.base}/api/tasks/${encodeURIComponent(jobKey)}/cancel`;
      const anonymous = await fetch(cancelUrl, { method: 'POST' });
      expect(anonymous.status, 'POST cancel without a token').toBe(401);
      const wrong = await fetch(cancelUrl, { method: 'POST', headers: { authorization: 'Bearer not-an-operator' } });
      expect([401, 403], 'POST cancel with a wrong token').toContain(wrong.status);

      await page.locator('#operator-token').fill('not-an-operator');
      await page.locator('#operator-signin').click();
      await probe.see(page.locator('#operator-error', { hasText: 'not signed in' }), 'a wrong operator token refused (#operator-error)');
      expect(await page.locator('#cancel-task').count(), 'Cancel buttons with a wrong token').toBe(0);
      expect(statusOf(await getTask(t.wire, jobId)), 'the long_job after the refused attempts').toBe('working');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'should cancel after confirmation, the requester seeing cancelled, and audit it with the operator name',
    async () => {
      const { page, probe } = t;
      await page.locator('#operator-token').fill(OPERATOR_TOKEN);
      await page.locator('#operator-signin').click();
      await probe.see(page.locator('#operator-name', { hasText: 'alice' }), 'the operator name alice once signed in');
      const cancel = page.locator('#cancel-task');
      await probe.see(cancel, 'the Cancel button (#cancel-task) for a working task');
      await docShot(page, 'cancel-offered');

      let asked = '';
      page.once('dialog', (dialog) => {
        asked = dialog.message();
        void dialog.accept();
      });
      await cancel.click();
      await probe.see(page.locator(`table#tasks tbody tr[data-task-key="${jobKey}"][data-status="cancelled"]`), 'the long_job row to turn cancelled');
      expect(asked, 'the confirmation asked').toContain(jobId);
      await probe.see(page.locator('#detail-note', { hasText: 'alice' }), 'the detail to say who asked');
      await probe.see(page.locator('#cancel-task'), 'no Cancel button once the task ended', 'detached');
      const seen = await getTask(t.wire, jobId);
      expect(statusOf(seen), "the requester's tasks/get").toBe('cancelled');
      // The button gives no reason: the requester learns that an operator acted, nothing more.
      expect(seen['statusMessage'], "the requester's status message").toBe('Cancelled by an operator');
      const audit = t.server
        .stderr()
        .split('\n')
        .find((line) => line.includes('operator.cancel') && line.includes(jobId));
      expect(audit, 'the audit line of the cancel in the server stderr').toBeDefined();
      expect(JSON.parse(audit!), 'the audit line').toMatchObject({ operator: 'alice', taskId: jobId });
      await docShot(page, 'cancel-done');

      // Signed out: no action offered any more, on a task that could be cancelled.
      const other = (await create2025(t.wire, 'long_job', { seconds: 60 })).taskId;
      await t.row(other).click();
      await probe.see(page.locator('#cancel-task'), 'the Cancel button for another working task');
      await page.locator('#operator-signout').click();
      await probe.see(page.locator('#cancel-task'), 'no Cancel button once signed out', 'detached');
      await probe.see(page.locator('#operator-token'), 'the token input again');
      expect(t.uncaught(), 'uncaught errors in the page').toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'should list the node in the cluster view',
    async () => {
      const { page, probe } = t;
      await probe.see(page.locator('#show-cluster'), 'the Cluster button (#show-cluster)');
      await page.locator('#show-cluster').click();
      const node = page.locator('table#cluster-nodes tbody tr[data-node]');
      await probe.see(node, 'a node in table#cluster-nodes');
      expect(await node.count(), 'nodes of a memory server').toBe(1);
      expect(await node.getAttribute('data-up')).toBe('true');
      // The view re-reads the status while open: a run that ends just now is counted at the next read.
      await expect.poll(async () => Number(await node.locator('td[data-col="tasksRun"]').textContent()), { message: 'tasks run by the node', timeout: 10_000 }).toBeGreaterThanOrEqual(2);
      await probe.see(page.locator('#cluster-summary', { hasText: '1 node' }), 'the summary to count one node');
      await docShot(page, 'cluster');
      await page.locator('#show-cluster').click();
      await probe.see(page.locator('#cluster'), 'the cluster view hidden again', 'hidden');
    },
    TEST_TIMEOUT_MS,
  );
});

describe('inspector page without operators', () => {
  const t = inspectorSuite([]);

  it(
    'should offer no Operator control nor action, and the API should refuse a cancel',
    async () => {
      const { page, probe } = t;
      const id = (await create2025(t.wire, 'long_job', { seconds: 30 })).taskId;
      await probe.see(t.row(id), `the long_job ${id} row`);
      await t.row(id).click();
      await probe.see(page.locator('#detail-title', { hasText: id }), `#detail-title to show ${id}`);
      await probe.see(page.locator('#operator'), 'no Operator control', 'hidden');
      expect(await page.locator('#cancel-task').count()).toBe(0);
      const key = (await t.row(id).getAttribute('data-task-key')) ?? '';
      const res = await fetch(`${t.base}/api/tasks/${encodeURIComponent(key)}/cancel`, { method: 'POST', headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } });
      expect(res.status, 'POST cancel on an inspector without operators').toBe(403);
      expect(statusOf(await getTask(t.wire, id))).toBe('working');
    },
    TEST_TIMEOUT_MS,
  );
});
