/**
 * `mcp-tasks serve`: the demo server over stdio or Streamable HTTP, on the embedded (in-memory)
 * backend, or as one node of a NATS cluster (front, worker or both).
 *
 * @module
 */
import { parseArgs } from 'node:util';
import { createNatsTaskRuntime } from '../../runtime/backends/nats/nats-runtime.js';
import { openSessionStore } from '../../runtime/backends/nats/session-store.js';
import { createTaskRuntime, type RequesterLimits, type TaskRuntime, type TaskRuntimeOptions } from '../../runtime/index.js';
import { registerWork } from '../wire/register-work.js';
import { conformanceTools } from './conformance-tools.js';
import { demoDefinitions } from './demo-tools.js';
import { bearerTokens, parseAuthTokens } from '../http/auth.js';
import { cliLogger, log } from '../log.js';
import { DRAIN_FLAG_SPECS, DRAIN_FLAGS_HELP, drainSettings, NodeShutdown } from './drain.js';
import { allowedList } from '../http/origin-guard.js';
import { AUDIT_FLAG_HELP, auditOption } from './audit-flag.js';
import type { MetricReader } from '@opentelemetry/sdk-metrics';
import { OTEL_FLAG_HELP, OTEL_FLAG_SPECS, startOtel } from './otel-flag.js';
import { INSPECT_FLAG_SPECS, INSPECT_FLAGS_HELP, startInspector } from './inspect-flag.js';
import { clusterStatusReader } from '../../runtime/backends/nats/cluster-status.js';
import type { StatusSource } from '../http/status-endpoint.js';
import { METRICS_FLAG_SPECS, METRICS_FLAGS_HELP, startMetricsFlag } from './metrics-port.js';
import { NATS_FLAG_SPECS, NATS_FLAGS_HELP, natsSettings } from './nats-flags.js';
import { OPERATOR_FLAG_HELP, OPERATOR_FLAG_SPECS, operatorFront } from './operator-flag.js';
import type { SessionRecord } from '../http/session-restore.js';
import { loadForCommand, SDK_V1, SDK_V2_SERVER } from './sdk-peers.js';
import type * as ServeV1 from './serve-v1.js';
import type * as ServeV2 from './serve-v2.js';

