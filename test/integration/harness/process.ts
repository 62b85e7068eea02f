/**
 * The server CLI as a child process: where it is, how to spawn it, how to find the URL it
 * prints on stderr, and how to make sure it dies. Every spawned server is tracked
 * ({@link trackChild}), so it is killed at the latest when the test worker exits.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root, computed from this file's location (test/integration/harness/). */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/**
 * The server CLI. `SEP1686_CLI` may point elsewhere (e.g. to try the suite against
 * another build); by default it is the repository's own build output.
 */
export const CLI_PATH = process.env['SEP1686_CLI'] ?? path.join(REPO_ROOT, 'dist', 'adapters', 'cli', 'main.js');

const URL_PATTERN = /http:\/\/127\.0\.0\.1:(\d+)\/mcp/;
const STARTUP_TIMEOUT_MS = 10_000;

export function assertCliBuilt(): void {
  if (!existsSync(CLI_PATH)) {
    throw new Error(`Server CLI not found at ${CLI_PATH}; run \`npm run build\` first.`);
  }
}

/** Keeps the last `max` characters of a stream (stderr). */
export class TailBuffer {
  private text = '';
  constructor(private readonly max = 64_000) {}
  append(chunk: string): void {
    this.text += chunk;
    if (this.text.length > this.max) this.text = this.text.slice(this.text.length - this.max);
  }
  toString(): string {
    return this.text;
  }
}

/** `message` plus the tail of the server's stderr, the way every harness error reports it. */
export function withStderr(message: string, stderr: string): Error {
  return new Error(`${message}\n--- server stderr (tail) ---\n${stderr.slice(-4000)}`);
}

/** `error`'s message, whatever was thrown. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Sends `signal` to `pid`; false if there is no such process (already gone). */
export function killPid(pid: number | null | undefined, signal: NodeJS.Signals = 'SIGKILL'): boolean {
  if (pid === null || pid === undefined) return false;
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false; // already gone
  }
}

const liveChildren = new Set<ChildProcessWithoutNullStreams>();
let exitHookInstalled = false;

export function trackChild(child: ChildProcessWithoutNullStreams): void {
  liveChildren.add(child);
  child.once('exit', () => liveChildren.delete(child));
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const c of liveChildren) killPid(c.pid);
    });
  }
}

/** SIGTERM by pid, then SIGKILL if it has not exited within `graceMs`. */
export async function killChild(child: ChildProcessWithoutNullStreams, graceMs = 2_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const pid = child.pid;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  if (!killPid(pid, 'SIGTERM')) return;
  const timer = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), graceMs).unref());
  if ((await Promise.race([exited.then(() => 'exited' as const), timer])) === 'timeout') {
    killPid(pid);
    await exited;
  }
}

/** A spawned, tracked `serve ...` process whose stderr is kept in `tail`. */
export interface CliProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly tail: TailBuffer;
}

/** Spawns `node [nodeArgs] <CLI> serve [args]` (tracked, stderr collected, stdout left to the caller). */
export function spawnServe(args: readonly string[], nodeArgs: readonly string[] = []): CliProcess {
  assertCliBuilt();
  const child = spawn(process.execPath, [...nodeArgs, CLI_PATH, 'serve', ...args], { cwd: REPO_ROOT, env: { ...process.env } });
  trackChild(child);
  const tail = new TailBuffer();
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => tail.append(chunk));
  return { child, tail };
}

/** A `serve --http 0` server process and its URL. */
export interface HttpServerProcess {
  readonly url: string;
  readonly pid: number | undefined;
  /** The process itself, for wires that own it. */
  readonly child: ChildProcessWithoutNullStreams;
  stderr(): string;
  /** SIGTERM by pid, SIGKILL after a grace period. Idempotent. */
  close(): Promise<void>;
}

/** Spawns `node [nodeArgs] <CLI> serve --http 0 [flags]` and waits for the `http://127.0.0.1:<port>/mcp` URL it prints on stderr. */
export async function spawnHttpServer(flags: readonly string[] = [], nodeArgs: readonly string[] = []): Promise<HttpServerProcess> {
  // `npm run conformance` runs the HTTP suites again with the server it tested (`--conformance`).
  const extra = (process.env['MCP_TASKS_SERVE_FLAGS'] ?? '').split(/\s+/).filter((f) => f !== '');
  const { child, tail } = spawnServe(['--http', '0', ...flags, ...extra], nodeArgs);
  child.stdout.on('data', () => {
    // Logs belong on stderr; stdout is ignored for HTTP.
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`server did not print its http://127.0.0.1:<port>/mcp URL within ${STARTUP_TIMEOUT_MS} ms`));
      }, STARTUP_TIMEOUT_MS);
      const onData = (): void => {
        const match = URL_PATTERN.exec(tail.toString());
        if (match !== null) {
          cleanup();
          resolve(match[0]);
        }
      };
      const onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
        cleanup();
        reject(new Error(`server exited before listening (code ${String(code)}, signal ${String(signal)})`));
      };
      const cleanup = (): void => {
        clearTimeout(timer);
        child.stderr.off('data', onData);
        child.off('exit', onExit);
      };
      child.stderr.on('data', onData);
      child.once('exit', onExit);
      onData();
    });
    return { url, pid: child.pid, child, stderr: () => tail.toString(), close: () => killChild(child) };
  } catch (error) {
    await killChild(child);
    throw withStderr(`http startup failed (flags ${JSON.stringify(flags)}): ${messageOf(error)}`, tail.toString());
  }
}
