/**
 * How `mcp-tasks status` prints a task space's status as tables, whichever way it was read
 * (`--nats`: from the buckets; `--http`: from a server's status endpoint).
 *
 * @module
 */
import type { ClusterStatus, NodeStatus } from '../../runtime/cluster-status.types.js';
import { securityLines } from './security-lines.js';

/** A worker's (or `both` node's) handlers; a front runs none of its own. */
function serves(n: NodeStatus): string[] {
  return n.role === 'front' ? [] : [`    serves ${n.handlers.length === 0 ? '(nothing yet)' : n.handlers.join(', ')}`];
}

/**
 * The text lines of `report`: nodes, leases, resumable tasks, tasks by status; `(none)` under an
 * empty heading, so every heading is always there.
 *
 * @example
 * ```ts
 * process.stdout.write(`${statusLines(report).join('\n')}\n`);
 * ```
 */
export function statusLines(report: ClusterStatus): string[] {
  const { nodes, leases, durable, counts } = report;
  const lines = ['Nodes:', ...nodes.flatMap((n) => [`  ${n.nodeId}  ${n.role.padEnd(6)}  ${n.up ? (n.draining ? 'draining' : 'up') : 'down'}  last seen ${new Date(n.lastSeen).toISOString()}  tasks run ${n.tasksRun}  running ${n.running}`, ...serves(n), ...securityLines(n.security)])];
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
  return lines;
}
