/**
 * Real `@modelcontextprotocol/sdk` clients talking to the server CLI, for the
 * 2025-11-25 flows (the dialect SDK 1.x clients speak).
 *
 * - {@link connectSdkStdio}: `StdioClientTransport` spawning `node dist/adapters/cli/main.js serve --stdio [flags]`.
 * - {@link connectSdkHttp}: spawns `serve --http 0 [flags]` itself (see {@link spawnHttpServer}), then
 *   connects a `StreamableHTTPClientTransport` to the printed URL; the process is killed by pid on close.
 *
 * Every spawned process is registered with {@link trackChild}, so it dies with the test worker at the latest.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CLI_PATH, REPO_ROOT, TailBuffer, assertCliBuilt, killChild, trackChild } from './wire.js';

/** A connected SDK client plus the means to end it (and its server process). */
export interface SdkPeer {
  readonly client: Client;
  readonly transport: 'stdio' | 'http';
  /** The HTTP session id (mcp-session-id), when there is one. */
  readonly sessionId: string | undefined;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  /** Closes the client and kills the server process (if this peer owns it). Idempotent. */
  close(): Promise<void>;
}

export type ConnectSdk = (flags?: string[]) => Promise<SdkPeer>;

const URL_PATTERN = /http:\/\/127\.0\.0\.1:(\d+)\/mcp/;
const STARTUP_TIMEOUT_MS = 10_000;

function newClient(name: string): Client {
  return new Client({ name, version: '0.0.0' }, { capabilities: {} });
}

function killPid(pid: number | null | undefined): void {
  if (pid === null || pid === undefined) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** `serve --stdio [flags]` through the SDK's own StdioClientTransport. */
export const connectSdkStdio: ConnectSdk = async (flags = []) => {
  assertCliBuilt();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI_PATH, 'serve', '--stdio', ...flags],
    cwd: REPO_ROOT,
    stderr: 'pipe',
  });
  const tail = new TailBuffer();
  transport.stderr?.on('data', (chunk: Buffer | string) => tail.append(chunk.toString()));
  const client = newClient('sdk-stdio-test');
  let pid: number | null = null;
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    try {
      await client.close();
    } catch {
      // best effort
    }
    killPid(pid); // normally already gone: StdioClientTransport.close() terminates it
  };
  try {
    await client.connect(transport);
    pid = transport.pid;
  } catch (error) {
    pid = transport.pid;
    await close();
    throw new Error(
      `sdk stdio connect failed (flags ${JSON.stringify(flags)}): ${error instanceof Error ? error.message : String(error)}` +
        `\n--- server stderr (tail) ---\n${tail.toString().slice(-4000)}`,
    );
  }
  return { client, transport: 'stdio', sessionId: undefined, stderr: () => tail.toString(), close };
};

/** A `serve --http 0` server process and its URL. */
export interface HttpServerProcess {
  readonly url: string;
  readonly pid: number | undefined;
  stderr(): string;
  /** SIGTERM by pid, SIGKILL after a grace period. Idempotent. */
  close(): Promise<void>;
}

/** Spawns `serve --http 0 [flags]` and waits for the URL it prints on stderr. */
export async function spawnHttpServer(flags: string[] = []): Promise<HttpServerProcess> {
  assertCliBuilt();
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [CLI_PATH, 'serve', '--http', '0', ...flags], {
    cwd: REPO_ROOT,
    env: { ...process.env },
  });
  trackChild(child);
  const tail = new TailBuffer();
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => tail.append(chunk));
  child.stdout.on('data', () => {
    // logs belong on stderr
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`no http://127.0.0.1:<port>/mcp line on stderr within ${STARTUP_TIMEOUT_MS} ms`));
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
    return { url, pid: child.pid, stderr: () => tail.toString(), close: () => killChild(child) };
  } catch (error) {
    await killChild(child);
    throw new Error(
      `http startup failed (flags ${JSON.stringify(flags)}): ${error instanceof Error ? error.message : String(error)}` +
        `\n--- server stderr (tail) ---\n${tail.toString().slice(-4000)}`,
    );
  }
}

/** Connects one more SDK client (its own HTTP session) to an already running server. */
export async function connectSdkClientTo(server: HttpServerProcess, name = 'sdk-http-test'): Promise<SdkPeer> {
  const transport = new StreamableHTTPClientTransport(new URL(server.url));
  const client = newClient(name);
  await client.connect(transport);
  let closed = false;
  return {
    client,
    transport: 'http',
    sessionId: transport.sessionId,
    stderr: () => server.stderr(),
    close: async () => {
      if (closed) return;
      closed = true;
      try {
        await transport.terminateSession();
      } catch {
        // best effort
      }
      try {
        await client.close();
      } catch {
        // best effort
      }
    },
  };
}

/** `serve --http 0 [flags]` + an SDK client on StreamableHTTPClientTransport; close() also kills the server. */
export const connectSdkHttp: ConnectSdk = async (flags = []) => {
  const server = await spawnHttpServer(flags);
  let peer: SdkPeer;
  try {
    peer = await connectSdkClientTo(server);
  } catch (error) {
    await server.close();
    throw new Error(
      `sdk http connect failed (flags ${JSON.stringify(flags)}): ${error instanceof Error ? error.message : String(error)}` +
        `\n--- server stderr (tail) ---\n${server.stderr().slice(-4000)}`,
    );
  }
  return {
    ...peer,
    close: async () => {
      try {
        await peer.close();
      } finally {
        await server.close();
      }
    },
  };
};
