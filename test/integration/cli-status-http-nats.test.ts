/**
 * `mcp-tasks status --http URL` against a NATS-backed `serve --http 0`: the server answers for
 * its whole task space, the same report `mcp-tasks status --nats URL` reads from the buckets.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollUntil, runCli } from './harness/cluster.js';
import { startNatsServer, type NatsServer } from './harness/nats-server.js';
import { killChild, spawnHttpServer, spawnServe, type CliProcess, type HttpServerProcess } from './harness/process.js';

const PREFIX = 'statushttp';

/** `status … --json` parsed; fails the test with the CLI's output otherwise. */
async function statusJson(args: string[]): Promise<any> {
  const run = await runCli(['status', ...args, '--json']);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout);
}

/** What both reads must agree on (heartbeat times and counters move between two reads). */
function comparable(report: any): unknown {
  return {
    nodes: report.nodes.map((n: any) => ({ nodeId: n.nodeId, role: n.role, pid: n.pid, handlers: n.handlers })),
    leases: report.leases,
    counts: report.counts,
    durable: report.durable,
  };
}

describe('mcp-tasks status --http on a NATS-backed server', () => {
  let nats: NatsServer;
  let server: HttpServerProcess;
  let worker: CliProcess;
  beforeAll(async () => {
    nats = await startNatsServer();
    server = await spawnHttpServer(['--nats', nats.url, '--nats-prefix', PREFIX, '--poll-frequency', '100']);
    // A node the server does not run: the report must show it too.
    worker = spawnServe(['--nats', nats.url, '--nats-prefix', PREFIX, '--role', 'worker', '--node-id', 'status-worker']);
  });
  afterAll(async () => {
    if (worker) await killChild(worker.child);
    await server?.close();
    await nats?.stop();
  });

  it('should show what status --nats shows: the cluster, not only this node', async () => {
    for (const [tool, args, code] of [['sleep', '{"ms":20}', 0], ['fail', '{"message":"no"}', 1]] as const) {
      const run = await runCli(['call', server.url, tool, args, '--dialect', '2025-11-25', '--poll', '50']);
      expect(run.code, run.stderr).toBe(code);
    }
    const overHttp = await pollUntil(
      'both tasks and both nodes in the report',
      () => statusJson(['--http', server.url]),
      (s) => s.counts.completed === 1 && s.counts.failed === 1 && s.nodes.length === 2,
      { diagnostics: () => worker.tail.toString() },
    );
    const direct = await statusJson(['--nats', nats.url, '--nats-prefix', PREFIX]);
    expect(comparable(overHttp)).toEqual(comparable(direct));
    const byRole = Object.fromEntries(overHttp.nodes.map((n: any) => [n.role, n]));
    expect(byRole.both).toMatchObject({ pid: server.pid, up: true });
    expect(byRole.worker).toMatchObject({ nodeId: 'status-worker', pid: worker.child.pid, up: true });
    expect(byRole.worker.handlers).toContain('tools/call:sleep');
  });
});
