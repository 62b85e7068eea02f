/**
 * Real `@modelcontextprotocol/sdk` clients talking to the server CLI, for the
 * 2025-11-25 flows (the dialect SDK 1.x clients speak).
 *
 * - {@link connectSdkStdio} / {@link connectCustomSdkStdio}: `StdioClientTransport` spawning
 *   `node dist/adapters/cli/main.js serve --stdio [flags]`.
 * - {@link connectSdkHttp} / {@link connectCustomSdkHttp}: spawn `serve --http 0 [flags]` (see
 *   {@link spawnHttpServer}), then connect a `StreamableHTTPClientTransport` to the printed URL;
 *   the process is killed by pid on close.
 * - {@link connectSdkClientTo}: one more client (its own HTTP session) on a running server.
 *
 * The plain variants build their client with `capabilities: {}`; the custom ones take a
 * caller-built Client (its own capabilities and request handlers, e.g. elicitation and sampling).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CLI_PATH,
  REPO_ROOT,
  TailBuffer,
  assertCliBuilt,
  killPid,
  messageOf,
  spawnHttpServer,
  withStderr,
  type HttpServerProcess,
} from './process.js';

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
export type ConnectCustomSdk = (client: Client, flags?: string[]) => Promise<SdkPeer>;

function newClient(name: string): Client {
  return new Client({ name, version: '0.0.0' }, { capabilities: {} });
}

/** Runs every step, ignoring failures (best-effort teardown). */
async function bestEffort(...steps: (() => Promise<unknown>)[]): Promise<void> {
  for (const step of steps) {
    try {
      await step();
    } catch {
      // best effort
    }
  }
}

/** `serve --stdio [flags]` via the SDK's StdioClientTransport, with the given client. */
export const connectCustomSdkStdio: ConnectCustomSdk = async (client, flags = []) => {
  assertCliBuilt();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI_PATH, 'serve', '--stdio', ...flags],
    cwd: REPO_ROOT,
    stderr: 'pipe',
  });
  const tail = new TailBuffer();
  transport.stderr?.on('data', (chunk: Buffer | string) => tail.append(chunk.toString()));
  let pid: number | null = null;
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    await bestEffort(() => client.close());
    killPid(pid); // normally already gone: StdioClientTransport.close() terminates it
  };
  try {
    await client.connect(transport);
    pid = transport.pid;
  } catch (error) {
    pid = transport.pid;
    await close();
    throw withStderr(`sdk stdio connect failed (flags ${JSON.stringify(flags)}): ${messageOf(error)}`, tail.toString());
  }
  return { client, transport: 'stdio', sessionId: undefined, stderr: () => tail.toString(), close };
};

/** `serve --stdio [flags]` through the SDK's own StdioClientTransport. */
export const connectSdkStdio: ConnectSdk = (flags = []) => connectCustomSdkStdio(newClient('sdk-stdio-test'), flags);

/** Connects one more SDK client (its own HTTP session) to an already running server (only its URL and stderr are used). */
export async function connectSdkClientTo(server: Pick<HttpServerProcess, 'url' | 'stderr'>, client: Client | string = 'sdk-http-test'): Promise<SdkPeer> {
  const transport = new StreamableHTTPClientTransport(new URL(server.url));
  const sdkClient = typeof client === 'string' ? newClient(client) : client;
  await sdkClient.connect(transport);
  let closed = false;
  return {
    client: sdkClient,
    transport: 'http',
    sessionId: transport.sessionId,
    stderr: () => server.stderr(),
    close: async () => {
      if (closed) return;
      closed = true;
      await bestEffort(
        () => transport.terminateSession(),
        () => sdkClient.close(),
      );
    },
  };
}

/** `serve --http 0 [flags]` + the given client on StreamableHTTPClientTransport; close() also kills the server. */
export const connectCustomSdkHttp: ConnectCustomSdk = async (client, flags = []) => {
  const server = await spawnHttpServer(flags);
  let peer: SdkPeer;
  try {
    peer = await connectSdkClientTo(server, client);
  } catch (error) {
    await server.close();
    throw withStderr(`sdk http connect failed (flags ${JSON.stringify(flags)}): ${messageOf(error)}`, server.stderr());
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

/** `serve --http 0 [flags]` + an SDK client on StreamableHTTPClientTransport; close() also kills the server. */
export const connectSdkHttp: ConnectSdk = (flags = []) => connectCustomSdkHttp(newClient('sdk-http-test'), flags);
