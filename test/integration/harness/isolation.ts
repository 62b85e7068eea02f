/**
 * Building blocks of the isolation suite (isolation.test.ts, issue 7): a deployment (one memory
 * `serve --http 0`, or two `--role both` NATS nodes on one nats-server), requesters with one HTTP
 * session each (anonymous or with a bearer token) reachable through every node, the owner's tasks
 * in their three states (completed, running, waiting for input), raw HTTP for what the wire hides
 * (status codes, 401/404 bodies, answers to server requests), and the "indistinguishable from an
 * unknown id" comparison.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { closeNodes, describeNodes, freshPrefix, pollUntil, startNodes, type ClusterNode } from './cluster.js';
import type { Victim } from './hostile.js';
import { attachHttpSession, attachInteractiveHttpWire } from './http-wire.js';
import { ok, type Rec } from './json.js';
import type { NatsServer } from './nats-server.js';
import { spawnHttpServer } from './process.js';
import { create2025, createSep, getTask, RELATED_2025, SEP_RELATED, statusOf, type Dialect } from './task-calls.js';
import { isRecord, type InteractiveWire, type JSONRPCResponse, type JsonRpcId, type ServerRequestEntry } from './types.js';

/** The per-requester rate limits are lifted: the suite polls and lists a lot, from few sessions. */
export const RATE_LIMITS_OFF = ['--max-polls-per-second', 'off', '--max-lists-per-second', 'off', '--max-creates-per-second', 'off'] as const;

export type Backend = 'memory' | 'nats';

/** The MCP endpoints of one deployment: one URL (memory) or one per node (NATS). */
export interface Deployment {
  readonly backend: Backend;
  /** `node 1`, `node 2` (NATS) or `server` (memory), in the order of {@link Deployment.urls}. */
  readonly nodes: readonly string[];
  readonly urls: readonly string[];
  /** Server / node stderr tails, for failure messages. */
  diag(): string;
  close(): Promise<void>;
}

/**
 * Starts the deployment with `flags` (after the rate-limit flags): for `memory` one
 * `serve --http 0`, for `nats` two nodes of role both on `nats` (own fresh prefix).
 */
export async function startDeployment(backend: Backend, flags: readonly string[], nats?: NatsServer): Promise<Deployment> {
  if (backend === 'memory') {
    const server = await spawnHttpServer([...RATE_LIMITS_OFF, ...flags]);
    return { backend, nodes: ['server'], urls: [server.url], diag: () => `--- server stderr (tail) ---\n${server.stderr().slice(-3_000)}`, close: () => server.close() };
  }
  if (nats === undefined) throw new Error('startDeployment: the nats backend needs a nats-server');
  const prefix = freshPrefix('iso');
  const started: ClusterNode[] = await startNodes(
    ['node 1', 'node 2'].map((label) => ({ label, nats: nats.url, prefix, flags: [...RATE_LIMITS_OFF, ...flags] })),
  );
  return {
    backend,
    nodes: started.map((n) => n.label),
    urls: started.map((n) => n.url),
    diag: () => describeNodes(started, { 'nats-server log': nats.log().slice(-1_000) }),
    close: () => closeNodes(started),
  };
}

export type SessionWire = InteractiveWire & { readonly sessionId: string | undefined };

/** One requester: one HTTP session (and principal, when it has a token), usable through every node. */
export interface Requester {
  readonly label: string;
  readonly token: string | undefined;
  readonly sessionId: string;
  /** The wire that began the session. */
  readonly home: SessionWire;
  /** Every way to reach the session: the home node first, then the same session on the other nodes. */
  readonly wires: readonly { readonly node: string; readonly url: string; readonly wire: SessionWire }[];
}

/**
 * Begins a session on node `homeIndex` (an interactive client: it declares elicitation and sampling,
 * and records every request the server sends it) and joins it on every other node.
 */
export async function openRequester(deployment: Deployment, label: string, homeIndex: number, token: string | undefined): Promise<Requester> {
  const homeUrl = deployment.urls[homeIndex]!;
  const home = await attachInteractiveHttpWire(homeUrl, () => deployment.diag(), undefined, token === undefined ? {} : { bearerToken: token });
  const sessionId = home.sessionId!;
  const wires = [{ node: deployment.nodes[homeIndex]!, url: homeUrl, wire: home }];
  deployment.urls.forEach((url, i) => {
    if (i === homeIndex) return;
    const wire = attachHttpSession(url, sessionId, {
      interactive: true,
      serverStderr: () => deployment.diag(),
      ...(token !== undefined && { bearerToken: token }),
    });
    wires.push({ node: deployment.nodes[i]!, url, wire });
  });
  return { label, token, sessionId, home, wires };
}

/** Closes the borrowed wires, then the home wire (which ends the session). Never throws. */
export async function closeRequester(r: Requester | undefined): Promise<void> {
  if (r === undefined) return;
  for (const { wire } of [...r.wires].reverse()) await wire.close().catch(() => undefined);
}

// -- raw HTTP ------------------------------------------------------------------------------------

/** What an HTTP exchange showed, beyond the JSON-RPC payload. */
export interface RawReply {
  readonly status: number;
  readonly contentType: string;
  readonly wwwAuthenticate: string | null;
  /** The body (read only when it is not an SSE stream: a stream is cancelled, its body is `<sse stream>`). */
  readonly body: string;
}

/**
 * One HTTP request to an MCP endpoint, as `token` (if any) in session `sessionId` (if any).
 * Bounded: a reply that takes more than 5 s fails.
 */
