/**
 * docs/operations.md's "A deployment to copy", run as written: the env file and the ExecStart lines
 * of its three systemd units are read from the page, `%i` filled in as systemd would, and started
 * as processes — a 3-server NATS cluster, two fronts and a worker — with only what a test must
 * change: every port moved to a free one (the same mapping everywhere), the store dirs to a
 * temporary dir, and the two binaries to this machine's. The OTLP endpoint of the env file is a
 * receiver this test runs. Then: every node ready, a task through the second front runs on the
 * worker, its metrics are scraped, spans reach the collector, and the worker drains on SIGTERM
 * and exits 0.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollUntil, runCli } from './harness/cluster.js';
import { freePort } from './harness/nats-server.js';
import { startReceiver } from './harness/otlp-receiver.js';
import { CLI_PATH, killPid, REPO_ROOT, TailBuffer, trackChild } from './harness/process.js';
import { scrape, total } from './harness/prometheus.js';

const page = readFileSync(path.join(REPO_ROOT, 'docs', 'operations.md'), 'utf8');
const section = page.slice(page.indexOf('## A deployment to copy'), page.indexOf('\n## ', page.indexOf('## A deployment to copy') + 5));

/** The fenced block that follows `marker` in the section. */
function blockAfter(marker: string): string {
  const at = section.indexOf(marker);
  if (at < 0) throw new Error(`docs/operations.md's deployment has no ${marker}`);
  const m = /```\w*\n([\s\S]*?)```/.exec(section.slice(at));
  return m![1]!;
}

/** A unit's ExecStart, continuation lines joined, `%i` filled in, split into words. */
function execStart(unit: string, instance: number): string[] {
  const line = /^ExecStart=((?:.*\\\n)*.*)$/m.exec(blockAfter(unit))![1]!;
  return line.replace(/\\\n\s*/g, ' ').replaceAll('%i', String(instance)).trim().split(/\s+/);
}

const env = Object.fromEntries(
  blockAfter('/etc/mcp-tasks/env')
    .split('\n')
    .filter((l) => /^\w+=/.test(l))
    .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
);

/** Every 4-digit port of the page mapped to a free one, the same everywhere. */
const ports = new Map<string, number>();
const moved = (text: string): string => text.replace(/(?<=[:\s=]|^)(\d{4})(?=$|[,/\s])/g, (p) => String(ports.get(p) ?? p));

describe("docs/operations.md's deployment, as written", () => {
  const children: { label: string; child: ChildProcessWithoutNullStreams; tail: TailBuffer }[] = [];
  const dir = mkdtempSync(path.join(tmpdir(), 'ops-deploy-'));
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const run = (label: string, argv: readonly string[]): { child: ChildProcessWithoutNullStreams; tail: TailBuffer } => {
    const [bin, ...args] = argv.map(moved);
    const command = bin === '/usr/local/bin/mcp-tasks' ? process.execPath : bin!.endsWith('nats-server') ? 'nats-server' : bin!;
    const child = spawn(command, bin === '/usr/local/bin/mcp-tasks' ? [CLI_PATH, ...args] : args.map((a) => a.replace('/var/lib/nats', dir)), {
      env: { ...process.env, PATH: `${process.env['PATH'] ?? ''}:/usr/sbin`, ...Object.fromEntries(Object.entries(env).map(([k, v]) => [k, moved(v)])) },
    });
    trackChild(child);
    const tail = new TailBuffer();
    child.stdout.on('data', (d: Buffer) => tail.append(d.toString()));
    child.stderr.on('data', (d: Buffer) => tail.append(d.toString()));
    children.push({ label, child, tail });
    return { child, tail };
  };
  const logs = (): string => children.map((c) => `--- ${c.label} (exit ${c.child.exitCode ?? '-'}) ---\n${c.tail.toString().slice(-1_500)}`).join('\n');
  const ready = (port: string): Promise<unknown> =>
    pollUntil(`/readyz on ${port}`, () => fetch(`http://127.0.0.1:${ports.get(port)}/readyz`).then((r) => r.status).catch(() => 0), (s) => s === 200, { timeoutMs: 30_000, diagnostics: logs });

  beforeAll(async () => {
    const units: [string, string[]][] = [
      ...[1, 2, 3].map((i): [string, string[]] => [`nats ${i}`, execStart('nats@.service', i)]),
      ...[1, 2].map((i): [string, string[]] => [`front ${i}`, execStart('mcp-tasks-front@.service', i)]),
      ['worker 1', execStart('mcp-tasks-worker@.service', 1)],
    ];
    const written = [...units.flatMap(([, argv]) => argv), ...Object.values(env)].join(' ');
    for (const p of new Set(written.match(/(?<=[:\s=]|^)\d{4}(?=$|[,/\s])/g) ?? [])) ports.set(p, await freePort());
    receiver = await startReceiver(ports.get('4318'));
    for (const [label, argv] of units) run(label, argv);
    await Promise.all(['3001', '3002', '8081'].map(ready));
  }, 90_000);

  afterAll(async () => {
    for (const { child } of children.reverse()) killPid(child.pid, 'SIGKILL');
    await receiver?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('should run a task through the second front on the worker, with metrics and spans, and drain the worker on SIGTERM', async () => {
    const [token] = env['MCP_TASKS_AUTH_TOKENS']!.split('=');
    const call = await runCli(['call', `http://127.0.0.1:${ports.get('3002')}/mcp`, 'sleep', '{"ms":50}', '--header', `Authorization: Bearer ${token}`, '--json'], 30_000);
    expect(call.code, `${call.stderr}\n${logs()}`).toBe(0);
    expect(call.stdout).toContain('slept 50 ms');

    const worker = await scrape(`http://127.0.0.1:${ports.get('9201')}/metrics`);
    expect(total(worker, 'mcp_task_actors_task_ended_total', { mcp_task_actors_task_status: 'completed' })).toBe(1);
    const front = await scrape(`http://127.0.0.1:${ports.get('9102')}/metrics`);
    expect(total(front, 'mcp_task_actors_task_created_total')).toBe(1);
    await pollUntil('spans at the collector', () => Promise.resolve(receiver.posts.get('/v1/traces') ?? 0), (n) => n > 0, { timeoutMs: 15_000, diagnostics: logs });

    const workerChild = children.find((c) => c.label === 'worker 1')!.child;
    const exited = new Promise<number | null>((resolve) => workerChild.once('exit', (code) => resolve(code)));
    killPid(workerChild.pid, 'SIGTERM');
    expect(await exited, logs()).toBe(0);
  }, 60_000);
});