/** Help text of `mcp-tasks serve`. */
export const SERVE_HELP = `Usage: mcp-tasks serve (--stdio | --http PORT) [--inspect PORT] [options]
       mcp-tasks serve --nats URL --role worker [options]

Serves the demo tools (sleep, long_job, fan_out, delegate, fail, echo, ask_name, summarize), the prompt
"greeting" and the resource "demo://report" as an MCP server whose requests may run as tasks (SEP-1686,
2025-11-25, and the tasks extension on 2026-07-28).

Transport (one of):
  --stdio                    JSON-RPC over stdin/stdout (logs go to stderr)
  --http PORT                Streamable HTTP at http://HOST:PORT/mcp (PORT 0 picks a free port)
  --host HOST                address to bind with --http (default 127.0.0.1)
  --sdk v1|v2                the MCP SDK that serves (default v1: @modelcontextprotocol/sdk, every dialect);
                             v2: @modelcontextprotocol/server 2.x, the tasks extension on 2026-07-28 and
                             2025-11-25 (no SEP-1686, sessions kept in this process, so not with --nats
                             over --http: use v1 there, it shares sessions through NATS)
  --conformance              also serve the tools the official conformance suite calls (greet, slow_compute,
                             failing_job, protocol_error_job, confirm_delete, multi_input, test_tool_with_task);
                             give it to worker nodes too
  --task-tools               for clients that declared no task support (most chat hosts): calling a
                             task-capable tool starts its task and answers at once with its id, and the
                             tools task_status, task_result, task_cancel and task_respond follow it;
                             clients that declared tasks see the protocol unchanged
  --session-idle-timeout MS  close an HTTP session after this long without a request (default 3600000)
  --max-sessions N           with --http: sessions kept at once; past it a new initialize gets 503 with
                             Retry-After, existing sessions are never closed for it (default 5000; 'off')
  --max-sessions-per-requester N
                             with --http: sessions one principal (with --auth-token) or else one peer
                             address (loopback too) may keep here; past it its initialize gets 503 with
                             Retry-After, other requesters are served (default 100; 'off')
  --session-park MS          with --http: a session with nothing in flight this long keeps only its record
                             until its next request (SDK v1; at once past 200 such sessions; default 30000;
                             'off')
  --header-timeout MS        with --http: a request's headers must arrive within this long, else 408 and
                             the connection closed (default 10000)
  --body-timeout MS          with --http: a whole request, body included, must arrive within this long,
                             else 408 and the connection closed (default 30000)
  --max-body-bytes N         with --http: the largest request body, else 413 at once (the rest of the
                             body is read and dropped, up to 64 MiB) (default 4194304)
  --max-pending-body-bytes N with --http: bytes of request bodies still arriving held at once, over all
                             connections; a body that would go over gets 503 with Retry-After (default
                             67108864; 'off' lifts it)
  --auth-token TOKEN=NAME    with --http: accept 'Authorization: Bearer TOKEN' as principal NAME (repeatable;
                             also MCP_TASKS_AUTH_TOKENS=TOKEN=NAME,...); any other request gets 401, and
                             sessions and tasks are bound to their principal. Without it HTTP is anonymous.
  --allowed-host NAME        with --http: also accept requests whose Host is NAME (any port) or NAME:PORT,
                             e.g. a proxy's public name; '*' accepts any (repeatable; also
                             MCP_TASKS_ALLOWED_HOSTS=NAME,...). Default: loopback names and the --host
                             address only; any other Host gets 403 (DNS rebinding protection)
  --allowed-origin ORIGIN    with --http: also accept requests from browser pages of ORIGIN, e.g.
                             https://app.example; '*' accepts any (repeatable; also
                             MCP_TASKS_ALLOWED_ORIGINS=ORIGIN,...). Default: no Origin header (any
                             non-browser client) or a loopback origin; any other Origin gets 403.
                             With --inspect, also where an operator's action may come from besides
                             the inspector's own page (a proxy's public origin)
${OPERATOR_FLAG_HELP}

Tasks:
  --default-keep-alive MS    retention after a task ends when the requester asks none (default 300000)
  --max-keep-alive MS        the receiver's maximum keepAlive; 'unlimited' allows any (default 3600000)
  --poll-frequency MS        polling interval a task suggests once older than this (default 1000);
                             a younger one suggests its age, at least 25 ms
  --page-size N              tasks per tasks/list page (default 20)
  --heartbeat MS             tell a status stream again of a task running longer than this, every this
                             often ('off': never; default 30000)
  --max-task-depth N         how deep subtasks may nest (default 4)
  --inline-within MS         on 2026-07-28 (tasks extension): a call whose work completes within MS is answered
                             with its plain result, a slower one with its task at MS while the work goes on
                             (default 0: always a task)
  --push-allow PREFIX        let requesters register webhooks under this URL prefix, e.g.
                             https://hooks.example.com/ (repeatable; also MCP_TASKS_PUSH_ALLOW=P,...);
                             none by default: no webhook is ever called
  --push-ack-wait MS         with --nats: a node that holds a delivery this long without word loses it
                             to another (default 30000)
${AUDIT_FLAG_HELP}
${OTEL_FLAG_HELP}

Limits per requester (session + auth principal); over one, a request gets JSON-RPC error -32029
naming the limit and when to retry; 'off' lifts a limit:
  --max-running-tasks N      tasks not yet ended (default 100)
  --max-creates-per-second N task creations (default 20, bursts of twice that)
  --max-polls-per-second N   every tasks/get and tasks/result of a requester (default 100, bursts of
                             twice that); a poll of a task that waited what the task suggested passes
                             on an empty bucket too, up to one more burst
  --max-lists-per-second N   tasks/list (default 10, bursts of twice that)
  --max-task-id-length N     characters in a task id, SEP-1686 requesters choosing theirs (default 128)
  --max-result-bytes N       bytes of JSON a task's result may have; a larger one fails the task (default 921600)
  --max-request-bytes N      bytes of JSON a task's params, or one answer to its input request, may have; a
                             larger one is refused (default 4194304)
  --max-retained-tasks N     tasks a requester may keep at once, running or ended within their keepAlive;
                             past it a new task is refused until one expires or is deleted (default 10000)
  --max-retained-bytes N     bytes of kept tasks on this node: results, failure details, messages, 1 KiB
                             per record (with --nats: the task space's buckets and events); past it every
                             new task is refused (default 268435456)
  --max-retained-bytes-per-requester N
                             bytes of ended tasks one requester may keep, counted as --max-retained-bytes
                             counts them (across the cluster with --nats); past it that requester's new
                             tasks are refused, the others' are not (default a quarter of --max-retained-bytes)
With --nats the limits hold across the cluster (rates shared between nodes every 250 ms).

Cluster (with --nats; without it, everything runs in this process):
  --role front|worker|both   front serves MCP, worker runs tasks, both does both (default both)
  --node-id ID               this node's name in status and errors (default host-pid-random)
  --lease-ttl MS             a lost worker's tasks are resolved within this + 1 s (default 10000)
  --retry-restart TOOL,...   tools safe to re-run from the start when their worker is lost (sleep always is)
  --retry-never TOOL,...     tools that end lost with their worker (long_job, ask_name and summarize resume by default)
  --max-attempts N           runs of a re-runnable task, at most (default 3)
  --worker-concurrency N     tasks a worker runs at once (default 64)
  --unserved-timeout MS|off  on a front: a task whose tool no live worker serves fails after this long,
                             with a status message naming the tool (default 30000; off: it waits)

${DRAIN_FLAGS_HELP}

${INSPECT_FLAGS_HELP}

${METRICS_FLAGS_HELP}

${NATS_FLAGS_HELP}
  -h, --help                 show this help
`;

