/**
 * Several `mcp-tasks serve --nats …` processes forming one cluster (front, worker or both roles),
 * the `mcp-tasks status` command, and helpers to read what the nodes log.
 *
 * Every node logs JSON lines on stderr. Unlike {@link spawnHttpServer}, which keeps only a tail, a
 * {@link ClusterNode} keeps its whole stderr, so tests can count the `task run` lines of 200 tasks.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { isRecord } from './types.js';
import { shortened } from '../../../runtime/secrets.js';
import {
  assertCliBuilt,
  CLI_PATH,
  killChild,
  killPid,
  messageOf,
  REPO_ROOT,
  spawnServe,
  trackChild,
  type CliProcess,
} from './process.js';

const URL_PATTERN = /http:\/\/127\.0\.0\.1:(\d+)\/mcp/;
const WORKER_READY = 'mcp-tasks worker ready';
const NODE_STARTUP_TIMEOUT_MS = 20_000;

/** The role of a node in the cluster (`--role`). */
/**
 * Whether a node's log line names `taskId`: in full, or shortened when the task is an anonymous
 * 2026-07-28 task (its id is a bearer handle, which log lines show only shortened).
 */
export function namesTask(line: LogLine, taskId: string): boolean {
  return line['taskId'] === taskId || line['taskId'] === shortened(taskId);
}

export type NodeRole = 'front' | 'worker' | 'both';

/** One JSON log line of a node. */
export type LogLine = Record<string, unknown>;

/** Options of {@link startNode}. */
export interface NodeOptions {
  /** NATS server URL(s), passed as `--nats url[,url…]`. */
  readonly nats: string | readonly string[];
  /** `--nats-prefix` (use a fresh one per test). */
  readonly prefix: string;
  /**
   * `--role`. For `both` no `--role` flag is passed (it is the default).
   * @default 'both'
   */
  readonly role?: NodeRole;
  /** A short label for diagnostics, e.g. `front`, `w1`. */
  readonly label: string;
  /**
   * `--node-id`.
   * @default `<label>-<random>`
   */
  readonly nodeId?: string;
  /** Extra flags, appended last (e.g. `--lease-ttl 2000`). */
  readonly flags?: readonly string[];
}

/** A started cluster node. */
export interface ClusterNode {
  readonly label: string;
  readonly nodeId: string;
  readonly role: NodeRole;
  readonly pid: number;
  /** The node's MCP endpoint; throws for a worker (which serves no MCP). */
  readonly url: string;
  /** The node's whole stderr so far. */
  stderr(): string;
  /** Every JSON line of stderr so far. */
  lines(): LogLine[];
  /** `task run` lines, optionally only those of `taskId`. */
  taskRuns(taskId?: string): LogLine[];
  /** `worker lost` lines, optionally only those of `taskId`. */
  workerLost(taskId?: string): LogLine[];
  /** Resolves with the first log line (past or future) matching `predicate`. */
  waitForLine(predicate: (line: LogLine) => boolean, what: string, timeoutMs?: number): Promise<LogLine>;
  /** True until the process exits. */
  alive(): boolean;
  /** The exit code / signal once exited. */
  exit(): { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /** SIGKILL (a crash) and wait until the process is gone. Idempotent. */
  crash(): Promise<void>;
  /** SIGTERM, SIGKILL after a grace period. Idempotent. */
  close(): Promise<void>;
}

/** A fresh `--nats-prefix` (NATS subject token and stream-name safe). */
export function freshPrefix(label: string): string {
  return `t${label.replace(/[^A-Za-z0-9]/g, '')}${randomUUID().replace(/-/g, '').slice(0, 10)}`;
}

/** Parses every `{…}` line of `text` that is JSON; other lines are skipped. */
export function parseLogLines(text: string): LogLine[] {
  const out: LogLine[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line.startsWith('{')) continue;
    try {
      const value: unknown = JSON.parse(line);
      if (isRecord(value)) out.push(value);
    } catch {
      // a partial last line, or not ours
    }
  }
  return out;
}

class Node implements ClusterNode {
  private text = '';
  private exitInfo: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private readonly exited: Promise<void>;
  private httpUrl: string | undefined;

