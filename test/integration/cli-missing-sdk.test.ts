/**
 * The `mcp-tasks` CLI with an SDK missing (both are optional peer dependencies): every help text
 * works with neither SDK, `serve --sdk v2` serves (HTTP and stdio, both eras) without SDK v1, and
 * a command whose SDK is missing fails with one line naming the package and the `npm install` that
 * adds it, exit code 2. A Node resolve hook makes the package unresolvable, as an install without
 * it would (see test/integration/packaging.test.ts).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { assertCliBuilt, CLI_PATH, killChild, REPO_ROOT, trackChild } from './harness/process.js';

const V1 = '@modelcontextprotocol/sdk';
const V2 = '@modelcontextprotocol/server';
const PROMETHEUS = '@opentelemetry/exporter-prometheus';
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'cli-missing-sdk', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
};

const dir = mkdtempSync(join(tmpdir(), 'cli-peer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `--import` arguments that make the given packages (and their subpaths) unresolvable. */
function without(...peers: string[]): string[] {
  const name = peers.map((p) => p.replace(/\W/g, '_')).join('-');
  writeFileSync(
    join(dir, `${name}.hook.mjs`),
    `const peers = ${JSON.stringify(peers)};\n` +
      `export async function resolve(s, c, next) { if (peers.some((p) => s === p || s.startsWith(p + '/'))) { const e = new Error("Cannot find package '" + s + "' imported from " + c.parentURL); e.code = 'ERR_MODULE_NOT_FOUND'; throw e; } return next(s, c); }\n`,
  );
  writeFileSync(join(dir, `${name}.mjs`), `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, `${name}.hook.mjs`)).href)});\n`);
  return ['--import', pathToFileURL(join(dir, `${name}.mjs`)).href];
}

/** Runs the CLI to its end (stdin closed at once). */
function run(nodeArgs: string[], args: string[]) {
  assertCliBuilt();
  const r = spawnSync(process.execPath, [...nodeArgs, CLI_PATH, ...args], { cwd: REPO_ROOT, encoding: 'utf8', input: '', timeout: 15_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Starts the CLI and keeps it running; stdout and stderr are collected. */
function start(nodeArgs: string[], args: string[]) {
  assertCliBuilt();
  const child = spawn(process.execPath, [...nodeArgs, CLI_PATH, ...args], { cwd: REPO_ROOT });
  trackChild(child);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const until = async <T>(found: () => T | undefined, what: string): Promise<T> => {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const value = found();
      if (value !== undefined) return value;
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`no ${what} (exit ${String(child.exitCode)}); stderr:\n${stderr.slice(-2000)}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  return { child, until, stdout: () => stdout, stderr: () => stderr, close: () => killChild(child) };
}

/** The JSON-RPC message answering `id` in a JSON or SSE response body. */
async function answerOf(res: Response, id: unknown): Promise<{ result?: Record<string, unknown>; error?: unknown }> {
  const text = await res.text();
  const bodies = (res.headers.get('content-type') ?? '').includes('text/event-stream')
    ? text.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim())
    : [text];
  const found = bodies.map((b) => JSON.parse(b) as { id?: unknown; result?: Record<string, unknown>; error?: unknown }).find((m) => m.id === id);
  if (!found) throw new Error(`no answer to ${String(id)} in ${res.status} ${text.slice(0, 500)}`);
  return found;
}

/** The one stderr line a missing SDK gives: the command, the package, the install. */
function expectMissing(r: { status: number | null; stderr: string }, command: string, peer: string): void {
  expect(r.status).toBe(2);
  const lines = r.stderr.trim().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  // One human sentence, not a JSON log line.
  const msg = lines[0]!;
  expect(msg.startsWith('mcp-tasks: ')).toBe(true);
  expect(msg).toContain(`${command} needs ${peer} `);
  expect(msg).toContain(`npm install ${peer}@'`);
  expect(msg).not.toContain('ERR_MODULE_NOT_FOUND');
}

describe('mcp-tasks without an SDK', () => {
  it.each(['--help', 'help serve', 'help call', 'help status', 'help diagram', 'serve --help', 'call --help'])(
    'should show `mcp-tasks %s` with neither SDK installed',
    (args) => {
      const r = run(without(V1, V2), args.split(' '));
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(/^Usage: mcp-tasks /);
    },
  );

  it('should serve --sdk v2 --http 0 without SDK v1, on 2025-11-25 and 2026-07-28', async () => {
    const server = start(without(V1), ['serve', '--sdk', 'v2', '--http', '0', '--audit', 'off']);
    try {
      const url = await server.until(() => /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(server.stderr())?.[0], 'URL on stderr');
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      const init = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }) });
      expect((await answerOf(init, 1)).result).toMatchObject({ protocolVersion: '2025-11-25', capabilities: { tasks: expect.anything() as unknown } });
      const session = { ...headers, 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
      await fetch(url, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
      const call = await fetch(url, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'sleep', arguments: { ms: 10 }, task: {} } }) });
      expect((await answerOf(call, 2)).result).toMatchObject({ task: { status: 'working' } });

      const modern = { ...headers, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' };
      const discover = await fetch(url, { method: 'POST', headers: modern, body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'server/discover', params: { _meta: ENVELOPE } }) });
      expect((await answerOf(discover, 3)).result?.['capabilities']).toMatchObject({ extensions: { 'io.modelcontextprotocol/tasks': {} } });
      expect(server.stderr()).not.toMatch(/"level":"(error|warn)"/);
    } finally {
      await server.close();
    }
  }, 30_000);

  it('should serve --sdk v2 --stdio without SDK v1', async () => {
    const server = start(without(V1), ['serve', '--sdk', 'v2', '--stdio', '--audit', 'off']);
    try {
      const answer = (id: string) => server.until(() => server.stdout().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { id?: unknown; result?: Record<string, unknown> }).find((m) => m.id === id), `answer to ${id}`);
      server.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 'discover', method: 'server/discover', params: { _meta: ENVELOPE } })}\n`);
      expect((await answer('discover')).result?.['capabilities']).toMatchObject({ extensions: { 'io.modelcontextprotocol/tasks': {} } });
      server.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 'call', method: 'tools/call', params: { name: 'sleep', arguments: { ms: 10 }, _meta: ENVELOPE } })}\n`);
      expect((await answer('call')).result).toMatchObject({ resultType: 'task' });
    } finally {
      await server.close();
    }
  }, 30_000);

  it.each([
    ['serve --http 0', 'mcp-tasks serve', V1],
    ['serve --stdio', 'mcp-tasks serve', V1],
    ['call http://127.0.0.1:9/mcp sleep', 'mcp-tasks call', V1],
    ['serve --sdk v2 --http 0', 'mcp-tasks serve --sdk v2', V2],
    ['serve --http 0 --metrics-port 0', 'mcp-tasks serve --metrics-port', PROMETHEUS],
    // Before the runtime (and its NATS connection) is made: no server answers there.
    ['serve --nats nats://127.0.0.1:9 --role worker --metrics-port 0', 'mcp-tasks serve --metrics-port', PROMETHEUS],
  ])('should refuse `mcp-tasks %s` without %s\'s SDK (%s) in one line naming the package and its install, exit code 2', (args, command, missing) => {
    expectMissing(run(without(missing), args.split(' ')), command, missing);
  });
});
