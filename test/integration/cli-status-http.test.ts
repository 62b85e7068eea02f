/**
 * `mcp-tasks status --http URL` against a real `serve --http 0` on the memory backend, with SDK v1
 * and with `--sdk v2`: the server's `GET /status` shows its one node and its tasks by status, as
 * JSON and as tables; the endpoint is behind the Host guard and, when configured, the operator
 * token (which a requester's token never replaces); a server that cannot be reached is one
 * sentence naming the URL and exit 4.
 */
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollUntil, runCli } from './harness/cluster.js';
import { freePort } from './harness/nats-server.js';
import { CLI_PATH, REPO_ROOT, killPid, spawnHttpServer, trackChild, type HttpServerProcess } from './harness/process.js';

/** `status --http URL --json` parsed; fails the test with the CLI's output otherwise. */
async function statusJson(url: string, ...flags: string[]): Promise<any> {
  const run = await runCli(['status', '--http', url, '--json', ...flags]);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout);
}

/** A plain GET of `path` with `headers` (a Host of our choosing: fetch would not send one). */
function get(base: string, path: string, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: 'GET', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Starts `call URL long_job …` and resolves once it says the task is working; `stop()` cancels it (Ctrl-C). */
async function startLongJob(url: string): Promise<{ stop: () => Promise<number | null> }> {
  const child = spawn(process.execPath, [CLI_PATH, 'call', url, 'long_job', '{"seconds":30}', '--dialect', '2025-11-25', '--poll', '50'], { cwd: REPO_ROOT });
  trackChild(child);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let stdout = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`long_job never said working: ${stdout}`)), 15_000);
    // Without a terminal, call's status lines go to stderr (stdout holds only the result).
    child.stderr.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (/status: working/.test(stdout)) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  return {
    stop: async () => {
      killPid(child.pid, 'SIGINT');
      return exited;
    },
  };
}

for (const sdk of ['v1', 'v2'] as const) {
  describe(`mcp-tasks status --http on the memory backend (SDK ${sdk})`, () => {
    let server: HttpServerProcess;
    beforeAll(async () => {
      server = await spawnHttpServer(['--poll-frequency', '100', ...(sdk === 'v2' ? ['--sdk', 'v2'] : [])]);
    });
    afterAll(async () => {
      await server.close();
    });

    it('should show the one node and its tasks by status, from the MCP URL or the server URL', async () => {
      const before = await statusJson(server.url);
      expect(before.counts).toEqual({});
      for (const [tool, args, code] of [['sleep', '{"ms":20}', 0], ['fail', '{"message":"no"}', 1]] as const) {
        const run = await runCli(['call', server.url, tool, args, '--dialect', '2025-11-25', '--poll', '50']);
        expect(run.code, run.stderr).toBe(code);
      }
      const job = await startLongJob(server.url);
      const running = await statusJson(server.url.replace(/\/mcp$/, ''));
      expect(running.counts).toEqual({ completed: 1, failed: 1, working: 1 });
      expect(running.leases).toEqual([]);
      expect(running.nodes).toHaveLength(1);
      expect(running.nodes[0]).toMatchObject({ role: 'both', pid: server.pid, up: true, tasksRun: 3, running: 1 });
      expect(running.nodes[0].handlers).toContain('tools/call:long_job');
      // The audit is on by default: the node's counters of suspicious requesters are there.
      expect(running.nodes[0].security).toMatchObject({ enabled: true });

      expect(await job.stop()).toBe(130);
      const after = await pollUntil('the cancelled job counted', () => statusJson(server.url), (s) => s.counts.cancelled === 1);
      expect(after.counts).toEqual({ completed: 1, failed: 1, cancelled: 1 });
      expect(after.nodes[0].running).toBe(0);

      const tables = await runCli(['status', '--http', server.url]);
      expect(tables.code, tables.stderr).toBe(0);
      expect(tables.stdout).toMatch(new RegExp(`^  ${after.nodes[0].nodeId}  both    up  last seen \\S+  tasks run 3  running 0$`, 'm'));
      expect(tables.stdout).toMatch(/^Tasks by status:\n(?: {2}\S+ +\d+\n)* {2}completed +1\n/m);
      expect(tables.stdout).toMatch(/^ {2}cancelled +1$/m);
      expect(tables.stdout).toMatch(/^Leases:\n {2}\(none\)$/m);
      // Six CLI processes in a row: each starts Node, which a loaded machine makes slow.
    }, 60_000);

    it('should refuse a request under a foreign Host name (DNS rebinding)', async () => {
      const refused = await get(server.url, '/status', { host: 'evil.example' });
      expect(refused.status).toBe(403);
      expect(refused.body.error).toContain("Host 'evil.example' is not allowed");
      expect((await get(server.url, '/status', { host: 'localhost' })).status).toBe(200);
    });
  });
}

