/**
 * Call now, fetch later, from the command line: `call --detach` → `tasks get` → `tasks result`,
 * `tasks list`, `tasks cancel`, `--json` parsed line by line, `--quiet`, exit 3 when the task asks
 * and nothing can answer, one human sentence for every error; and on a real pseudo-terminal
 * (`script`), the live status line and Ctrl-C cancelling the task on the server with exit 130.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnHttpServer, type HttpServerProcess } from './harness/process.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const cli = 'dist/adapters/cli/main.js';

let server: HttpServerProcess;
const TOKEN = 'cli-tasks-token';
beforeAll(async () => {
  server = await spawnHttpServer(['--poll-frequency', '100']);
});
afterAll(async () => {
  await server.close();
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `mcp-tasks …args` without a terminal; stdin is closed at once unless `keepStdin`. */
function run(args: readonly string[], options: { keepStdin?: boolean } = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    if (!options.keepStdin) child.stdin.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (options.keepStdin) child.stdin.destroy();
      resolve({ code, stdout, stderr });
    });
  });
}

const jsonLines = (stdout: string): Record<string, unknown>[] =>
  stdout
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** The one sentence of an error run: a single stderr line starting with the command. */
function oneSentence(r: Run, command: string): string {
  const lines = r.stderr.trim().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(new RegExp(`^mcp-tasks ${command}: `));
  return lines[0]!;
}

describe('mcp-tasks call --detach and mcp-tasks tasks', () => {
  it('should detach at once, then get, list and fetch the result of the task from new processes on its session', async () => {
    const started = Date.now();
    const detached = await run(['call', server.url, 'long_job', '{"seconds":2}', '--detach']);
    expect(detached.code, detached.stderr).toBe(0);
    expect(Date.now() - started).toBeLessThan(2_000 + 5_000);
    const taskId = detached.stdout.trim();
    expect(taskId).toMatch(/^[0-9a-f-]{36}$/);
    const sessionId = /--session-id (\S+)/.exec(detached.stderr)?.[1];
    expect(sessionId, detached.stderr).toBeDefined();
    const on = ['--http', server.url, '--session-id', sessionId!];

    const got = await run(['tasks', 'get', taskId, ...on, '--json']);
    expect(got.code, got.stderr).toBe(0);
    expect(jsonLines(got.stdout)).toEqual([expect.objectContaining({ taskId, status: expect.stringMatching(/^(working|completed)$/) })]);

    const listed = await run(['tasks', 'list', ...on, '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(jsonLines(listed.stdout).map((t) => t['taskId'])).toContain(taskId);

    const result = await run(['tasks', 'result', taskId, ...on]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('long_job done in 2 s\n');
    expect(result.stderr).toContain('status: completed');
  });

  it('should find an authenticated requester’s task from a new session, with --header', async () => {
    const authed = await spawnHttpServer(['--poll-frequency', '100', '--auth-token', `${TOKEN}=alice`]);
    try {
      const header = ['--header', `Authorization: Bearer ${TOKEN}`];
      const detached = await run(['call', authed.url, 'sleep', '{"ms":300}', '--detach', '--json', ...header]);
      expect(detached.code, detached.stderr).toBe(0);
      const [line] = jsonLines(detached.stdout);
      // Bound to the principal, not the session: no session id is needed (nor printed).
      expect(line).toEqual({ type: 'task', taskId: expect.any(String) });
      const result = await run(['tasks', 'result', String(line!['taskId']), '--http', authed.url, ...header, '--json']);
      expect(result.code, result.stderr).toBe(0);
      const lines = jsonLines(result.stdout);
      expect(lines.at(-1)).toEqual({ type: 'result', result: expect.objectContaining({ content: [{ type: 'text', text: 'slept 300 ms' }] }) });
      expect(lines.some((l) => l['type'] === 'status' && l['status'] === 'completed')).toBe(true);
    } finally {
      await authed.close();
    }
  });

  it('should cancel a running task, and say so with exit 1 when it had already ended', async () => {
    const detached = await run(['call', server.url, 'long_job', '{"seconds":30}', '--detach', '--json']);
    const [line] = jsonLines(detached.stdout);
    const on = ['--http', server.url, '--session-id', String(line!['sessionId'])];
    const cancelled = await run(['tasks', 'cancel', String(line!['taskId']), ...on, '--json']);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(jsonLines(cancelled.stdout)[0]).toMatchObject({ taskId: line!['taskId'], status: 'cancelled' });
    const again = await run(['tasks', 'cancel', String(line!['taskId']), ...on]);
    expect(again.code).toBe(1);
    expect(oneSentence(again, 'tasks cancel')).toContain('had already ended cancelled');
  });

  it('should print only the result with --quiet, and only JSON lines with --json', async () => {
    const quiet = await run(['call', server.url, 'sleep', '{"ms":100}', '--quiet']);
    expect(quiet).toMatchObject({ code: 0, stdout: 'slept 100 ms\n', stderr: '' });
    const json = await run(['call', server.url, 'fail', '{"message":"nope"}', '--json']);
    expect(json.code).toBe(1);
    const lines = jsonLines(json.stdout);
    expect(lines[0]).toMatchObject({ type: 'task' });
    expect(lines.at(-1)).toEqual({ type: 'result', result: expect.objectContaining({ isError: true, content: [{ type: 'text', text: 'nope' }] }) });
  });

  it('should exit 3 when the task asks for input and nothing can answer, leaving it waiting', async () => {
    const r = await run(['call', server.url, 'ask_name']);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(/^mcp-tasks call: the task asks for input \(elicitation\/create: What is your name\?\) and none can be given here/m);
    expect(r.stdout).toBe('');
  });

  it.each([
    ['an unreachable server', ['call', 'http://127.0.0.1:59998/mcp', 'sleep'], 4, 'call', 'cannot reach http://127.0.0.1:59998/mcp: connection refused'],
    ['an unknown tool', ['call', '{URL}', 'no_such_tool'], 4, 'call', 'answered with an error'],
    ['an unknown task', ['tasks', 'get', 'no-such-task', '--http', '{URL}'], 4, 'tasks get', 'pass the --session-id'],
    ['a cancel of an unknown task', ['tasks', 'cancel', 'no-such-task', '--http', '{URL}'], 4, 'tasks cancel', 'Task not found'],
    ['a bad dialect', ['tasks', 'list', '--http', '{URL}', '--dialect', 'v9'], 2, '', '--dialect must be one of auto, sep-1686, 2025-11-25, 2026-07-28'],
    ['a missing task id', ['tasks', 'result', '--http', '{URL}'], 2, '', 'tasks result needs a task ID'],
    ['--detach over stdio', ['call', '--stdio', 'node x', 'sleep', '--detach'], 2, '', '--detach needs --http'],
    ['a bad header', ['tasks', 'list', '--http', '{URL}', '--header', 'nocolon'], 2, '', "--header expects 'Name: value'"],
  ] as const)('should say what went wrong with %s in one sentence', async (_what, args, code, command, words) => {
    const r = await run(args.map((a) => a.replace('{URL}', server.url)));
    expect(r.code, r.stderr).toBe(code);
    const sentence = command === '' ? (expect(r.stderr.trim().split('\n')).toHaveLength(1), r.stderr.trim()) : oneSentence(r, command);
    expect(sentence).toContain(words);
    expect(r.stdout).toBe('');
  });
});

/** Runs `mcp-tasks …args` on a pseudo-terminal made by `script`; `keys` types on it when stdout shows `when`. */
function runOnTerminal(args: readonly string[], keys?: { when: RegExp; type: string }): Promise<Run> {
  return new Promise((resolve) => {
    const command = [process.execPath, cli, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
    const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, TERM: 'xterm' } });
    let out = '';
    let typed = false;
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (keys && !typed && keys.when.test(out)) {
        typed = true;
        child.stdin.write(keys.type);
      }
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: out, stderr: '' });
    });
  });
}

