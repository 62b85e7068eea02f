/**
 * `mcp-tasks` against a hostile or failing server, run as a user would (pipes, and a
 * pseudo-terminal through `script`): nothing the server sends reaches the terminal as a control
 * sequence, `--json` stays exact JSON without raw C1 or line separators, absurd poll intervals are
 * clamped, an answer about another task is refused, a progress flood with a stopped stderr reader
 * stays bounded, a question is asked on its own line with the answer echoed, and HTTP errors and
 * lost connections say what happened and what to do.
 */
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { runCall } from './harness/cli-call.js';
import { HOSTILE, startHostileServer, type HostileOptions, type HostileServer } from './harness/hostile-server.js';
import { CLI_PATH, killPid, REPO_ROOT, spawnHttpServer } from './harness/process.js';
import { hasScript, runInPty } from './harness/pty.js';

// Raw control characters a server could drive a terminal with (newline and tab are text).
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/; // eslint-disable-line no-control-regex -- what the test looks for
const RAW_JSON_UNSAFE = /[\u0080-\u009f\u2028\u2029]/;
// The CLI's own sequences on a terminal: clearing its live line, and the terminal's CR of each newline.
const OWN_SEQUENCES = /\r\x1b\[2K|\r(?=\n)/g; // eslint-disable-line no-control-regex -- the CLI's own clear-line sequence

let server: HostileServer | undefined;
const hostile = async (options: HostileOptions = {}): Promise<HostileServer> => (server = await startHostileServer(options));
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('mcp-tasks against a server that sends terminal escape sequences', () => {
  it('should show what the server sent only as visible escapes, one-line fields on one line (pipes)', async () => {
    const { url } = await hostile();
    const runs = await Promise.all(['task', 'plain', 'boom'].map(async (tool) => ({ tool, run: await runCall([url, tool, '--poll', '50']) })));
    for (const { tool, run } of runs) {
      expect(run.code, run.stderr).toBe(tool === 'boom' ? 4 : 0);
      const all = run.stdout + run.stderr;
      expect(all, tool).not.toMatch(RAW_CONTROL);
      expect(all, tool).toContain('\\x1b]52;c;ZXZpbA==\\x07');
      expect(all, tool).toContain('\\u009b2J');
      // Neither the task id nor a message forged a line of its own.
      expect(run.stderr, tool).not.toMatch(/^mcp-tasks call: (task t1 ended completed|forged line)/m);
    }
  });

  it('should print exact JSON with no raw C1, U+2028 or U+2029 with --json', async () => {
    const { url } = await hostile();
    const run = await runCall([url, 'task', '--poll', '50', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toMatch(RAW_JSON_UNSAFE);
    const lines = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const status = lines.find((l) => l['type'] === 'status' && l['status'] === 'working');
    expect(status?.['statusMessage']).toBe(`working ${HOSTILE}`);
    expect(lines.find((l) => l['type'] === 'task')?.['taskId']).toMatch(/^task\x1b\[31m-1\n/); // eslint-disable-line no-control-regex -- the id as sent
  });

  it('should keep tasks list, tasks get and status --http free of raw control characters', async () => {
    const { url } = await hostile();
    const node = (args: string[]) =>
      new Promise<{ code: number | null; out: string }>((resolve) => {
        const child = spawn(process.execPath, [CLI_PATH, ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.stderr.on('data', (d: Buffer) => (out += d.toString()));
        child.on('exit', (code) => resolve({ code, out }));
      });
    const commands = [['tasks', 'list', '--http', url], ['tasks', 'get', 'task-1', '--http', url], ['status', '--http', url]];
    const runs = await Promise.all(commands.map(async (args) => ({ args, run: await node(args), json: await node([...args, '--json']) })));
    for (const { args, run, json } of runs) {
      expect(run.code, run.out).toBe(0);
      expect(run.out, args.join(' ')).not.toMatch(RAW_CONTROL);
      expect(run.out, args.join(' ')).toContain('\\x1b]0;pwned\\x07');
      expect(json.code, json.out).toBe(0);
      expect(json.out).not.toMatch(RAW_JSON_UNSAFE);
      for (const line of json.out.trim().split('\n')) expect(() => JSON.parse(line) as unknown).not.toThrow();
    }
  });

  it.runIf(hasScript())('should send no control sequence of the server to a terminal, live line and all (pty)', async () => {
    const { url } = await hostile();
    for (const tool of ['task', 'plain', 'boom']) {
      const run = await runInPty(['call', url, tool, '--poll', '50']);
      expect(run.code, run.screen).toBe(tool === 'boom' ? 4 : 0);
      // The CLI drew its live line (so the live mode ran), and apart from its own clear-line nothing raw.
      if (tool === 'task') expect(run.screen).toContain('\r\x1b[2K');
      expect(run.screen.replace(OWN_SEQUENCES, ''), tool).not.toMatch(RAW_CONTROL);
      expect(run.screen, tool).toContain('\\x1b[2J');
    }
  });
});

describe('the requester against absurd poll intervals and wrong answers', () => {
  for (const pollInterval of [1e-9, 1e12]) {
    it(`should poll no faster than every 25 ms when the server suggests ${pollInterval} ms`, async () => {
      const hostileServer = await hostile({ pollInterval, completeAtPoll: Infinity, taskId: 'steady' });
      const child = spawn(process.execPath, [CLI_PATH, 'call', hostileServer.url, 'task', '--poll', '50'], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise((resolve) => child.on('exit', resolve));
      // The polls of the first second after the task was made; then the CLI is killed.
      const created = await hostileServer.created;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const window = hostileServer.polls.filter((at) => at <= created + 1_000);
      const polls = window.length;
      // Each pause between two polls is at least the clamped 25 ms (a poll's round trip comes on top).
      const gaps = window.slice(1).map((at, i) => at - window[i]!);
      killPid(child.pid);
      await exited;
      expect(stderr).toMatch(/^task steady$/m);
      // Without the clamp: ~650 polls a second for both. 1e12 is clamped to 60 s: one poll at once, the next a minute away.
      if (pollInterval < 1) expect(polls).toBeGreaterThanOrEqual(2);
      expect(Math.min(...gaps), `gaps ${gaps.join(', ')} ms`).toBeGreaterThanOrEqual(24);
      expect(polls, `${polls} polls`).toBeLessThanOrEqual(pollInterval < 1 ? 1_000 / 25 + 1 : 1);
    });
  }

  it('should refuse an answer that names another task than the one asked', async () => {
    const { url } = await hostile({ taskId: 'mine', answerTaskId: 'someone-elses' });
    const run = await runCall([url, 'task', '--poll', '50']);
    expect(run.code, run.stderr).toBe(4);
    expect(run.stderr).toContain('tasks/get for task "mine" was answered with another task, "someone-elses": refused');
    expect(run.stdout).toBe('');
  });
});

describe('mcp-tasks call under a progress flood with a stopped stderr reader', () => {
  it('should write only the latest progress line while stderr is not drained', async () => {
    const count = 60_000;
    const hostileServer = await hostile({ flood: count });
    const child = spawn(process.execPath, [CLI_PATH, 'call', hostileServer.url, 'flood'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const timer = setTimeout(() => killPid(child.pid), 60_000);
    try {
      // Nobody reads stderr until the CLI has printed its result (so it read every report).
      child.stderr.pause();
      let stdout = '';
      const printed = new Promise<void>((resolve) =>
        child.stdout.on('data', (d: Buffer) => {
          stdout += d.toString();
          if (stdout.includes('result ')) resolve();
        }),
      );
      await Promise.all([hostileServer.flooded, printed]);
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.stderr.resume();
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(code, stderr.slice(-500)).toBe(0);
      const progressLines = stderr.split('\n').filter((l) => l.startsWith('progress: ')).length;
      // Without coalescing every one of the 60,000 is queued; with it, what the pipe took, then the latest.
      expect(progressLines, `${progressLines} progress lines, ${stderr.length} bytes`).toBeLessThan(count / 10);
      expect(stderr).toContain(`progress: ${count}/${count} — last of the flood`);
    } finally {
      clearTimeout(timer);
      killPid(child.pid);
    }
  }, 90_000);
});

describe('mcp-tasks call: HTTP errors and lost connections', () => {
  it('should name the status, the server message and --header for a 401', async () => {
    const { url } = await hostile({ refuse: 401 });
    const run = await runCall([url, 'task']);
    expect(run.code, run.stderr).toBe(4);
    expect(run.stderr).toContain(`mcp-tasks call: ${url} refused the request (HTTP 401): Unauthorized x\\x1b[2J`);
    expect(run.stderr).toContain('pass credentials with --header "Authorization: Bearer …"');
    expect(run.stderr).not.toMatch(/cannot reach|Error POSTing/);
  });

  for (const dialect of ['2025-11-25', '2026-07-28']) {
    it(`should say the connection was lost and how to fetch the task later when the server dies mid-task (${dialect})`, async () => {
      const real = await spawnHttpServer(['--poll-frequency', '100']);
      try {
        let killed = false;
        const run = await runCall([real.url, 'long_job', '{"seconds":30}', '--dialect', dialect, '--poll', '100'], {
          onStderr: (stderr) => {
            if (killed || !/^status: working/m.test(stderr)) return;
            killed = true;
            killPid(real.pid);
          },
        });
        expect(run.code, run.stderr).toBe(4);
        const id = /^task (\S+)$/m.exec(run.stderr)?.[1];
        expect(run.stderr).toContain(`mcp-tasks call: lost the connection to ${real.url} while following task ${id}; it may still run: fetch it later with: mcp-tasks tasks result ${id} --http ${real.url}`);
        expect(run.stderr).not.toContain('answered with an error: fetch failed');
      } finally {
        await real.close();
      }
    });
  }
});

describe.runIf(hasScript())('mcp-tasks call: a question on a terminal', () => {
  for (const dialect of ['2025-11-25', '2026-07-28']) {
    it(`should ask on its own line below the spinner and echo the typed answer (${dialect})`, async () => {
      const real = await spawnHttpServer(['--poll-frequency', '100']);
      try {
        let typed = false;
        const run = await runInPty(['call', real.url, 'ask_name', '--dialect', dialect, '--poll', '50'], {
          onScreen: (screen, type) => {
            if (typed || !/Name: $/.test(screen)) return;
            typed = true;
            // Typed after a few of the spinner's 100 ms redraws would have come (they wiped the prompt).
            setTimeout(() => type('Grace\r'), 350);
          },
        });
        expect(run.code, run.screen).toBe(0);
        // The question starts its own line (after a newline or the spinner's line cleared), the answer is on the prompt's line.
        expect(run.screen).toMatch(/(?:^|\n|\r\x1b\[2K)\? [^\r\n]*name[^\r\n]*\r\n {2}Name: Grace\r\n/i); // eslint-disable-line no-control-regex -- the clear-line sequence
        expect(run.screen).toContain('Hello, Grace');
      } finally {
        await real.close();
      }
    });
  }
});
