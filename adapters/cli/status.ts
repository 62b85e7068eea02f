/**
 * `mcp-tasks status --nats URL`: what a NATS task space looks like now: its nodes and roles,
 * the leases of running tasks, and how many tasks are in each status.
 *
 * @module
 */
import { parseArgs } from 'node:util';
import { connectNats } from '../../runtime/backends/nats/connection.js';
import { isTerminalStatus } from '../../machines/index.js';
import { isExpired, LeaseManager } from '../../runtime/backends/nats/leases.js';
import { HEARTBEAT_MS, listNodes, openNodeBucket } from '../../runtime/backends/nats/node-registry.js';
import { RecordStore } from '../../runtime/backends/nats/record-store.js';
import { NATS_FLAG_SPECS, NATS_FLAGS_HELP, natsSettings } from './nats-flags.js';
import type { SecurityReport } from '../../runtime/index.js';
import { securityLines } from './security-lines.js';

/** Help text of `mcp-tasks status`. */
export const STATUS_HELP = `Usage: mcp-tasks status --nats URL [--json] [options]

Prints the nodes of a NATS task space (role, last heartbeat, tasks run, counters of suspicious
requesters: failed look-ups, polls faster than suggested, limit refusals, the worst sessions), the
leases of running tasks (which node runs what, until when) and the number of tasks in each status.

  --json                     print one JSON object instead of tables

${NATS_FLAGS_HELP}
  -h, --help                 show this help
`;

/** What `status` reports. */
export interface ClusterStatus {
  readonly nodes: { nodeId: string; role: string; host: string; pid: number; lastSeen: number; up: boolean; tasksRun: number; running: number; security: SecurityReport | null; handlers: readonly string[] }[];
  readonly leases: { taskKey: string; nodeId: string; expiresAt: number; expired: boolean }[];
  readonly counts: Record<string, number>;
  /**
   * Live tasks run more than once or with a checkpoint kept: which attempt, on which node, from
   * which checkpoint (a durable task resumed after its worker was lost shows here).
   */
  readonly durable: { taskKey: string; taskId: string; status: string; attempt: number; node: string | null; checkpoint: { seq: number; label: string | null; at: number } | null }[];
}

/**
 * Runs `status`; resolves with the exit code.
 *
 * @param argv - arguments after `status`
 * @example
 * ```ts
 * process.exitCode = await status(['--nats', 'nats://127.0.0.1:4222', '--json']);
 * ```
 */
export async function status(argv: readonly string[]): Promise<number> {
  const { values } = parseArgs({ args: [...argv], options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' }, ...NATS_FLAG_SPECS }, strict: true });
  if (values.help) {
    process.stdout.write(STATUS_HELP);
    return 0;
  }
  const nats = natsSettings(values, process.env);
  if (!nats) throw new Error('status needs --nats URL (or MCP_TASKS_NATS_URL)');
  const nc = await connectNats({ ...nats.connection, name: 'mcp-tasks status' });
  try {
    const layout = { prefix: nats.prefix, replicas: nats.replicas, storage: 'file' as const };
    const now = Date.now();
    const nodes = (await listNodes(await openNodeBucket(nc, layout))).map((n) => ({
      nodeId: n.nodeId, role: n.role, host: n.host, pid: n.pid, lastSeen: n.lastSeen, up: now - n.lastSeen < 3 * HEARTBEAT_MS, tasksRun: n.tasksRun, running: n.running, security: n.security ?? null,
      // The handlers a worker announces (a front tells from them a task no live worker serves).
      handlers: n.handlers ?? [],
    }));
    const leases = (await (await LeaseManager.open(nc, { bucketPrefix: nats.prefix, replicas: nats.replicas })).list()).map((l) => ({ ...l, expired: isExpired(l, now) }));
    const store = await RecordStore.open(nc, layout, 'status');
    const counts: Record<string, number> = {};
    const durable: ClusterStatus['durable'] = [];
    for (const key of await store.keys()) {
      const read = await store.read(key);
      if (!read || !('found' in read)) continue;
      const r = read.found.record;
      counts[r.status] = (counts[r.status] ?? 0) + 1;
      const c = r.checkpoint;
      if (!isTerminalStatus(r.status) && (r.attempts > 1 || c)) {
        durable.push({ taskKey: key, taskId: r.context.taskId, status: r.status, attempt: r.attempts, node: r.node, checkpoint: c ? { seq: c.seq, label: c.label, at: c.at } : null });
      }
    }
    const report: ClusterStatus = { nodes, leases, counts, durable };
    if (values.json) {
      process.stdout.write(`${JSON.stringify(report)}\n`);
      return 0;
    }
    const serves = (n: (typeof nodes)[number]): string[] => (n.role === 'front' ? [] : [`    serves ${n.handlers.length === 0 ? '(nothing yet)' : n.handlers.join(', ')}`]);
    const lines = ['Nodes:', ...nodes.flatMap((n) => [`  ${n.nodeId}  ${n.role.padEnd(6)}  ${n.up ? 'up' : 'down'}  last seen ${new Date(n.lastSeen).toISOString()}  tasks run ${n.tasksRun}  running ${n.running}`, ...serves(n), ...securityLines(n.security)])];
    if (nodes.length === 0) lines.push('  (none)');
    lines.push('Leases:', ...leases.map((l) => `  ${l.taskKey}  ${l.nodeId}  ${l.expired ? 'EXPIRED' : `until ${new Date(l.expiresAt).toISOString()}`}`));
    if (leases.length === 0) lines.push('  (none)');
    lines.push(
      'Resumable tasks (attempt, node, last checkpoint):',
      ...durable.map((d) => `  ${d.taskId}  ${d.status}  attempt ${d.attempt} on ${d.node ?? '-'}  ${d.checkpoint ? `checkpoint ${d.checkpoint.seq}${d.checkpoint.label === null ? '' : ` (${d.checkpoint.label})`} at ${new Date(d.checkpoint.at).toISOString()}` : 'no checkpoint'}`),
    );
    if (durable.length === 0) lines.push('  (none)');
    lines.push('Tasks by status:', ...Object.entries(counts).map(([s, n]) => `  ${s.padEnd(15)} ${n}`));
    if (Object.keys(counts).length === 0) lines.push('  (none)');
    process.stdout.write(`${lines.join('\n')}\n`);
    return 0;
  } finally {
    await nc.close();
  }
}
