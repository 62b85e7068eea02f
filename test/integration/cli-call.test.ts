import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const cli = 'dist/adapters/cli/main.js';

let server: ChildProcess;
let url: string;

beforeAll(async () => {
  server = spawn(process.execPath, [cli, 'serve', '--http', '0', '--poll-frequency', '100'], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  url = await new Promise<string>((resolve, reject) => {
    let err = '';
    server.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(err);
      if (m) resolve(m[0]);
    });
    server.once('exit', () => reject(new Error(`server exited: ${err}`)));
  });
});
afterAll(() => {
  server.kill('SIGKILL');
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `mcp-tasks call …` as a user would; `typeWhen` types a line once stderr shows a prompt. */
function runCall(args: string[], typeWhen?: { prompt: RegExp; line: string }): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, 'call', ...args], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let typed = false;
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (typeWhen && !typed && typeWhen.prompt.test(stderr)) {
        typed = true;
        child.stdin.write(`${typeWhen.line}\n`);
      }
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('mcp-tasks call', () => {
  for (const dialect of ['sep-1686', '2025-11-25']) {
    it(`should ask the elicitation on the terminal and print the result (${dialect})`, async () => {
      const run = await runCall([url, 'ask_name', '--dialect', dialect, '--poll', '50'], { prompt: /Name: $/m, line: 'Grace' });
      expect(run.stderr).toContain('What is your name?');
      // Without a terminal: what happens on stderr as plain lines, only the result on stdout.
      expect(run.stderr).toMatch(/(^|: )task \S+$/m);
      expect(run.stderr).toContain('status: input_required');
      expect(run.stdout).toBe('Hello, Grace\n');
      expect(run.code).toBe(0);
    });
  }

  it('should answer elicitation from --answer without reading the terminal', async () => {
    const run = await runCall([url, 'ask_name', '--answer', '{"name":"Ada"}']);
    expect(run.stdout).toContain('Hello, Ada');
    expect(run.code).toBe(0);
  });

  it('should answer sampling with the canned model over --stdio', async () => {
    const run = await runCall(['--stdio', `node ${cli} serve --stdio`, 'summarize', '{"text":"tasks are great"}', '--sample-reply', 'Tasks: great.']);
    expect(run.stdout).toContain('Tasks: great.');
    expect(run.code).toBe(0);
  });

  it('should print status changes of a long job as they happen', async () => {
    const run = await runCall([url, 'long_job', '{"seconds":1.5}', '--dialect', '2025-11-25']);
    const steps = [...run.stderr.matchAll(/status: working \(step (\d+)\/10\)/g)].map((m) => Number(m[1]));
    expect(steps.length).toBeGreaterThanOrEqual(3);
    expect(steps).toEqual([...steps].sort((a, b) => a - b));
    expect(run.stdout).toBe('long_job done in 1.5 s\n');
    expect(run.code).toBe(0);
  });

  it('should exit 1 when the task fails, and 2 with a clear message on bad input', async () => {
    const failed = await runCall([url, 'fail', '{"message":"nope"}', '--dialect', '2025-11-25']);
    // The tool's own error result, the same on every dialect.
    expect(failed.stdout).toBe('nope\n');
    expect(failed.stderr).toMatch(/^task \S+ ended failed$/m);
    expect(failed.code).toBe(1);
    const bad = await runCall([url, 'sleep', 'not-json']);
    expect(bad.stderr).toContain('JSON_ARGS is not valid JSON');
    expect(bad.code).toBe(2);
  });
});
