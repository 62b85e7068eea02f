import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isLoopback } from '../../adapters/inspector/index.js';
import { pageHtml } from '../../adapters/inspector/page/page-html.js';
import { PAGE_SCRIPT } from '../../adapters/inspector/page/page-script.js';

describe('inspector page', () => {
  it('should ship a script that parses as an ES module', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'inspector-page-'));
    try {
      const file = path.join(dir, 'inspector.mjs');
      writeFileSync(file, PAGE_SCRIPT);
      execFileSync(process.execPath, ['--check', file], { stdio: 'pipe' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const STATUSES = ['submitted', 'working', 'input_required', 'completed', 'failed', 'cancelled', 'unknown'];
  /** The option values of the select with id `id`. */
  const optionsOf = (id: string): string[] => {
    const select = new RegExp(`<select id="${id}">(.*?)</select>`).exec(pageHtml(null))?.[1] ?? '';
    return [...select.matchAll(/<option value="([^"]*)"/g)].map((m) => m[1]!);
  };

  it('should offer every status in the filter, "" first for all, and a count chip for each', () => {
    expect(optionsOf('status-filter')).toEqual(['', ...STATUSES]);
    const chips = [...pageHtml(null).matchAll(/<button type="button" class="chip" data-status="([^"]*)"/g)].map((m) => m[1]);
    expect(chips).toEqual(STATUSES);
  });

  it('should offer the relative choices of the created-since filter that the script knows', () => {
    const choices = optionsOf('filter-since');
    expect(choices).toEqual(['', '5m', '1h', '24h', '7d']);
    for (const choice of choices.slice(1)) expect(PAGE_SCRIPT).toContain(`'${choice}': `);
  });

  it('should put the token on the asset URLs only when there is one, escaped', () => {
    expect(pageHtml(null)).toContain('src="/inspector.js"');
    const html = pageHtml('a"b<c&d');
    expect(html).toContain('src="/inspector.js?token=a%22b%3Cc%26d"');
    expect(html).not.toContain('a"b<');
  });
});

describe('isLoopback', () => {
  it('should accept only names of this machine', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', 'LOCALHOST']) expect(isLoopback(host), host).toBe(true);
    for (const host of ['0.0.0.0', '::', '10.0.0.1', 'example.com', '127.0.0.1.example.com', '']) expect(isLoopback(host), host).toBe(false);
  });
});
