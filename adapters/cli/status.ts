/**
 * `mcp-tasks status --nats URL`: what a NATS task space looks like now: its nodes and roles,
 * the leases of running tasks, and how many tasks are in each status.
 *
 * @module
 */
import { parseArgs } from 'node:util';
import { connectNats } from '../../runtime/backends/nats/connection.js';
import { clusterStatusReader } from '../../runtime/backends/nats/cluster-status.js';
import { NATS_FLAG_SPECS, NATS_FLAGS_HELP, natsSettings } from './nats-flags.js';
import { statusLines } from './status-lines.js';

/** Help text of `mcp-tasks status`. */
export const STATUS_HELP = `Usage: mcp-tasks status --nats URL [--json] [options]

Prints the nodes of a NATS task space (role, last heartbeat, tasks run, counters of suspicious
requesters: failed look-ups, polls faster than suggested, limit refusals, the worst sessions), the
leases of running tasks (which node runs what, until when) and the number of tasks in each status.

  --json                     print one JSON object instead of tables

${NATS_FLAGS_HELP}
  -h, --help                 show this help
`;

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
    const report = await clusterStatusReader(nc, { prefix: nats.prefix, replicas: nats.replicas }).read();
    process.stdout.write(values.json ? `${JSON.stringify(report)}\n` : `${statusLines(report).join('\n')}\n`);
    return 0;
  } finally {
    await nc.close();
  }
}
