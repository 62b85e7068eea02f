/**
 * `mcp-tasks serve --nats …` nodes as child processes, for the failover benchmark.
 *
 * Which CLI: the copy the bench build compiles next to this file, `dist-bench/adapters/cli/main.js`,
 * not `dist/` from `npm run build`. The type-only import below puts `adapters/cli/main.ts` into the
 * bench program, so `tsc -p tsconfig.bench.json` emits it (and everything it imports) without
 * running it; the spawned nodes then run the same sources as the in-process runtime they talk to,
 * and a stale or missing `dist/` cannot skew the figure.
 *
 * @module
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setTimeout as delay } from 'node:timers/promises';
import type * as CliMain from '../../adapters/cli/main.js';
import { signalPid } from './nats-server.js';

/** The CLI module (type only): referencing it is what makes the bench build emit it. */
export type CliModule = typeof CliMain;

/** `dist-bench/adapters/cli/main.js` once compiled (this file is `dist-bench/bench/lib/nats-cli.js`). */
export const BENCH_CLI_PATH = fileURLToPath(new URL('../../adapters/cli/main.js', import.meta.url));

/** A spawned node. */
export interface CliNode {
  readonly label: string;
  readonly role: 'front' | 'worker';
  readonly pid: number;
  alive(): boolean;
  /** True once the node logged `task run` for `taskId`. */
  ran(taskId: string): boolean;
  /** The node's log lines (JSON, one per event) whose `msg` is `message`. */
  lines(message: string): Record<string, unknown>[];
  /** SIGKILL by pid (a crash) and wait for the exit. */
  crash(): Promise<void>;
  /** SIGTERM by pid, SIGKILL after `graceMs`. Never throws. */
  close(graceMs?: number): Promise<void>;
}

/**
 * Spawns `node dist-bench/adapters/cli/main.js serve --nats URL --nats-prefix P --role R …` and
 * waits until it is ready (its MCP URL for a front node, `mcp-tasks worker ready` for a worker).
 *
 * @throws Error when the CLI was not compiled, or the node exits or is not ready within 20 s
 * @example
 * ```ts
 * const w = await startCliNode({ nats: server.url, prefix: 'b1', role: 'worker', label: 'w1', flags: ['--lease-ttl', '2000'] });
 * await w.crash();
 * ```
 */
export async function startCliNode(o: {
  nats: string;
  prefix: string;
  role: 'front' | 'worker';
  label: string;
  flags?: readonly string[];
  /** Keeps only the log lines this accepts (and the readiness line): a long run's info lines would otherwise pile up in this process's heap. */
  keepLine?: (line: string) => boolean;
}): Promise<CliNode> {
  if (!existsSync(BENCH_CLI_PATH)) throw new Error(`CLI not found at ${BENCH_CLI_PATH}: run the benchmarks with \`npm run bench\`, which compiles it`);
  const args = ['serve', ...(o.role === 'front' ? ['--http', '0'] : []), '--nats', o.nats, '--nats-prefix', o.prefix, '--role', o.role, '--node-id', o.label, ...(o.flags ?? [])];
  const child: ChildProcess = spawn(process.execPath, [BENCH_CLI_PATH, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let text = '';
  let partial = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    if (o.keepLine === undefined) return void (text += chunk);
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) if (o.keepLine(line) || /ready|http:\/\/127|error/i.test(line)) text += `${line}\n`;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const killOnExit = (): void => void signalPid(child.pid, 'SIGKILL');
  process.once('exit', killOnExit);
  const alive = (): boolean => child.exitCode === null && child.signalCode === null;
  const node: CliNode = {
    label: o.label,
    role: o.role,
    pid: child.pid ?? -1,
    alive,
    // The node logs one JSON line per event; matching the text is enough to find "task run".
    ran: (taskId) => text.split('\n').some((l) => l.includes('"msg":"task run"') && l.includes(`"taskId":"${taskId}"`)),
    lines: (message) =>
      text.split('\n').flatMap((l) => {
        if (!l.includes(`"msg":"${message}"`)) return [];
        try {
          return [JSON.parse(l) as Record<string, unknown>];
        } catch {
          return [];
        }
      }),
    async crash() {
      if (alive() && signalPid(child.pid, 'SIGKILL')) await exited;
      process.off('exit', killOnExit);
    },
    async close(graceMs = 1_000) {
      if (alive() && signalPid(child.pid, 'SIGTERM') && !(await Promise.race([exited.then(() => true), delay(graceMs, false)]))) await node.crash();
      process.off('exit', killOnExit);
    },
  };
  const ready = o.role === 'worker' ? /mcp-tasks worker ready/ : /http:\/\/127\.0\.0\.1:\d+\/mcp/;
  const deadline = Date.now() + 20_000;
  while (!ready.test(text)) {
    if (!alive() || Date.now() > deadline) {
      await node.crash();
      throw new Error(`CLI node ${o.label} (${args.join(' ')}) was not ready:\n${text.slice(-3_000)}`);
    }
    await delay(20);
  }
  return node;
}
