/**
 * `mcp-tasks call` printing what a task does besides changing status, run as a user would against
 * `serve --http 0`: each partial result of `long_job` as it is published (`partial <seq>: <text>`),
 * and each subtask of `fan_out` with its status when it changes (`subtask <id>: <status>`), in
 * both dialects; and the progress of `long_job` on every dialect (`progress:` lines, and
 * `{"type":"progress"}` with `--json`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCall } from './harness/cli-call.js';
import { spawnHttpServer, type HttpServerProcess } from './harness/process.js';

let server: HttpServerProcess;

beforeAll(async () => {
  server = await spawnHttpServer(['--poll-frequency', '100']);
});
afterAll(async () => {
  await server?.close();
});

/** The index of the first line of `stdout` that is `line` (or matches it), `-1` when none does. */
function lineIndex(stdout: string, line: string | RegExp): number {
  return stdout.split('\n').findIndex((l) => (typeof line === 'string' ? l === line : line.test(l)));
}

describe('mcp-tasks call: partial results and subtasks', () => {
  for (const dialect of ['sep-1686', '2025-11-25']) {
    it(`should print each partial result of long_job once, in order, as it runs (${dialect})`, async () => {
      // 3 s: the first step's result comes 0.9 s before step 5 begins, room for a loaded machine's late polls.
      const run = await runCall([server.url, 'long_job', '{"seconds":3}', '--dialect', dialect, '--poll', '50']);
      expect(run.code, run.stderr).toBe(0);
      const partials = [...run.stderr.matchAll(/^partial (\d+): (.*)$/gm)].map((m) => [Number(m[1]), m[2]]);
      expect(partials).toEqual(Array.from({ length: 10 }, (_, i) => [i + 1, `step ${i + 1}/10 done`]));
      // Printed while the job ran: the first one comes before the status of a later step.
      expect(lineIndex(run.stderr, 'partial 1: step 1/10 done')).toBeLessThan(lineIndex(run.stderr, /^status: working \(step ([5-9]|10)\/10\)$/));
      expect(lineIndex(run.stderr, 'partial 10: step 10/10 done')).toBeLessThan(lineIndex(run.stderr, 'status: completed'));
      expect(run.stdout).toBe('long_job done in 3 s\n');
    });

    it(`should print each subtask of fan_out with its status as it changes (${dialect})`, async () => {
      const run = await runCall([server.url, 'fan_out', '{"count":3,"ms":600}', '--dialect', dialect, '--poll', '50']);
      expect(run.code, run.stderr).toBe(0);
      const lines = [...run.stderr.matchAll(/^subtask (\S+): (\S+)$/gm)].map((m) => ({ id: m[1]!, status: m[2]! }));
      const ids = [...new Set(lines.map((l) => l.id))];
      expect(ids).toHaveLength(3);
      for (const id of ids) {
        const statuses = lines.filter((l) => l.id === id).map((l) => l.status);
        // Seen before it ended (polls every 100 ms or less meet a 600 ms sleep), then completed; each change once.
        expect(['working,completed', 'submitted,working,completed', 'submitted,completed'], `statuses printed for subtask ${id}`).toContain(statuses.join(','));
        expect(lineIndex(run.stderr, `subtask ${id}: completed`)).toBeLessThan(lineIndex(run.stderr, 'status: completed'));
      }
      expect(ids).not.toContain(run.stderr.match(/^task (\S+)$/m)?.[1]);
    });
  }
});

describe('mcp-tasks call: progress', () => {
  for (const dialect of ['sep-1686', '2025-11-25', '2026-07-28']) {
    it(`should report each progress step of long_job, in --json lines and as plain lines (${dialect})`, async () => {
      // On 2026-07-28 progress is read off the status message: each poll sees the step then under way.
      const json = await runCall([server.url, 'long_job', '{"seconds":2}', '--dialect', dialect, '--poll', '50', '--json']);
      expect(json.code, json.stderr).toBe(0);
      const lines = json.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      const progress = lines.filter((l) => l['type'] === 'progress');
      const values = progress.map((p) => p['progress'] as number);
      expect(values.length, json.stdout).toBeGreaterThanOrEqual(dialect === '2026-07-28' ? 3 : 10);
      expect(values.every((v, i) => i === 0 || v > values[i - 1]!), values.join(',')).toBe(true);
      for (const p of progress) expect(p).toEqual({ type: 'progress', progress: p['progress'], total: 10, message: `step ${String(p['progress'])}/10` });
      // Every report comes before the result.
      expect(lines.findIndex((l) => l['type'] === 'result')).toBeGreaterThan(lines.indexOf(progress.at(-1)!));

      const plain = await runCall([server.url, 'long_job', '{"seconds":2}', '--dialect', dialect, '--poll', '50']);
      expect(plain.code, plain.stderr).toBe(0);
      expect(plain.stderr).toMatch(/^progress: \d+\/10 — step \d+\/10$/m);
      if (dialect !== '2026-07-28') expect(plain.stderr).toMatch(/^progress: 10\/10 — step 10\/10$/m);
    });
  }
});