describe('the status endpoint with requester tokens', () => {
  const OPERATOR = 'op-secret-1';
  const REQUESTER = 'req-secret-1';
  let guarded: HttpServerProcess;
  let unconfigured: HttpServerProcess;
  beforeAll(async () => {
    [guarded, unconfigured] = await Promise.all([
      spawnHttpServer(['--auth-token', `${REQUESTER}=alice`, '--operator-token', OPERATOR]),
      spawnHttpServer(['--auth-token', `${REQUESTER}=alice`]),
    ]);
  });
  afterAll(async () => {
    await Promise.all([guarded.close(), unconfigured.close()]);
  });

  it('should answer only the operator token: none and a requester token get 401, exit 4', async () => {
    const statusUrl = guarded.url.replace(/\/mcp$/, '/status');
    const none = await runCli(['status', '--http', guarded.url]);
    expect(none.code).toBe(4);
    expect(none.stderr).toMatch(new RegExp(`^mcp-tasks status: ${statusUrl} refused \\(HTTP 401\\): Unauthorized: .*--operator-token`));
    expect(none.stderr.trim().split('\n')).toHaveLength(1);
    expect(none.stdout).toBe('');
    const requester = await runCli(['status', '--http', guarded.url, '--header', `Authorization: Bearer ${REQUESTER}`]);
    expect(requester.code).toBe(4);
    expect(requester.stderr).toContain('refused (HTTP 401)');
    const wrong = await runCli(['status', '--http', guarded.url, '--operator-token', REQUESTER]);
    expect(wrong.code).toBe(4);
    const operator = await statusJson(guarded.url, '--operator-token', OPERATOR);
    expect(operator.nodes[0]).toMatchObject({ role: 'both', pid: guarded.pid });
  });

  it('should refuse every request with 403 naming --operator-token when none is configured', async () => {
    const refused = await get(unconfigured.url, '/status', { host: new URL(unconfigured.url).host, authorization: `Bearer ${REQUESTER}` });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ flag: '--operator-token' });
    expect(refused.body.error).toContain('--operator-token TOKEN');
    const run = await runCli(['status', '--http', unconfigured.url]);
    expect(run.code).toBe(4);
    expect(run.stderr).toContain('refused (HTTP 403)');
  });

  it('should leave the MCP endpoint to requesters: the operator token is not a requester token', async () => {
    const mcp = await get(guarded.url, '/mcp', { host: new URL(guarded.url).host, authorization: `Bearer ${OPERATOR}` });
    expect(mcp.status).toBe(401);
  });
});

describe('mcp-tasks status usage and unreachable servers', () => {
  it('should say in one sentence that a server cannot be reached, naming the URL, and exit 4', async () => {
    const port = await freePort();
    const run = await runCli(['status', '--http', `http://127.0.0.1:${port}/mcp`]);
    expect(run.code).toBe(4);
    expect(run.stderr.trim()).toBe(`mcp-tasks status: cannot reach http://127.0.0.1:${port}/status: connection refused (is the server running?)`);
    expect(run.stdout).toBe('');
  });

  it('should exit 2 with its usage for neither or both of --nats and --http', async () => {
    const neither = await runCli(['status']);
    expect(neither.code).toBe(2);
    expect(neither.stderr).toContain('status needs --nats URL');
    expect(neither.stderr).toContain('Usage: mcp-tasks status');
    const both = await runCli(['status', '--http', 'http://127.0.0.1:1', '--nats', 'nats://127.0.0.1:1']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('not both');
  });
});