describe('mcp-tasks call and Ctrl-C twice', () => {
  it('should leave the task running at a second Ctrl-C within 2 s and say how to fetch it later', { timeout: 20_000 }, async () => {
    const child = spawn(process.execPath, [cli, 'call', server.url, 'sleep', '{"ms":3000}'], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    let sent = 0;
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (sent === 0 && /status: working/.test(stderr)) {
        sent = 1;
        child.kill('SIGINT');
      } else if (sent === 1 && /Ctrl-C again to leave it running/.test(stderr)) {
        sent = 2;
        child.kill('SIGINT');
      }
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code, stderr).toBe(130);
    const fetch = /fetch it later with: (mcp-tasks tasks result (\S+) --http (\S+) --session-id (\S+))/.exec(stderr);
    expect(fetch, stderr).not.toBeNull();
    // The printed command works, and the task runs on to its result: nothing cancelled it.
    const later = await run(['tasks', 'result', fetch![2]!, '--http', fetch![3]!, '--session-id', fetch![4]!]);
    expect(later.code, later.stderr).toBe(0);
    expect(later.stdout).toBe('slept 3000 ms\n');
  });
});

describe('mcp-tasks call on a terminal', () => {
  it('should show one live line (status, elapsed, progress with the message) and print partials above it', async () => {
    const r = await runOnTerminal(['call', server.url, 'long_job', '{"seconds":1}']);
    expect(r.code, r.stdout).toBe(0);
    // The live line is redrawn in place: carriage return and erase-line, never a new line per change.
    // Progress as progressText writes it: the numbers, then the status message (shown once).
    // eslint-disable-next-line no-control-regex -- the terminal's own erase-line sequence
    expect(r.stdout).toMatch(/\r\x1b\[2K\S+ {2}working {2}\d+\.\ds {2}(\d+)\/10 — step \1\/10/);
    expect(r.stdout).not.toMatch(/— \d+\/10 —/);
    expect(r.stdout).not.toMatch(/^status: working/m);
    expect(r.stdout).toMatch(/partial 1: step 1\/10 done/);
    expect(r.stdout).toContain('long_job done in 1 s');
  });

  it('should cancel the task on the server at Ctrl-C and exit 130', async () => {
    const r = await runOnTerminal(['call', server.url, 'long_job', '{"seconds":30}', '--json'], { when: /"status":"working"/, type: '\x03' });
    expect(r.code, r.stdout).toBe(130);
    const taskId = /"taskId":"([^"]+)"/.exec(r.stdout)?.[1];
    const sessionId = /"sessionId":"([^"]+)"/.exec(r.stdout)?.[1];
    expect(r.stdout).toMatch(/mcp-tasks call: task \S+ was cancelled/);
    // The server shows it cancelled: read from a new process on its session.
    const got = await run(['tasks', 'get', taskId!, '--http', server.url, '--session-id', sessionId!, '--json']);
    expect(jsonLines(got.stdout)[0]).toMatchObject({ taskId, status: 'cancelled' });
  });
});
