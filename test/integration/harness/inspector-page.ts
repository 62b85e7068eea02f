/**
 * The inspector page under test: a demo server (`serve --http 0 --inspect 0 [flags]`), a headless
 * Chromium on its page, and a raw MCP client (2025-11-25) that creates the tasks, for one
 * `describe` block; plus the page's locators and the pictures of `docs/inspector.md`.
 *
 * Pictures: every `docShot` lands in `test-artifacts/inspector-docs/`; with `INSPECTOR_DOCS=1`
 * it also replaces `docs/inspector/<name>.png` (1280x800, the visible part of the page only,
 * which keeps the files small).
 *
 * @module
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { PageProbe, launchBrowser, screenshot, type TestBrowser } from './browser.js';
import { attachInteractiveHttpWire } from './http-wire.js';
import { spawnInspectorServer, type InspectorServer } from './inspector-server.js';
import { REPO_ROOT } from './process.js';
import type { InteractiveWire } from './types.js';

/** The size of the docs' pictures. */
export const DOC_VIEWPORT = { width: 1280, height: 800 } as const;

/** What a suite's `inspectorSuite` gives its tests (valid inside them, after `beforeAll`). */
export interface InspectorSuite {
  readonly server: InspectorServer;
  readonly browser: TestBrowser;
  readonly page: Page;
  readonly probe: PageProbe;
  readonly wire: InteractiveWire;
  /** The inspector's origin (`http://127.0.0.1:<port>`). */
  readonly base: string;
  /** The table row whose taskId cell shows `taskId`. */
  row(taskId: string): Locator;
  /** Uncaught errors of the page so far. */
  uncaught(): string[];
}

/**
 * Starts a server with `flags`, a browser (1280x800) and a client before the suite's tests, and
 * stops them after; the page is opened at the inspector's URL.
 *
 * @example
 * ```ts
 * const t = inspectorSuite(['--inspect-results']);
 * it('…', async () => { await t.probe.see(t.row(id), 'the row'); });
 * ```
 */
export function inspectorSuite(flags: readonly string[], timeoutMs = 40_000): InspectorSuite {
  const env: { server?: InspectorServer; browser?: TestBrowser; wire?: InteractiveWire; probe?: PageProbe } = {};
  beforeAll(async () => {
    env.server = await spawnInspectorServer(flags);
    env.browser = await launchBrowser({ viewport: { ...DOC_VIEWPORT } });
    env.probe = new PageProbe(env.browser.page, env.browser.pageErrors);
    env.wire = await attachInteractiveHttpWire(env.server.url, () => env.server?.stderr() ?? '');
    await env.browser.page.goto(env.server.inspectorUrl);
    await env.probe.see(env.browser.page.locator('#live[data-connected="true"]'), 'the live stream to connect (#live[data-connected="true"])', 'attached');
  }, timeoutMs);
  afterAll(async () => {
    await env.wire?.close();
    await env.browser?.close();
    await env.server?.close();
  });
  const need = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} did not start (see beforeAll)`);
    return value;
  };
  return {
    get server() {
      return need(env.server, 'the server');
    },
    get browser() {
      return need(env.browser, 'the browser');
    },
    get page() {
      return need(env.browser, 'the browser').page;
    },
    get probe() {
      return need(env.probe, 'the browser');
    },
    get wire() {
      return need(env.wire, 'the MCP client');
    },
    get base() {
      return new URL(need(env.server, 'the server').inspectorUrl).origin;
    },
    row(taskId: string): Locator {
      const page = need(env.browser, 'the browser').page;
      return page.locator('table#tasks tbody tr').filter({ has: page.locator('td[data-col="taskId"]', { hasText: taskId }) });
    },
    uncaught(): string[] {
      return need(env.browser, 'the browser').pageErrors.filter((e) => e.startsWith('pageerror:'));
    },
  };
}

/**
 * A picture for the docs: `test-artifacts/inspector-docs/<name>.png`, and with `INSPECTOR_DOCS=1`
 * `docs/inspector/<name>.png` too (the viewport only, scrolled to `focus` when given).
 *
 * @example
 * ```ts
 * await docShot(page, 'list');
 * await docShot(page, 'history-step', '#history-at');
 * ```
 */
export async function docShot(page: Page, name: string, focus?: string): Promise<void> {
  if (focus !== undefined) await page.locator(focus).first().evaluate((el) => el.scrollIntoView({ block: 'start' }));
  await screenshot(page, 'inspector-docs', name);
  if (process.env['INSPECTOR_DOCS'] !== '1') return;
  const dir = path.join(REPO_ROOT, 'docs', 'inspector');
  await mkdir(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: false });
}

/**
 * Waits until exactly the given states of a diagram (`#diagram` or `#handler-diagram`) are
 * `current`, among `all` of its states.
 *
 * @example
 * ```ts
 * await onlyCurrent(t.probe, '#diagram', ['task.working'], 'the lifecycle at working');
 * ```
 */
export function onlyCurrent(probe: PageProbe, diagram: string, wanted: readonly string[], what: string): Promise<void> {
  return probe.until(
    `${what} (${diagram} g[data-state].current exactly ${JSON.stringify(wanted)})`,
    ({ diagram, wanted }: { diagram: string; wanted: string[] }) => {
      const marked = [...(globalThis as any).document.querySelectorAll(`${diagram} svg g[data-state].current`)].map((g: any) => g.dataset.state as string);
      return marked.length === wanted.length && wanted.every((w) => marked.includes(w));
    },
    { diagram, wanted: [...wanted] },
  );
}
