/**
 * A real headless Chromium for browser tests: Debian's `chromium` driven by `playwright-core`
 * (never a browser downloaded by a test tool). Each launch gets a fresh temporary user-data dir,
 * removed again on close. Waits are time-boxed and fail with the page's text, its console errors
 * and a screenshot path, so a failure says what the page showed.
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { REPO_ROOT, messageOf } from './process.js';

/** How long a single wait on the page may take before it fails. */
export const PAGE_WAIT_MS = 10_000;

/**
 * Flags for Chromium on this machine's closed network: without the background-networking ones it
 * keeps trying (and failing) to reach Google's hosts. `--headless` and the user-data dir are set
 * by {@link launchBrowser} through Playwright's own options.
 */
export const CHROMIUM_FLAGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Where screenshots go (git-ignored; CI keeps them as artifacts). */
export const ARTIFACTS_DIR = path.join(REPO_ROOT, 'test-artifacts');

/**
 * The Chromium binary: `CHROMIUM` in the environment, else Debian's `/usr/bin/chromium`, else
 * `chromium` on PATH.
 *
 * @throws Error naming the install command when there is none (CI installs it; tests never skip)
 */
export function resolveChromium(): string {
  const fromEnv = process.env['CHROMIUM'];
  if (fromEnv !== undefined && fromEnv !== '') {
    if (!existsSync(fromEnv)) throw new Error(`CHROMIUM=${fromEnv} does not exist`);
    return fromEnv;
  }
  const candidates = ['/usr/bin/chromium', ...(process.env['PATH'] ?? '').split(path.delimiter).map((dir) => path.join(dir, 'chromium'))];
  const found = candidates.find((candidate) => existsSync(candidate));
  if (found === undefined) {
    throw new Error(
      'Chromium not found (looked at /usr/bin/chromium and PATH; CHROMIUM=<path> overrides). The browser tests need ' +
        "Debian's chromium: `apt-get install -y chromium` (.ci/run installs it).",
    );
  }
  return found;
}

/** A launched headless Chromium with one page open. */
export interface TestBrowser extends AsyncDisposable {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Uncaught page errors and console errors seen so far, oldest first. */
  readonly pageErrors: readonly string[];
  /** Closes the browser and removes its user-data dir. Idempotent. */
  close(): Promise<void>;
}

/**
 * Launches headless Chromium with a fresh user-data dir and opens one page.
 *
 * @throws Error when Chromium is missing or does not start
 * @example
 * ```ts
 * await using browser = await launchBrowser();
 * await browser.page.goto(url);
 * ```
 */
export async function launchBrowser(options: { viewport?: { width: number; height: number } } = {}): Promise<TestBrowser> {
  const executablePath = resolveChromium();
  const userDataDir = await mkdtemp(path.join(tmpdir(), 'chromium-test-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath,
      headless: true,
      args: [...CHROMIUM_FLAGS],
      viewport: options.viewport ?? { width: 1440, height: 900 },
      timeout: 30_000,
    });
  } catch (error) {
    await rm(userDataDir, { recursive: true, force: true });
    throw new Error(`cannot launch ${executablePath} through playwright-core: ${messageOf(error)}`);
  }
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(PAGE_WAIT_MS);
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') pageErrors.push(`console.error: ${message.text()}`);
  });
  let closed = false;
  const browser: TestBrowser = {
    context,
    page,
    pageErrors,
    async close() {
      if (closed) return;
      closed = true;
      try {
        await context.close();
      } finally {
        await rm(userDataDir, { recursive: true, force: true });
      }
    },
    [Symbol.asyncDispose]() {
      return browser.close();
    },
  };
  return browser;
}

/** The page's visible text (trimmed), for failure messages. */
export async function pageText(page: Page, max = 4_000): Promise<string> {
  try {
    const text = await page.locator('body').innerText({ timeout: 1_000 });
    return text.length > max ? `${text.slice(0, max)}…` : text;
  } catch (error) {
    return `(page text unavailable: ${messageOf(error)})`;
  }
}

/** Saves a full-page screenshot as `test-artifacts/<group>/<name>.png`, prints and returns its path. */
export async function screenshot(page: Page, group: string, name: string): Promise<string> {
  const dir = path.join(ARTIFACTS_DIR, group);
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  console.log(`screenshot: ${file}`);
  return file;
}

async function failure(page: Page, what: string, error: unknown, pageErrors: readonly string[]): Promise<Error> {
  let shot = '';
  try {
    shot = `\nscreenshot: ${await screenshot(page, 'failures', `failure-${Date.now()}`)}`;
  } catch {
    // the page may be gone; the text below still says what happened
  }
  const errors = pageErrors.length > 0 ? `\n--- page errors ---\n${pageErrors.slice(-20).join('\n')}` : '';
  return new Error(
    `${what} (within ${PAGE_WAIT_MS} ms): ${messageOf(error).split('\n')[0]}${shot}\n--- page text ---\n${await pageText(page)}${errors}`,
  );
}

/** A page under test, with time-boxed waits whose failures carry what the page showed. */
export class PageProbe {
  constructor(
    readonly page: Page,
    private readonly pageErrors: readonly string[] = [],
  ) {}

  /** Waits until `locator` is in the state (default: visible); fails saying `what` was expected. */
  async see(locator: Locator, what: string, state: 'visible' | 'attached' | 'hidden' | 'detached' = 'visible'): Promise<void> {
    try {
      await locator.first().waitFor({ state, timeout: PAGE_WAIT_MS });
    } catch (error) {
      throw await failure(this.page, `expected ${what}`, error, this.pageErrors);
    }
  }

  /**
   * Waits until `predicate(arg)` is truthy in the page (polled by Playwright); the predicate runs in
   * the browser, so it may only use its argument and the page's globals.
   */
  async until<A>(what: string, predicate: (arg: A) => unknown, arg: A): Promise<void> {
    try {
      // Serializable arguments arrive unchanged; Playwright's `Unboxed<A>` cannot see that for a generic A.
      await this.page.waitForFunction(predicate as (arg: unknown) => unknown, arg as unknown, { timeout: PAGE_WAIT_MS, polling: 50 });
    } catch (error) {
      throw await failure(this.page, `expected ${what}`, error, this.pageErrors);
    }
  }
}
