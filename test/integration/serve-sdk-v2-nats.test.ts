/**
 * `serve --sdk v2 --nats --http`: the SDK v2 line keeps 2025-11-25 sessions in the process, so a
 * NATS front behind a balancer would answer a session's second request "Session not found" on
 * another node. The combination is refused at start, before any NATS connection, with a sentence
 * that says why and what to use instead; stdio (one session per process) and a worker stay allowed.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from './harness/cluster.js';

describe('serve --sdk v2 with --nats', () => {
  it('should refuse --http with a reason and the way out, serving nothing', async () => {
    // Port 9 has no NATS server: a refusal made after connecting would fail differently (or hang).
    const run = await runCli(['serve', '--sdk', 'v2', '--nats', 'nats://127.0.0.1:9', '--http', '0'], 12_000);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain('--sdk v2 does not serve HTTP with --nats');
    expect(run.stderr).toContain("'Session not found'");
    expect(run.stderr).toContain('use --sdk v1');
    expect(run.stderr).not.toMatch(/serving MCP|joined the NATS task space/);
  }, 20_000);

  it('should let --sdk v2 without --nats past that check', async () => {
    const run = await runCli(['serve', '--sdk', 'v2', '--http', '0', '--max-task-depth', 'x'], 12_000);
    // A later, unrelated refusal proves the combination check let it through.
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).not.toContain('--sdk v2 does not serve HTTP with --nats');
    expect(run.stderr).toContain('--max-task-depth expects a non-negative number');
  }, 20_000);
});
