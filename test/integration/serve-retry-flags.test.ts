/**
 * `serve --retry-restart` / `--retry-never`: a tool name that is not served, or one named by both,
 * is refused at start with a message that names it (and nothing is served).
 */
import { describe, expect, it } from 'vitest';
import { runCli } from './harness/cluster.js';

describe('serve retry flags', () => {
  it('refuses --retry-never naming a tool it does not serve, naming it', async () => {
    const run = await runCli(['serve', '--http', '0', '--retry-never', 'no_such_tool'], 12_000);
    expect(run.code, run.stderr).not.toBe(0);
    expect(run.stderr).toContain("--retry-never names an unknown tool 'no_such_tool'");
    expect(run.stderr).not.toMatch(/serving MCP/);
  }, 20_000);

  it('refuses a tool named by both --retry-restart and --retry-never', async () => {
    const run = await runCli(['serve', '--http', '0', '--retry-restart', 'long_job', '--retry-never', 'long_job'], 12_000);
    expect(run.code, run.stderr).not.toBe(0);
    expect(run.stderr).toContain("--retry-restart and --retry-never both name 'long_job'");
  }, 20_000);
});