/** The SDK v1 serving, loaded only without `--sdk v2`: `--sdk v2` serves without `@modelcontextprotocol/sdk` installed. */
function loadServeV1(): Promise<typeof ServeV1> {
  return loadForCommand(SDK_V1, 'mcp-tasks serve', () => import('./serve-v1.js'));
}

/** The SDK v2 serving, loaded only for `--sdk v2`: the default serves without `@modelcontextprotocol/server` installed. */
function loadServeV2(): Promise<typeof ServeV2> {
  return loadForCommand(SDK_V2_SERVER, 'mcp-tasks serve --sdk v2', () => import('./serve-v2.js'));
}

/** `--session-park`'s default: a session quiet this long keeps only its record (its server costs ~95 KB). */
const DEFAULT_SESSION_PARK_MS = 30_000;

function number(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new Error(`--${name} expects a non-negative number, got '${value}'`);
  return n;
}

/**
 * Runs `serve` with the given arguments until the process is stopped.
 *
 * @param argv - arguments after `serve`
 * @throws Error for unknown or malformed options
 * @example
 * ```ts
 * await serve(['--http', '3000']);
 * ```
 */
export async function serve(argv: readonly string[]): Promise<void> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      stdio: { type: 'boolean' },
      http: { type: 'string' },
      host: { type: 'string' },
      sdk: { type: 'string' },
      conformance: { type: 'boolean' },
      'task-tools': { type: 'boolean' },
      'default-keep-alive': { type: 'string' },
      'max-keep-alive': { type: 'string' },
      'max-running-tasks': { type: 'string' },
      'max-creates-per-second': { type: 'string' },
      'max-polls-per-second': { type: 'string' },
      'max-lists-per-second': { type: 'string' },
      'max-task-id-length': { type: 'string' },
      'max-result-bytes': { type: 'string' },
      'max-request-bytes': { type: 'string' },
      'max-retained-tasks': { type: 'string' },
      'max-retained-bytes': { type: 'string' },
      'max-retained-bytes-per-requester': { type: 'string' },
      'poll-frequency': { type: 'string' },
      'page-size': { type: 'string' },
      heartbeat: { type: 'string' },
      'max-task-depth': { type: 'string' },
      'inline-within': { type: 'string' },
      'push-allow': { type: 'string', multiple: true },
      'push-ack-wait': { type: 'string' },
      'session-idle-timeout': { type: 'string' },
      'max-sessions': { type: 'string' },
      'max-sessions-per-requester': { type: 'string' },
      'session-park': { type: 'string' },
      'header-timeout': { type: 'string' },
      'body-timeout': { type: 'string' },
      'max-pending-body-bytes': { type: 'string' },
      'max-body-bytes': { type: 'string' },
      'auth-token': { type: 'string', multiple: true },
      'allowed-host': { type: 'string', multiple: true },
      'allowed-origin': { type: 'string', multiple: true },
      role: { type: 'string' },
      'node-id': { type: 'string' },
      audit: { type: 'string' },
      'lease-ttl': { type: 'string' },
      'retry-restart': { type: 'string' },
      'retry-never': { type: 'string' },
      'max-attempts': { type: 'string' },
      'worker-concurrency': { type: 'string' },
      'unserved-timeout': { type: 'string' },
      ...NATS_FLAG_SPECS,
      ...INSPECT_FLAG_SPECS,
      ...METRICS_FLAG_SPECS,
      ...OPERATOR_FLAG_SPECS,
      ...DRAIN_FLAG_SPECS,
      ...OTEL_FLAG_SPECS,
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) {
    process.stdout.write(SERVE_HELP);
    return;
  }
  const sdk = values.sdk ?? 'v1';
  if (sdk !== 'v1' && sdk !== 'v2') throw new Error(`--sdk expects v1 or v2, got '${sdk}'`);
  const nats = natsSettings(values, process.env);
  const role = values.role ?? 'both';
  if (!['front', 'worker', 'both'].includes(role)) throw new Error(`--role expects front, worker or both, got '${role}'`);
  if (role !== 'both' && !nats) throw new Error('--role needs --nats URL: without NATS one process is front and worker');
  // SDK v2 keeps each 2025-11-25 session (its transport, its standalone stream) in the process that
  // began it; behind a balancer a session's next request may reach another node ("Session not
  // found"). SDK v1 shares sessions through NATS and serves every dialect, 2026-07-28 included.
  if (sdk === 'v2' && nats && values.http !== undefined) {
    throw new Error(
      "--sdk v2 does not serve HTTP with --nats: the SDK v2 line keeps 2025-11-25 sessions in this process, so behind a balancer a session's next request could reach a node that never saw it and get 'Session not found'. With --nats use --sdk v1 (the default: sessions are shared through NATS, every dialect is served, 2026-07-28 included); --sdk v2 serves HTTP on one node without --nats, or over --stdio with it",
    );
  }
  const serving = values.stdio === true || values.http !== undefined;
  if (role === 'worker' ? serving : (values.stdio === true) === (values.http !== undefined)) {
    throw new Error(role === 'worker' ? 'a worker serves no MCP: drop --stdio/--http, or use --role both' : `serve needs exactly one of --stdio or --http PORT.\n${SERVE_HELP.split('\n')[0]!}`);
  }

  if (values['operator-token'] !== undefined && values.http === undefined) throw new Error('--operator-token needs --http: the status endpoint is served beside /mcp');
  const drain = drainSettings(values);

  // Every line of the node (runtime, endpoint, audit) on the CLI's JSON-lines stderr log.
  const runtimeOptions: TaskRuntimeOptions = { logger: cliLogger };
  const defaultKeepAlive = number('default-keep-alive', values['default-keep-alive']);
  if (defaultKeepAlive !== undefined) runtimeOptions.defaultKeepAlive = defaultKeepAlive;
  const maxKeepAlive = values['max-keep-alive'];
  if (maxKeepAlive !== undefined) {
    runtimeOptions.maxKeepAlive = maxKeepAlive === 'unlimited' ? null : number('max-keep-alive', maxKeepAlive)!;
  }
  // Limits per requester (session + principal): always on for a served endpoint; 'off' lifts one.
  const limit = (flag: string, value: string | undefined): number | null | undefined =>
    value === undefined ? undefined : value === 'off' ? null : number(flag, value);
  const limits: { -readonly [K in keyof RequesterLimits]?: RequesterLimits[K] } = {};
  const setLimit = (name: keyof RequesterLimits, flag: string): void => {
    const v = limit(flag, values[flag as 'max-running-tasks']);
    if (v !== undefined) limits[name] = v;
  };
  setLimit('maxConcurrentTasks', 'max-running-tasks');
  setLimit('createsPerSecond', 'max-creates-per-second');
  setLimit('pollsPerSecond', 'max-polls-per-second');
  setLimit('listsPerSecond', 'max-lists-per-second');
  setLimit('maxTaskIdLength', 'max-task-id-length');
  setLimit('maxResultBytes', 'max-result-bytes');
  setLimit('maxRequestBytes', 'max-request-bytes');
  setLimit('maxRetainedTasks', 'max-retained-tasks');
  setLimit('maxRetainedBytes', 'max-retained-bytes');
  setLimit('maxRetainedBytesPerRequester', 'max-retained-bytes-per-requester');
  runtimeOptions.limits = limits;
  const audit = auditOption(values.audit, values['node-id']);
  if (audit) runtimeOptions.audit = audit;
  const pollFrequency = number('poll-frequency', values['poll-frequency']);
  if (pollFrequency !== undefined) runtimeOptions.pollFrequency = pollFrequency;
  const pageSize = number('page-size', values['page-size']);
  if (pageSize !== undefined) runtimeOptions.pageSize = pageSize;
  if (values.heartbeat !== undefined) runtimeOptions.heartbeatMs = values.heartbeat === 'off' ? null : number('heartbeat', values.heartbeat)!;
  const depth = number('max-task-depth', values['max-task-depth']);
  if (depth !== undefined) runtimeOptions.maxTaskDepth = depth;
  const pushAllow = [...(values['push-allow'] ?? []), ...(process.env['MCP_TASKS_PUSH_ALLOW'] ?? '').split(',').map((p) => p.trim()).filter((p) => p !== '')];
  if (pushAllow.length > 0) {
    const ackWaitMs = number('push-ack-wait', values['push-ack-wait']);
    runtimeOptions.push = { allow: pushAllow, ...(ackWaitMs !== undefined && { ackWaitMs }) };
  }

  const tools = values.conformance === true ? [...demoDefinitions.tools, ...conformanceTools] : demoDefinitions.tools;
  const toolList = (flag: 'retry-restart' | 'retry-never'): Set<string> => {
    const names = new Set((values[flag] ?? '').split(',').map((t) => t.trim()).filter((t) => t !== ''));
    for (const name of names) if (!tools.some((t) => t.name === name)) throw new Error(`--${flag} names an unknown tool '${name}'`);
    return names;
  };
  const [restart, never] = [toolList('retry-restart'), toolList('retry-never')];
  for (const name of restart) if (never.has(name)) throw new Error(`--retry-restart and --retry-never both name '${name}'`);
  const retryOf = (t: (typeof tools)[number]): (typeof tools)[number] =>
    restart.has(t.name) ? { ...t, retry: 'restart' as const } : never.has(t.name) ? { ...t, retry: 'never' as const } : t;
  const inlineWithinMs = number('inline-within', values['inline-within']);
  const definitions = { ...demoDefinitions, tools: tools.map(retryOf), ...(inlineWithinMs !== undefined && { inlineWithinMs }) };
  const taskTools = values['task-tools'] === true;
  if (taskTools && role === 'worker') throw new Error('--task-tools needs a serving node: a worker serves no MCP');
  // Before anything starts: a missing SDK is reported before a NATS connection keeps the process alive.
  const serving1 = role !== 'worker' && sdk === 'v1' ? await loadServeV1() : undefined;
  const serving2 = role !== 'worker' && sdk === 'v2' ? await loadServeV2() : undefined;
  // Before the runtime: it takes its meter and tracer when created, from the providers registered
  // by then. With both flags, the SDK's meter provider reads through the Prometheus exporter.
  const withOtel = values.otel === true;
  const metricsPort = await startMetricsFlag(values, withOtel);
  const otel = withOtel ? await startOtel({ ...(metricsPort && { metricReaders: [metricsPort.reader as MetricReader] }) }) : undefined;
  let runtime: TaskRuntime;
  let sessions;
  let connection;
  let clusterStatus: (() => StatusSource) | undefined;
  if (nats) {
    const cluster = await createNatsTaskRuntime({
      ...runtimeOptions,
      nats: nats.connection,
      prefix: nats.prefix,
      replicas: nats.replicas,
      role: role as 'front' | 'worker' | 'both',
      ...(values['node-id'] !== undefined && { nodeId: values['node-id'] }),
      ...(values['lease-ttl'] !== undefined && { leaseTtlMs: number('lease-ttl', values['lease-ttl'])! }),
      ...(values['max-attempts'] !== undefined && { maxAttempts: number('max-attempts', values['max-attempts'])! }),
      ...(values['worker-concurrency'] !== undefined && { workerConcurrency: number('worker-concurrency', values['worker-concurrency'])! }),
      ...(values['unserved-timeout'] !== undefined && {
        unservedTimeoutMs: values['unserved-timeout'] === 'off' ? null : number('unserved-timeout', values['unserved-timeout'])!,
      }),
    });
    runtime = cluster;
    connection = cluster.connection;
    // The inspector's cluster view reads what `mcp-tasks status` reads: every node of the task space.
    clusterStatus = () => clusterStatusReader(cluster.connection, { prefix: nats.prefix, replicas: nats.replicas });
    sessions = await openSessionStore<SessionRecord>(cluster.connection, { prefix: nats.prefix, replicas: nats.replicas, storage: 'file' });
    log('info', 'joined the NATS task space', { node: cluster.nodeId, role, servers: nats.connection.servers, prefix: nats.prefix });
  } else {
    runtime = createTaskRuntime(runtimeOptions);
  }
  // Before any handler runs: on the memory backend, timelines are kept from the first observer on.
  const allowedOrigins = allowedList(values['allowed-origin'], process.env['MCP_TASKS_ALLOWED_ORIGINS']);
  // Read before the inspector starts, which checks its tokens against them (stdio has none).
  const tokens = values.http === undefined ? {} : parseAuthTokens(values['auth-token'] ?? [], process.env['MCP_TASKS_AUTH_TOKENS']);
  const inspector = await startInspector(runtime, values, process.env, {
    requesterTokens: tokens,
    audit: runtimeOptions.audit?.logger,
    ...(clusterStatus && { status: clusterStatus }),
    allowedOrigins,
  });
  const dispose = async (): Promise<void> => {
    await inspector?.close();
    await runtime.dispose();
    // The SDK first: its last export flushes while the metrics port still answers.
    await otel?.shutdown();
    await metricsPort?.close();
  };
  // SIGTERM and SIGINT drain (see drain.ts); the probes of --health-port start now.
  const shutdown = new NodeShutdown(runtime, drain);
  await shutdown.startHealth();
  const backend = nats ? 'nats' : 'memory';
  const info = { name: 'mcp-tasks', version: '0.1.0' };

  if (role === 'worker') {
    // The demo definitions register their handlers with the runtime; this node runs them. No SDK:
    // registering the work is what either SDK's embedding does for the runtime.
    registerWork(runtime, definitions.tools, definitions);
    shutdown.onSignals({ close: dispose });
    log('info', 'mcp-tasks worker ready', { node: (runtime as { nodeId?: string }).nodeId, backend });
    return;
  }

  if (values.stdio) {
    if (values['auth-token'] !== undefined) throw new Error('--auth-token needs --http: stdio has one requester, the process that started this one');
    if (values['allowed-host'] !== undefined) throw new Error('--allowed-host needs --http: stdio has no Host');
    if (values['allowed-origin'] !== undefined && values.inspect === undefined) throw new Error('--allowed-origin needs --http or --inspect: stdio has no Origin');
    const onerror = (error: Error): void => log('warn', 'protocol error', { error: String(error) });
    // The end of stdin: the requester is gone, and its tasks with it: no drain.
    const stop = (): void => void dispose().then(() => process.exit(0));
    shutdown.onSignals({ close: dispose });
    if (serving2) {
      serving2.serveStdioV2(info, runtime, { ...definitions, taskTools }, onerror);
      process.stdin.on('end', stop);
      log('info', 'mcp-tasks serving MCP on stdio', { backend, sdk });
      return;
    }
    process.stdin.on('end', stop);
    await serving1!.serveStdioV1(info, runtime, { ...definitions, taskTools }, { onerror, onclose: stop });
    log('info', 'mcp-tasks serving MCP on stdio', { backend });
    return;
  }

  const authenticated = Object.keys(tokens).length > 0;
  const operator = operatorFront(runtime, values['operator-token'] ?? process.env['MCP_TASKS_OPERATOR_TOKEN'], tokens, connection && nats ? { connection, prefix: nats.prefix, replicas: nats.replicas } : undefined);
  const port = number('http', values.http)!;
  const sessionIdleMs = number('session-idle-timeout', values['session-idle-timeout']);
  const headersTimeoutMs = number('header-timeout', values['header-timeout']);
  const bodyTimeoutMs = number('body-timeout', values['body-timeout']);
  const maxBodyBytes = number('max-body-bytes', values['max-body-bytes']);
  const pendingFlag = values['max-pending-body-bytes'];
  const maxPendingBodyBytes = pendingFlag === 'off' ? null : number('max-pending-body-bytes', pendingFlag);
  const sessionsFlag = values['max-sessions'];
  const maxSessions = sessionsFlag === 'off' ? null : number('max-sessions', sessionsFlag);
  const perRequesterFlag = values['max-sessions-per-requester'];
  const maxSessionsPerRequester = perRequesterFlag === 'off' ? null : number('max-sessions-per-requester', perRequesterFlag);
  const parkFlag = values['session-park'];
  const parkAfterMs = parkFlag === 'off' ? null : (number('session-park', parkFlag) ?? DEFAULT_SESSION_PARK_MS);
  const front = {
    draining: shutdown.probes.draining,
    logger: cliLogger,
    ...(maxSessions !== undefined && { maxSessions }),
    ...(maxSessionsPerRequester !== undefined && { maxSessionsPerRequester }),
    ...(headersTimeoutMs !== undefined && { headersTimeoutMs }),
    ...(bodyTimeoutMs !== undefined && { bodyTimeoutMs }),
    ...(maxBodyBytes !== undefined && { maxBodyBytes }),
    ...(maxPendingBodyBytes !== undefined && { maxPendingBodyBytes }),
  };
  const allowedHosts = allowedList(values['allowed-host'], process.env['MCP_TASKS_ALLOWED_HOSTS']);
  const endpoint = serving2 ? await serving2.serveHttpV2(info, runtime, { ...definitions, taskTools }, {
    port,
    ...front,
    ...(values.host !== undefined && { host: values.host }),
    ...(sessionIdleMs !== undefined && { sessionIdleMs }),
    ...(authenticated && { authenticate: bearerTokens(tokens) }),
    allowedHosts,
    allowedOrigins,
  }, { ...operator, probes: shutdown.probes }) : await serving1!.serveHttpV1(info, runtime, { ...definitions, taskTools }, {
    port,
    ...front,
    parkAfterMs,
    ...(values.host !== undefined && { host: values.host }),
    ...(sessionIdleMs !== undefined && { sessionIdleMs }),
    ...(sessions !== undefined && { sessions }),
    ...(authenticated && { authenticate: bearerTokens(tokens) }),
    allowedHosts,
    allowedOrigins,
  }, { ...operator, probes: shutdown.probes });
  // Before the line that says it serves: a signal from then on drains.
  shutdown.onSignals({
    drain: () => endpoint.drain(),
    callsInFlight: () => endpoint.callsInFlight(),
    close: async () => {
      await endpoint.close();
      await dispose();
    },
  });
  log('info', `mcp-tasks serving MCP (Streamable HTTP) at ${endpoint.url}`, { url: endpoint.url, backend, sdk, authenticated, allowedHosts, allowedOrigins, status: endpoint.url.replace(/\/mcp$/, '/status'), operatorToken: operator.operatorToken !== null });
}
