/**
 * A page whose live stream the inspector refuses (`--inspect-max-streams`, here 1, taken by the
 * suite's own page) says why and opens its stream once a place is free, in real headless Chromium:
 * an EventSource never retries a refused stream by itself.
 */
import { describe, expect, it } from 'vitest';
import { inspectorSuite } from '../integration/harness/inspector-page.js';
import { PageProbe } from '../integration/harness/browser.js';

describe('inspector page: a refused live stream', () => {
  const t = inspectorSuite(['--inspect-max-streams', '1']);

  it('should say that live updates are paused and why, then go live once the other page closes', async () => {
    const second = await t.browser.context.newPage();
    const probe = new PageProbe(second, []);
    await second.goto(t.server.inspectorUrl);
    await probe.see(second.locator('#notice', { hasText: 'Live updates paused: Service Unavailable: 1 event streams are open' }), 'the notice naming the refusal');
    expect(await second.locator('#notice').textContent()).toContain('(maxStreams, --inspect-max-streams)');
    expect(await second.locator('#live').getAttribute('data-connected')).toBe('false');
    await t.page.close();
    // Retry-After is 5 s: the page tries again then, and gets the place the first page gave back.
    await probe.see(second.locator('#live[data-connected="true"]'), 'the second page to go live', 'attached');
    expect(await second.locator('#notice').isHidden()).toBe(true);
  }, 40_000);
});
