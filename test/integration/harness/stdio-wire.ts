/**
 * Wire over stdio: spawns `node dist/adapters/cli/main.js serve --stdio [flags]`,
 * writes newline-delimited JSON-RPC to stdin and splits stdout into lines.
 * Every stdout line must be a JSON-RPC message; anything else fails the wire.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { killChild, messageOf, spawnServe, withStderr, type TailBuffer } from './process.js';
import type { Connect, ConnectInteractive, JsonRpcId } from './types.js';
import { PLAIN_CLIENT, WireCore, interactiveClient, type ClientProfile } from './wire.js';

class StdioWire extends WireCore {
  readonly transport = 'stdio' as const;
  private stdoutBuffer = '';

  constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    private readonly stderrTail: TailBuffer,
    profile: ClientProfile,
  ) {
    super(profile);
    child.stdout.on('data', (chunk: string) => this.onStdout(chunk));
    child.stdin.on('error', (err) => {
      if (!this.closed) this.fail(new Error(`stdio: cannot write to server stdin: ${err.message}`));
    });
    child.once('exit', (code, signal) => {
      if (!this.closed) {
        this.fail(
          withStderr(`stdio: server process exited unexpectedly (code ${String(code)}, signal ${String(signal)}).`, this.stderr()),
        );
      }
    });
  }

  /** Signals the server process (a drain test's SIGTERM); resolves with its exit code. */
  signal(signal: NodeJS.Signals): Promise<number | null> {
    const exited = this.child.exitCode !== null ? Promise.resolve(this.child.exitCode) : new Promise<number | null>((resolve) => this.child.once('exit', (code) => resolve(code)));
    this.child.kill(signal);
    return exited;
  }

  private onStdout(chunk: string): void {
    this.stdoutBuffer += chunk;
    let newline: number;
    while ((newline = this.stdoutBuffer.indexOf('\n')) >= 0) {
      const raw = this.stdoutBuffer.slice(0, newline);
      this.stdoutBuffer = this.stdoutBuffer.slice(newline + 1);
      const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
      if (line.trim() === '') continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        // stdout must carry JSON-RPC only: fail loudly.
        this.fail(new Error(`stdio: server wrote a non-JSON line to stdout: ${JSON.stringify(line.slice(0, 500))}`));
        continue;
      }
      this.handleInbound(parsed, 'stdout');
    }
  }

  private write(message: Record<string, unknown>): void {
    this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  protected sendRaw(message: Record<string, unknown>, _requestId: JsonRpcId | undefined): void {
    this.write(message);
  }

  protected sendNotificationRaw(message: Record<string, unknown>): Promise<void> {
    this.write(message);
    return Promise.resolve();
  }

  protected sendResponseRaw(message: Record<string, unknown>): Promise<void> {
    if (!this.closed && this.fatal === undefined) this.write(message);
    return Promise.resolve();
  }

  stderr(): string {
    return this.stderrTail.toString();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.fail(new Error('wire closed'));
    try {
      this.child.stdin.end();
    } catch {
      // ignore
    }
    await killChild(this.child);
  }
}

/** Spawns `serve --stdio [flags]` and performs the initialize handshake as `profile`. */
async function openStdio(flags: readonly string[], profile: ClientProfile): Promise<StdioWire> {
  const { child, tail } = spawnServe(['--stdio', ...flags]);
  const wire = new StdioWire(child, tail, profile);
  try {
    await wire.handshake();
  } catch (error) {
    await wire.close();
    throw withStderr(`stdio handshake failed (flags ${JSON.stringify(flags)}): ${messageOf(error)}`, wire.stderr());
  }
  return wire;
}

/** Spawns the server on stdio and performs the initialize handshake; the wire can signal its process. */
export const connectStdioProcess = (flags: readonly string[] = []): Promise<StdioWire> => openStdio(flags, PLAIN_CLIENT);

/** Spawns the server on stdio and performs the initialize handshake. */
export const connectStdio: Connect = (flags = []) => openStdio(flags, PLAIN_CLIENT);

/** Spawns `serve --stdio [flags]` and performs the handshake with the given client capabilities. */
export const connectInteractiveStdio: ConnectInteractive = (options = {}) =>
  openStdio([...(options.flags ?? [])], interactiveClient(options.capabilities));
