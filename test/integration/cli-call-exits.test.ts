/**
 * `mcp-tasks call` and `serve` as people use them: Ctrl-C cancels the task on the server and
 * exits 130; errors are one human sentence on stderr naming the URL, with exit 4 for a server
 * that cannot be reached or refuses the call; no `task <id>` line for a call that never became a
 * task; a bare `serve` prints its usage and exits 2.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnHttpServer, type HttpServerProcess } from './harness/process.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const cli = 'dist/adapters/cli/main.js';

let server: HttpServerProcess;
let url: string;

beforeAll(async () => {
  server = await spawnHttpServer(['--poll-frequency', '100']);
  url = server.url;
});
afterAll(async () => {
  await server.close();
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI; `interruptWhen` sends SIGINT once stderr matches it (as Ctrl-C on a terminal does). */
function run(args: string[], interruptWhen?: RegExp): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let sent = false;
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (interruptWhen && !sent && interruptWhen.test(stderr)) {
        sent = true;
        child.kill('SIGINT');
      }
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('mcp-tasks call exits', () => {
  for (const dialect of ['sep-1686', '2025-11-25']) {
    it(`cancels the task on the server at Ctrl-C and exits 130 (${dialect})`, async () => {
      const r = await run(['call', url, 'long_job', '{"seconds":30}', '--dialect', dialect, '--poll', '50'], /status: working/);
      expect(r.code, r.stderr).toBe(130);
      expect(r.stderr).toMatch(/cancelling task \S+ on http:\/\/127\.0\.0\.1:\d+\/mcp/);
      // The server's own answer: the task is cancelled there, not just no longer followed.
      expect(r.stderr).toMatch(/^mcp-tasks call: task \S+ was cancelled$/m);
      expect(r.stdout).toBe('');
    });
  }

  it('says in one sentence that a server cannot be reached, naming the URL, and exits 4', async () => {
    const r = await run(['call', 'http://127.0.0.1:59999/mcp', 'sleep']);
    expect(r.code).toBe(4);
    expect(r.stderr.trim()).toBe('mcp-tasks call: cannot reach http://127.0.0.1:59999/mcp: connection refused (is the server running?)');
    expect(r.stdout).toBe('');
  });

  it('prints no task line for a call the server refused, says why, and exits 4', async () => {
    const r = await run(['call', url, 'no_such_tool', '{}']);
    expect(r.code, r.stderr).toBe(4);
    expect(r.stdout).not.toMatch(/^task /m);
    expect(r.stderr).toContain(`mcp-tasks call: ${url} answered with an error:`);
    expect(r.stderr).toContain('no_such_tool');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('refuses a bare serve with its usage and exit 2, serving nothing', async () => {
    const r = await run(['serve']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('mcp-tasks: serve needs exactly one of --stdio or --http PORT.');
    expect(r.stderr).toContain('Usage: mcp-tasks serve (--stdio | --http PORT)');
    expect(r.stderr).not.toContain('serving MCP');
  });
});
