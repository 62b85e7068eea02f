/**
 * `mcp-tasks status`: what a task space looks like now: its nodes and roles, the leases of
 * running tasks, how many tasks are in each status, and the resumable ones. Read from a NATS task
 * space directly (`--nats URL`), or from a server's status endpoint (`--http URL`: `GET /status`
 * of `mcp-tasks serve --http`, on any backend).
 *
 * @module
 */
import { parseArgs } from 'node:util';
import type { NatsConnection } from '@nats-io/transport-node';
import { connectNats } from '../../runtime/backends/nats/connection.js';
import { clusterStatusReader } from '../../runtime/backends/nats/cluster-status.js';
import type { ClusterStatus } from '../../runtime/cluster-status.types.js';
import { NATS_FLAG_SPECS, NATS_FLAGS_HELP, natsSettings, type NatsSettings } from './nats-flags.js';
import { fetchStatus, requestHeaders, statusUrl } from './status-http.js';
import { statusLines } from './status-lines.js';
import { safeJson, safeLine } from './terminal-safe.js';

/** Help text of `mcp-tasks status`. */
export const STATUS_HELP = `Usage: mcp-tasks status --nats URL [--json] [options]
       mcp-tasks status --http URL [--operator-token TOKEN] [--header 'NAME: VALUE']... [--json]

Prints the nodes of a task space (role, last heartbeat, tasks run, counters of suspicious
requesters: failed look-ups, polls faster than suggested, limit refusals, the worst sessions), the
leases of running tasks (which node runs what, until when) and the number of tasks in each status.

Source (one of):
  --nats URL                 read a NATS task space directly (the NATS flags below)
  --http URL                 ask a server: GET /status of mcp-tasks serve --http, on any backend (on
                             NATS it answers for the whole cluster); URL is the server's, e.g.
                             http://127.0.0.1:3000, or its MCP URL http://127.0.0.1:3000/mcp
  --operator-token TOKEN     with --http: send 'Authorization: Bearer TOKEN', the token the server was
                             started with (--operator-token) [MCP_TASKS_OPERATOR_TOKEN]
  --header 'NAME: VALUE'     with --http: send this header too (repeatable), e.g. for a proxy

  --json                     print one JSON object instead of tables

Exit codes: 0 printed; 2 bad usage (neither or both of --nats and --http); 4 the server or NATS could
not be reached, or refused (401, 403).

${NATS_FLAGS_HELP}
  -h, --help                 show this help
`;

/** The exit codes of `status`. */
const EXIT = { ok: 0, usage: 2, transport: 4 } as const;

/** The report of a NATS task space, or the sentence that says why it could not be read. */
async function fromNats(nats: NatsSettings): Promise<{ readonly report: ClusterStatus } | { readonly failure: string }> {
  let nc: NatsConnection;
  try {
    nc = await connectNats({ ...nats.connection, name: 'mcp-tasks status' });
  } catch (error) {
    // "NATS unavailable at nats://…: …" names the servers and what went wrong.
    return { failure: error instanceof Error ? error.message : String(error) };
  }
  try {
    return { report: await clusterStatusReader(nc, { prefix: nats.prefix, replicas: nats.replicas }).read() };
  } finally {
    await nc.close();
  }
}

/**
 * Runs `status`; resolves with the exit code.
 *
 * @param argv - arguments after `status`
 * @throws Error for bad usage (the command line exits 2 with its message)
 * @example
 * ```ts
 * process.exitCode = await status(['--http', 'http://127.0.0.1:3000', '--json']);
 * ```
 */
export async function status(argv: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      json: { type: 'boolean' },
      http: { type: 'string' },
      'operator-token': { type: 'string' },
      header: { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
      ...NATS_FLAG_SPECS,
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(STATUS_HELP);
    return EXIT.ok;
  }
  const usage = STATUS_HELP.split('\n').slice(0, 2).join('\n');
  if (values.http !== undefined && values.nats !== undefined) throw new Error(`status reads one source: --nats URL or --http URL, not both.\n${usage}`);
  let read;
  if (values.http !== undefined) {
    const url = statusUrl(values.http);
    read = await fetchStatus(url, requestHeaders(values.header ?? [], values['operator-token'] ?? process.env['MCP_TASKS_OPERATOR_TOKEN']));
  } else {
    if (values.header !== undefined || values['operator-token'] !== undefined) throw new Error('--header and --operator-token need --http URL');
    const nats = natsSettings(values, process.env);
    if (!nats) throw new Error(`status needs --nats URL (or MCP_TASKS_NATS_URL) or --http URL.\n${usage}`);
    read = await fromNats(nats);
  }
  if ('failure' in read) {
    // The failure quotes what the server (or NATS) said: one safe line.
    process.stderr.write(`mcp-tasks status: ${safeLine(read.failure)}\n`);
    return EXIT.transport;
  }
  // Node ids, handler names, task keys come from the server (or the buckets): each line made safe.
  process.stdout.write(values.json ? `${safeJson(read.report)}\n` : `${statusLines(read.report).map(safeLine).join('\n')}\n`);
  return EXIT.ok;
}