  constructor(
    readonly label: string,
    readonly nodeId: string,
    readonly role: NodeRole,
    private readonly proc: CliProcess,
  ) {
    proc.child.stderr.on('data', (chunk: string) => {
      this.text += chunk;
    });
    this.exited = new Promise((resolve) => {
      proc.child.once('exit', (code, signal) => {
        this.exitInfo = { code, signal };
        resolve();
      });
    });
  }

  get pid(): number {
    return this.proc.child.pid ?? -1;
  }

  get url(): string {
    if (this.httpUrl === undefined) throw new Error(`node ${this.label} (${this.role}) serves no MCP`);
    return this.httpUrl;
  }

  stderr(): string {
    return this.text;
  }

  lines(): LogLine[] {
    return parseLogLines(this.text);
  }

  taskRuns(taskId?: string): LogLine[] {
    return this.lines().filter((l) => l['msg'] === 'task run' && (taskId === undefined || namesTask(l, taskId)));
  }

  workerLost(taskId?: string): LogLine[] {
    return this.lines().filter((l) => l['msg'] === 'worker lost' && (taskId === undefined || namesTask(l, taskId)));
  }

  async waitForLine(predicate: (line: LogLine) => boolean, what: string, timeoutMs = 10_000): Promise<LogLine> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.lines().find(predicate);
      if (found !== undefined) return found;
      if (Date.now() > deadline) {
        throw new Error(`node ${this.label}: no log line for ${what} within ${timeoutMs} ms\n${describeNodes([this])}`);
      }
      await delay(25);
    }
  }

  alive(): boolean {
    return this.exitInfo === undefined;
  }

  exit(): { code: number | null; signal: NodeJS.Signals | null } | undefined {
    return this.exitInfo;
  }

  async crash(): Promise<void> {
    if (!this.alive()) return;
    if (killPid(this.proc.child.pid, 'SIGKILL')) await this.exited;
  }

  async close(): Promise<void> {
    await killChild(this.proc.child);
  }

  /** Waits for the URL line (MCP nodes) or the `worker ready` line (workers). */
  async ready(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.role === 'worker') {
        if (this.lines().some((l) => l['msg'] === WORKER_READY)) return;
      } else {
        const match = URL_PATTERN.exec(this.text);
        if (match !== null) {
          this.httpUrl = match[0];
          return;
        }
      }
      if (!this.alive()) {
        throw new Error(`exited before it was ready (code ${String(this.exitInfo?.code)}, signal ${String(this.exitInfo?.signal)})`);
      }
      if (Date.now() > deadline) {
        throw new Error(
          `not ready within ${timeoutMs} ms (waiting for ${this.role === 'worker' ? `'${WORKER_READY}'` : 'its http://127.0.0.1:<port>/mcp URL'})`,
        );
      }
      await delay(25);
    }
  }
}

/** The `serve` arguments for `options`. */
export function nodeArgs(options: NodeOptions, nodeId: string): string[] {
  const role = options.role ?? 'both';
  const nats = typeof options.nats === 'string' ? options.nats : options.nats.join(',');
  return [
    ...(role === 'worker' ? [] : ['--http', '0']),
    '--nats',
    nats,
    '--nats-prefix',
    options.prefix,
    ...(role === 'both' ? [] : ['--role', role]),
    '--node-id',
    nodeId,
    ...(options.flags ?? []),
  ];
}

/**
 * Spawns `serve [--http 0] --nats … --nats-prefix … [--role R] --node-id ID [flags]` and waits until
 * it is ready: the `http://127.0.0.1:<port>/mcp` log line for front/both nodes, the
 * `mcp-tasks worker ready` line for workers.
 *
 * @throws Error with the node's stderr when it exits or is not ready in time (it is killed then)
 */
export async function startNode(options: NodeOptions): Promise<ClusterNode> {
  const role = options.role ?? 'both';
  const nodeId = options.nodeId ?? `${options.label}-${randomUUID().slice(0, 8)}`;
  const args = nodeArgs(options, nodeId);
  const node = new Node(options.label, nodeId, role, spawnServe(args));
  try {
    await node.ready(NODE_STARTUP_TIMEOUT_MS);
  } catch (error) {
    await node.close();
    throw new Error(`node ${options.label} (serve ${args.join(' ')}) failed to start: ${messageOf(error)}\n${describeNodes([node])}`);
  }
  return node;
}

