/**
 * The inspector page of a NATS front in real headless Chromium: a front (`--inspect 0`, runs no
 * handler) and two workers on one nats-server. A `long_job` created through the front runs on a
 * worker; the front's page draws the job's own machine (its graph shared by the worker) with the
 * step advancing live; the worker running it is SIGKILLed, and the same page, without a reload,
 * shows attempt 2 on another worker going on from the checkpointed step (not from step 1), then
 * the job completing. The cluster view lists the three nodes. Picture: `docShot` `nats-resumed`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PageProbe, launchBrowser, type TestBrowser } from '../integration/harness/browser.js';
import { closeNodes, describeNodes, freshPrefix, startNodes, waitForRunner, type ClusterNode } from '../integration/harness/cluster.js';
import { attachHttpWire } from '../integration/harness/http-wire.js';
import { DOC_VIEWPORT, docShot, onlyCurrent } from '../integration/harness/inspector-page.js';
import { inspectorUrlIn } from '../integration/harness/inspector-server.js';
import { startNatsServer, type NatsServer } from '../integration/harness/nats-server.js';
import { create2025, getTask, statusOf } from '../integration/harness/task-calls.js';
import type { Wire } from '../integration/harness/types.js';

const LEASE_TTL = 2_000;
const TEST_TIMEOUT_MS = 90_000;

let nats: NatsServer | undefined;
const nodes: ClusterNode[] = [];
let wire: Wire | undefined;
let browser: TestBrowser | undefined;
let inspectorUrl = '';
const diag = (): string => describeNodes(nodes);

/** The step the caption shows (`step 4`), or 0. */
const stepIn = (text: string | null): number => Number(/step (\d+)/.exec(text ?? '')?.[1] ?? 0);

beforeAll(async () => {
  nats = await startNatsServer({ jetstream: true });
  const prefix = freshPrefix('inspectnats');
  const flags = ['--lease-ttl', String(LEASE_TTL)];
  nodes.push(
    ...(await startNodes([
      { nats: nats.url, prefix, label: 'F', role: 'front', flags: [...flags, '--inspect', '0'] },
      { nats: nats.url, prefix, label: 'w1', role: 'worker', flags },
      { nats: nats.url, prefix, label: 'w2', role: 'worker', flags },
    ])),
  );
  const front = nodes[0]!;
  const line = await front.waitForLine((l) => inspectorUrlIn(JSON.stringify(l)) !== undefined, 'the inspector URL');
  inspectorUrl = inspectorUrlIn(JSON.stringify(line))!;
  wire = await attachHttpWire(front.url, diag);
  browser = await launchBrowser({ viewport: { ...DOC_VIEWPORT } });
}, 60_000);

afterAll(async () => {
  await wire?.close().catch(() => undefined);
  await browser?.close();
  await closeNodes(nodes);
  await nats?.stop();
}, 30_000);

describe('inspector page of a NATS front: the handler machine across a worker loss', () => {
  it(
    "should show long_job's machine advancing, then attempt 2 on the checkpointed step after SIGKILL of its worker",
    async () => {
      const page = browser!.page;
      const probe = new PageProbe(page, browser!.pageErrors);
      await page.goto(inspectorUrl);
      await probe.see(page.locator('#live[data-connected="true"]'), 'the live stream to connect', 'attached');
      const { taskId } = await create2025(wire!, 'long_job', { seconds: 8 });
      const row = page.locator('table#tasks tbody tr').filter({ has: page.locator('td[data-col="taskId"]', { hasText: taskId }) });
      await probe.see(row, `the long_job ${taskId} row on the front's page`);
      await row.click();
      await probe.see(page.locator('#handler-name', { hasText: 'long_job' }), "the handler machine drawn on the front (graph shared by the worker)");
      await onlyCurrent(probe, '#handler-diagram', ['long_job.working'], 'the working state highlighted');
      await probe.see(page.locator('#handler-attempt', { hasText: 'attempt 1' }), 'attempt 1 in the caption');
      await probe.see(page.locator('#handler-step', { hasText: /^step ([3-9]|10)\b/ }), 'the step to advance to 3 or more');

      const workers = nodes.filter((n) => n.role === 'worker');
      const { node: runner } = await waitForRunner(workers, taskId, { attempt: 1, diagnostics: diag });
      const stepAtKill = stepIn(await page.locator('#handler-step').textContent());
      await runner.crash();

      await probe.see(page.locator('#handler-attempt', { hasText: 'attempt 2' }), 'attempt 2 in the caption after the worker loss, without a reload');
      await probe.see(page.locator('ol#timeline > li[data-event="task.handler"][data-attempt="2"]'), 'task.handler entries of attempt 2 in the timeline', 'attached');
      const firstOfSecond = page.locator('ol#timeline > li[data-event="task.handler"][data-attempt="2"]').first();
      const resumedAt = stepIn(await firstOfSecond.locator('.step').textContent());
      // From its checkpoint: the step it was killed in, or the one before if the kill came while
      // that step's checkpoint was being written; never from step 1.
      expect(resumedAt, `the first step of attempt 2 (killed at step ${stepAtKill})`).toBeGreaterThanOrEqual(Math.max(2, stepAtKill - 1));
      await onlyCurrent(probe, '#handler-diagram', ['long_job.working'], 'the resumed run highlighted at working');
      expect(await page.locator('#detail-meta', { hasText: 'attempt' }).count(), 'the attempt in the metadata').toBe(1);
      await page.locator('#show-cluster').click();
      await probe.see(page.locator('table#cluster-nodes tbody tr[data-node]').nth(2), 'the three nodes in the cluster view');
      await docShot(page, 'nats-resumed');

      await probe.until('the job to complete on the front page', () => (globalThis as any).document.querySelector('#handler-status')?.textContent === 'done', null);
      await onlyCurrent(probe, '#diagram', ['task.completed'], 'the lifecycle at completed');
      expect(statusOf(await getTask(wire!, taskId)), "the requester's tasks/get").toBe('completed');
      expect(browser!.pageErrors.filter((e) => e.startsWith('pageerror:')), 'uncaught errors in the page').toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );
});
