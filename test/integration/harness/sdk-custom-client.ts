/**
 * Connects a caller-built `@modelcontextprotocol/sdk` Client (its own capabilities and request
 * handlers, e.g. elicitation and sampling) to the server CLI, over stdio or Streamable HTTP.
 * sdk-client.ts builds its clients with `capabilities: {}`; this helper lets a test bring its own.
 * Spawned processes are tracked ({@link trackChild}) and killed by pid on close.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { spawnHttpServer, type SdkPeer } from './sdk-client.js';
import { CLI_PATH, REPO_ROOT, TailBuffer, assertCliBuilt } from './wire.js';

export type ConnectCustomSdk = (client: Client, flags?: string[]) => Promise<SdkPeer>;

function killPid(pid: number | null | undefined): void {
  if (pid === null || pid === undefined) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
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
    try {
      await client.close();
    } catch {
      // best effort
    }
    killPid(pid);
  };
  try {
    await client.connect(transport);
    pid = transport.pid;
  } catch (error) {
    pid = transport.pid;
    await close();
    throw new Error(
      `sdk stdio connect failed: ${error instanceof Error ? error.message : String(error)}\n--- server stderr (tail) ---\n${tail.toString().slice(-4000)}`,
    );
  }
  return { client, transport: 'stdio', sessionId: undefined, stderr: () => tail.toString(), close };
};

/** `serve --http 0 [flags]` + the given client on StreamableHTTPClientTransport; close() kills the server. */
export const connectCustomSdkHttp: ConnectCustomSdk = async (client, flags = []) => {
  const server = await spawnHttpServer(flags);
  const transport = new StreamableHTTPClientTransport(new URL(server.url));
  try {
    await client.connect(transport);
  } catch (error) {
    await server.close();
    throw new Error(
      `sdk http connect failed: ${error instanceof Error ? error.message : String(error)}\n--- server stderr (tail) ---\n${server.stderr().slice(-4000)}`,
    );
  }
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
      await server.close();
    },
  };
};