/**
 * Starts several nodes in parallel. If any fails, the others are closed and the first error is thrown.
 */
export async function startNodes(options: readonly NodeOptions[]): Promise<ClusterNode[]> {
  const settled = await Promise.allSettled(options.map((o) => startNode(o)));
  const nodes = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed !== undefined) {
    await closeNodes(nodes);
    throw failed.reason instanceof Error ? failed.reason : new Error(String(failed.reason));
  }
  return nodes;
}

/** Closes every node (in parallel; never throws). */
export async function closeNodes(nodes: readonly (ClusterNode | undefined)[]): Promise<void> {
  await Promise.allSettled(nodes.map((n) => (n === undefined ? Promise.resolve() : n.close())));
}

/** Labelled stderr tails of `nodes` (and extra logs, e.g. nats-server's), for failure messages. */
export function describeNodes(nodes: readonly (ClusterNode | undefined)[], extra: Record<string, string> = {}, tailChars = 3_000): string {
  const parts = nodes.flatMap((n) => {
    if (n === undefined) return [];
    const state = n.alive() ? `pid ${n.pid}, running` : `exited ${JSON.stringify(n.exit())}`;
    return [`--- node ${n.label} (${n.role}, id ${n.nodeId}, ${state}) stderr tail ---\n${n.stderr().slice(-tailChars)}`];
  });
  for (const [label, text] of Object.entries(extra)) parts.push(`--- ${label} ---\n${text.slice(-tailChars)}`);
  return parts.join('\n');
}

/** Which of `nodes` logged a `task run` line for `taskId`. */
export function runnersOf(nodes: readonly ClusterNode[], taskId: string): ClusterNode[] {
  return nodes.filter((n) => n.taskRuns(taskId).length > 0);
}

/**
 * Waits until one of `nodes` logs a `task run` line for `taskId` (and `attempt`, if given); returns
 * that node and the line.
 */
export async function waitForRunner(
  nodes: readonly ClusterNode[],
  taskId: string,
  options: { attempt?: number; timeoutMs?: number; diagnostics?: () => string } = {},
): Promise<{ node: ClusterNode; line: LogLine }> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const node of nodes) {
      const line = node.taskRuns(taskId).find((l) => options.attempt === undefined || l['attempt'] === options.attempt);
      if (line !== undefined) return { node, line };
    }
    if (Date.now() > deadline) {
      const what = options.attempt === undefined ? '' : ` attempt ${options.attempt}`;
      throw new Error(
        `no node logged "task run"${what} for ${taskId} within ${timeoutMs} ms\n${options.diagnostics?.() ?? describeNodes(nodes)}`,
      );
    }
    await delay(25);
  }
}

/** The outcome of one CLI invocation. */
export interface CliRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly elapsedMs: number;
  /** True when the process was killed because it ran past `timeoutMs`. */
  readonly timedOut: boolean;
}

/**
 * Runs `node <CLI> [args]` to its end (SIGKILL after `timeoutMs`), collecting stdout and stderr.
 *
 * @example
 * ```ts
 * const run = await runCli(['status', '--nats', url, '--json']);
 * ```
 */
export async function runCli(args: readonly string[], timeoutMs = 15_000): Promise<CliRun> {
  assertCliBuilt();
  const started = Date.now();
  const child = spawn(process.execPath, [CLI_PATH, ...args], { cwd: REPO_ROOT, env: { ...process.env } });
  trackChild(child);
  child.stdin.end();
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => (stdout += chunk));
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killPid(child.pid);
  }, timeoutMs);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => {
    child.once('error', () => resolve([null, null]));
    child.once('close', (c, s) => resolve([c, s]));
  });
  clearTimeout(timer);
  return { code, signal, stdout, stderr, elapsedMs: Date.now() - started, timedOut };
}

/** One node in `mcp-tasks status --json`. */
export interface StatusNode {
  readonly nodeId: string;
  readonly role: string;
  readonly lastSeen: unknown;
  readonly tasksRun: number;
}

/** One lease in `mcp-tasks status --json`. */
export interface StatusLease {
  readonly taskKey: string;
  readonly nodeId: string;
  readonly expiresAt: unknown;
  readonly expired: boolean;
}

