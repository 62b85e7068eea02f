/**
 * The inspector of a NATS front in real headless Chromium, for a task another front created and a
 * worker runs: two fronts (A takes the requests, B serves the inspector), two workers
 * (`--lease-ttl 2000`), and a `long_job {seconds: 10}` (a resumable machine handler). B's page,
 * opened by a deep link, draws the job's own machine with its state and step advancing although
 * no handler runs in B's process; the worker running it is SIGKILLed; the same page then shows
 * attempt 2 going on from the step it was checkpointed at (never from step 1), the machine moving
 * on to `finishing`, and the task completing; the cluster view lists the four nodes. Picture:
 * `docShot` `nats-resumed`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PageProbe, launchBrowser, type TestBrowser } from '../integration/harness/browser.js';
import { closeNodes, describeNodes, freshPrefix, startNodes, waitForRunner, type ClusterNode } from '../integration/harness/cluster.js';
import { attachHttpWire } from '../integration/harness/http-wire.js';
import { inspectorUrlFrom } from '../integration/harness/inspector.js';
import { DOC_VIEWPORT, docShot, onlyCurrent } from '../integration/harness/inspector-page.js';
import { ok } from '../integration/harness/json.js';
import { startNatsServer, type NatsServer } from '../integration/harness/nats-server.js';
import { create2025, textOf } from '../integration/harness/task-calls.js';
import type { Wire } from '../integration/harness/types.js';

const LEASE_TTL = 2_000;

/** What the page shows of the handler machine at one moment. */
interface Seen {
  readonly at: number;
  readonly step: number | null;
  readonly attempt: number | null;
  readonly states: string[];
  readonly status: string | null;
}

describe('inspector of a NATS front in headless Chromium', () => {
  let nats: NatsServer | undefined;
  const nodes: ClusterNode[] = [];
  let wire: Wire | undefined;
  let browser: TestBrowser | undefined;
  const diag = (): string => describeNodes(nodes, nats === undefined ? {} : { 'nats-server log': nats.log().slice(-1_500) });

  beforeAll(async () => {
    nats = await startNatsServer({ jetstream: true });
    const prefix = freshPrefix('inspector-nats');
    const flags = ['--lease-ttl', String(LEASE_TTL)];
    nodes.push(
      ...(await startNodes([
        { nats: nats.url, prefix, label: 'A', role: 'front', flags },
        { nats: nats.url, prefix, label: 'B', role: 'front', flags: [...flags, '--inspect', '0'] },
        { nats: nats.url, prefix, label: 'w1', role: 'worker', flags },
        { nats: nats.url, prefix, label: 'w2', role: 'worker', flags },
      ])),
    );
    wire = await attachHttpWire(nodes[0]!.url, diag);
    browser = await launchBrowser({ viewport: { ...DOC_VIEWPORT } });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await wire?.close().catch(() => undefined);
    await closeNodes(nodes);
    await nats?.stop();
  }, 30_000);

  it('should show a long_job run by a worker on the other front, and after SIGKILL of its worker the resumed attempt on the step it was at', async () => {
    const page = browser!.page;
    const probe = new PageProbe(page, browser!.pageErrors);
    const inspectorUrl = inspectorUrlFrom(nodes[1]!.stderr());
    expect(inspectorUrl, diag()).toBeDefined();
    const { taskId } = await create2025(wire!, 'long_job', { seconds: 10 });

    // A deep link to the task on B, which neither took the request nor runs the handler.
    const link = new URL(`/tasks/${encodeURIComponent(taskId)}`, inspectorUrl);
    for (const [name, value] of new URL(inspectorUrl!).searchParams) link.searchParams.set(name, value);
    await page.goto(link.href);
    await probe.see(page.locator('#detail-title', { hasText: taskId }), `the detail of ${taskId}`);
    await probe.see(page.locator('#handler-diagram svg g[data-state="long_job.working"].current'), 'long_job.working highlighted on the handler machine');
    await probe.see(page.locator('#diagram svg g[data-state="task.working"].current'), 'task.working highlighted on the lifecycle');

    const read = (): Promise<Seen> =>
      page.evaluate(() => {
        const doc = (globalThis as any).document;
        const number = (selector: string): number | null => {
          const match = /(\d+)/.exec(doc.querySelector(selector)?.textContent ?? '');
          return match ? Number(match[1]) : null;
        };
        return {
          at: Date.now(),
          step: number('#handler-step'),
          attempt: number('#handler-attempt'),
          states: [...doc.querySelectorAll('#handler-diagram svg g[data-state].current')].map((g: any) => g.getAttribute('data-state') as string),
          status: doc.querySelector('#handler-status')?.textContent ?? null,
        };
      });
    const seen: Seen[] = [];
    const watchUntil = async (what: string, done: (s: Seen) => boolean, timeoutMs: number): Promise<Seen> => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const s = await read();
        seen.push(s);
        if (done(s)) return s;
        if (Date.now() > deadline) throw new Error(`the page did not show ${what} within ${timeoutMs} ms; seen: ${JSON.stringify(seen.slice(-20))}\n${diag()}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };

    // The step advances live, drawn from the worker's reports through the cluster.
    const first = await watchUntil('a first step', (s) => s.step !== null, 10_000);
    const third = await watchUntil('step 3 or more', (s) => (s.step ?? 0) >= 3, 10_000);
    expect(third.step!, diag()).toBeGreaterThan(first.step!);

    const { node: runner } = await waitForRunner(nodes, taskId, { attempt: 1, diagnostics: diag });
    const stepAtKill = third.step!;
    await runner.crash();

    // The same page, without a reload: attempt 2 on another worker, on from the checkpointed step.
    const resumed = await watchUntil('attempt 2', (s) => s.attempt === 2 && s.step !== null, LEASE_TTL * 4 + 10_000);
    // The checkpoint of the step it was in, or the one before if the kill came as it was being written.
    expect(resumed.step!, `killed at step ${stepAtKill}; seen ${JSON.stringify(seen)}`).toBeGreaterThanOrEqual(stepAtKill - 1);
    expect(resumed.states, JSON.stringify(resumed)).toContain('long_job.working');
    // The timeline says which run entered each state.
    await probe.see(page.locator('ol#timeline > li[data-event="task.handler"][data-attempt="2"]'), 'task.handler entries of attempt 2 in the timeline', 'attached');
    await probe.see(page.locator('#show-cluster'), 'the Cluster button (the page offers it once /api/cluster answers)');
    await page.locator('#show-cluster').click();
    await probe.see(page.locator('table#cluster-nodes tbody tr[data-node]').nth(3), 'the four nodes in the cluster view');
    await docShot(page, 'nats-resumed', '#detail');

    await watchUntil('the machine in finishing', (s) => s.states.includes('long_job.finishing'), 15_000);
    await onlyCurrent(probe, '#diagram', ['task.completed'], 'the lifecycle at completed');
    // After the kill, no step went back: every reading of attempt 2 is at or after the resumed step.
    const afterResume = seen.filter((s) => s.attempt === 2 && s.step !== null).map((s) => s.step!);
    expect(afterResume.every((step, i) => i === 0 || step >= afterResume[i - 1]!), JSON.stringify(afterResume)).toBe(true);
    expect(Math.min(...afterResume)).toBeGreaterThan(1);
    expect(textOf(ok(await wire!.request('tasks/result', { taskId }))), diag()).toBe('long_job done in 10 s');
    expect(browser!.pageErrors.filter((e) => e.startsWith('pageerror:')), 'uncaught errors in the page').toEqual([]);
  }, 90_000);
});