export async function rawHttp(
  url: string,
  options: { readonly method?: 'POST' | 'GET' | 'DELETE'; readonly token?: string | undefined; readonly sessionId?: string | undefined; readonly body?: Rec },
): Promise<RawReply> {
  const headers: Record<string, string> = { accept: 'application/json, text/event-stream' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.token !== undefined) headers['authorization'] = `Bearer ${options.token}`;
  if (options.sessionId !== undefined) {
    headers['mcp-session-id'] = options.sessionId;
    headers['mcp-protocol-version'] = '2025-11-25';
  }
  const res = await fetch(url, {
    method: options.method ?? 'POST',
    headers,
    ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
    signal: AbortSignal.timeout(5_000),
  });
  const contentType = res.headers.get('content-type') ?? '';
  let body: string;
  if (contentType.includes('text/event-stream')) {
    await res.body?.cancel();
    body = '<sse stream>';
  } else {
    body = await res.text();
  }
  return { status: res.status, contentType, wwwAuthenticate: res.headers.get('www-authenticate'), body };
}

/** `reply` with every occurrence of `id` replaced by a placeholder (an answer may echo the id it was asked about). */
export function normalizedReply(reply: RawReply, id: string): string {
  return JSON.stringify({ ...reply, body: reply.body.split(id).join('<id>') });
}

// -- "as if it did not exist" ------------------------------------------------------------------------

/** A JSON-RPC answer without its request id, with `id` (the task id asked about) replaced by a placeholder. */
export function normalizedAnswer(res: JSONRPCResponse, id: string): string {
  return JSON.stringify({ ...res, id: undefined }).split(id).join('<id>');
}

// -- the owner's tasks -------------------------------------------------------------------------------

/** The owner's tasks in one dialect, snapshotted, and the input request its ask_name task is waiting on. */
export interface OwnTasks {
  readonly dialect: Dialect;
  /** A completed `sleep` (with its result), a running `long_job`, an `ask_name` in input_required. */
  readonly done: Victim;
  readonly running: Victim;
  readonly asking: Victim;
  /** The `elicitation/create` the server sent the owner for `asking`, still unanswered. */
  readonly question: ServerRequestEntry;
  /** Where the owner gets `asking`'s result: the SEP-1686 tools/call, or the 2025-11-25 tasks/result it opened. */
  readonly channelId: JsonRpcId;
}

const KEEP = 120_000;

function relatedTaskOf(entry: ServerRequestEntry, dialect: Dialect): unknown {
  const meta = entry.message.params?.['_meta'];
  return isRecord(meta) ? meta[dialect === 'sep-1686' ? SEP_RELATED : RELATED_2025] : undefined;
}

async function statusBecomes(wire: InteractiveWire, taskId: string, wanted: string, diag: () => string): Promise<Rec> {
  return pollUntil(`task ${taskId} to be ${wanted}`, () => getTask(wire, taskId), (s) => statusOf(s) === wanted, {
    timeoutMs: 10_000,
    intervalMs: 25,
    diagnostics: diag,
  });
}

/**
 * Creates, on the owner's home wire, a completed `sleep {ms: 1}`, a running `long_job` and an
 * `ask_name` waiting for its answer (2025-11-25: with the owner's tasks/result open, on which the
 * question arrives), and snapshots them (tasks/get; tasks/result of the completed one).
 */
export async function createOwnTasks(wire: InteractiveWire, dialect: Dialect, diag: () => string): Promise<OwnTasks> {
  const create = (tool: string, args: Rec): ReturnType<typeof createSep> =>
    dialect === 'sep-1686' ? createSep(wire, tool, args, { keepAlive: KEEP }) : create2025(wire, tool, args, { ttl: KEEP });

  const done = await create('sleep', { ms: 1 });
  if (dialect === 'sep-1686') ok(await wire.responseFor(done.requestId, 10_000));
  const doneState = await statusBecomes(wire, done.taskId, 'completed', diag);
  const doneResult = ok(await wire.request('tasks/result', { taskId: done.taskId }));

  const running = await create('long_job', { seconds: 600 });
  const runningState = await statusBecomes(wire, running.taskId, 'working', diag);

  const mark = wire.serverRequests.length;
  const asking = await create('ask_name', {});
  let channelId = asking.requestId;
  if (dialect === '2025-11-25') {
    await statusBecomes(wire, asking.taskId, 'input_required', diag);
    // The spec's requester flow: on input_required, call tasks/result; the question travels on it.
    channelId = wire.sendRequestNoWait('tasks/result', { taskId: asking.taskId });
  }
  const question = await wire.waitForServerRequest(
    (r) => r.message.method === 'elicitation/create' && wire.serverRequests.indexOf(r) >= mark,
    10_000,
  );
  const related = relatedTaskOf(question, dialect);
  if (!isRecord(related) || related['taskId'] !== asking.taskId) {
    throw new Error(`the owner's elicitation/create is not related to its ask_name task ${asking.taskId}: ${JSON.stringify(question.message)}`);
  }
  const askingState = await statusBecomes(wire, asking.taskId, 'input_required', diag);

  const victim = (label: string, created: { taskId: string; requestId: JsonRpcId }, state: Rec, result?: Rec): Victim => ({
    label: `${dialect} ${label}`,
    taskId: created.taskId,
    requestId: created.requestId,
    running: result === undefined,
    state,
    result,
  });
  return {
    dialect,
    done: victim('completed sleep', done, doneState, doneResult),
    running: victim('running long_job', running, runningState),
    asking: victim('ask_name in input_required', asking, askingState),
    question,
    channelId,
  };
}

/** A fresh task id nobody has used. */
export const unusedId = (): string => randomUUID();