/** `mcp-tasks status --json`, shape-checked. */
export interface ClusterStatus {
  readonly nodes: readonly StatusNode[];
  readonly leases: readonly StatusLease[];
  readonly counts: Readonly<Record<string, number>>;
  readonly raw: Record<string, unknown>;
}

/**
 * Runs `mcp-tasks status --nats URL --json --nats-prefix P`, requires exit code 0 and one JSON object
 * on stdout of the documented shape.
 *
 * @throws Error (with stdout/stderr) on a non-zero exit, non-JSON output or a wrong shape
 */
export async function clusterStatus(nats: string | readonly string[], prefix: string): Promise<ClusterStatus> {
  const url = typeof nats === 'string' ? nats : nats.join(',');
  const run = await runCli(['status', '--nats', url, '--json', '--nats-prefix', prefix]);
  const context = `\`mcp-tasks status --nats ${url} --json --nats-prefix ${prefix}\` (code ${String(run.code)}, signal ${String(run.signal)}, ${run.elapsedMs} ms${run.timedOut ? ', timed out' : ''})\n--- stdout ---\n${run.stdout.slice(-3000)}\n--- stderr ---\n${run.stderr.slice(-3000)}`;
  if (run.code !== 0) throw new Error(`status failed: ${context}`);
  let value: unknown;
  try {
    value = JSON.parse(run.stdout);
  } catch {
    throw new Error(`status --json did not print one JSON value: ${context}`);
  }
  if (!isRecord(value)) throw new Error(`status --json printed no JSON object: ${context}`);
  const { nodes, leases, counts } = value;
  if (!Array.isArray(nodes) || !Array.isArray(leases) || !isRecord(counts)) {
    throw new Error(`status --json lacks nodes[], leases[] or counts{}: ${context}`);
  }
  const checkedNodes = nodes.map((n: unknown): StatusNode => {
    if (!isRecord(n) || typeof n['nodeId'] !== 'string' || typeof n['role'] !== 'string' || typeof n['tasksRun'] !== 'number' || !('lastSeen' in n)) {
      throw new Error(`status --json: malformed node ${JSON.stringify(n)}: ${context}`);
    }
    return { nodeId: n['nodeId'], role: n['role'], lastSeen: n['lastSeen'], tasksRun: n['tasksRun'] };
  });
  const checkedLeases = leases.map((l: unknown): StatusLease => {
    if (
      !isRecord(l) ||
      typeof l['taskKey'] !== 'string' ||
      typeof l['nodeId'] !== 'string' ||
      typeof l['expired'] !== 'boolean' ||
      !('expiresAt' in l)
    ) {
      throw new Error(`status --json: malformed lease ${JSON.stringify(l)}: ${context}`);
    }
    return { taskKey: l['taskKey'], nodeId: l['nodeId'], expiresAt: l['expiresAt'], expired: l['expired'] };
  });
  const checkedCounts: Record<string, number> = {};
  for (const [status, n] of Object.entries(counts)) {
    if (typeof n !== 'number') throw new Error(`status --json: count of '${status}' is not a number: ${context}`);
    checkedCounts[status] = n;
  }
  return { nodes: checkedNodes, leases: checkedLeases, counts: checkedCounts, raw: value };
}

/**
 * Calls `fn` until `done(value)`, every `intervalMs`; thrown errors count as "not yet" (e.g. while
 * NATS is down) and the last one is reported on timeout, with `diagnostics()`.
 */
export async function pollUntil<T>(
  what: string,
  fn: () => Promise<T>,
  done: (value: T) => boolean,
  options: { timeoutMs?: number; intervalMs?: number; diagnostics?: () => string } = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const deadline = Date.now() + timeoutMs;
  let last: { value: T } | { error: unknown } | undefined;
  for (;;) {
    try {
      const value = await fn();
      if (done(value)) return value;
      last = { value };
    } catch (error) {
      last = { error };
    }
    if (Date.now() > deadline) {
      const lastText =
        last === undefined ? 'nothing' : 'value' in last ? JSON.stringify(last.value) : `error: ${messageOf(last.error)}`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last: ${lastText.slice(0, 2_000)}\n${options.diagnostics?.() ?? ''}`);
    }
    await delay(options.intervalMs ?? 50);
  }
}

/** Runs `fn` over `items` with at most `limit` calls in flight; results in input order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i] as T, i);
    }
  });
  await Promise.all(lanes);
  return results;
}
