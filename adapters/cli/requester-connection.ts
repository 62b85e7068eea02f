/**
 * How `mcp-tasks call` and `mcp-tasks tasks` reach a server (see `requester-flags.ts`): one
 * connected SDK v1 client with its `TaskClient` (the 2026-07-28 wire through a raw dispatch over
 * HTTP).
 *
 * @module
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { TaskClient } from '../mcp-client/task-client-sdk1.js';
import { createRawDispatch } from '../mcp-client-v2/raw-dispatch.js';
import type { InputRequestHandler } from '../wire/task-client.types.js';
import type { ConnectionSettings } from './requester-flags.js';

/** A connected requester. */
export interface RequesterConnection {
  readonly client: Client;
  readonly tasks: TaskClient;
  readonly settings: ConnectionSettings;
  /** The MCP session id over HTTP (what `--session-id` takes), if the server gave one. */
  readonly sessionId: string | undefined;
  close(): Promise<void>;
}

/**
 * Connects `client` (already given its handlers and capabilities) as the settings say, and makes
 * its task client. Joining an existing session (`--session-id`) skips `initialize`, so the
 * server's capabilities are unknown: `auto` then reads tasks as 2025-11-25.
 *
 * @throws the transport's error when the server cannot be reached (see `reasonOf`)
 * @example
 * ```ts
 * const connection = await connectRequester(new Client({ name: 'mcp-tasks', version: '0.1.0' }), settings, {});
 * ```
 */
export async function connectRequester(client: Client, settings: ConnectionSettings, options: { onInputRequest?: InputRequestHandler }): Promise<RequesterConnection> {
  const { target, headers } = settings;
  let transport: Transport;
  let http: StreamableHTTPClientTransport | undefined;
  if (target.kind === 'stdio') {
    transport = new StdioClientTransport({ command: target.command, args: [...target.args], stderr: 'ignore' });
  } else {
    http = new StreamableHTTPClientTransport(target.url, { requestInit: { headers }, ...(settings.sessionId !== undefined && { sessionId: settings.sessionId }) });
    transport = http;
  }
  await client.connect(transport);
  const joined = settings.sessionId !== undefined && client.getServerCapabilities() === undefined;
  const dialect = joined && settings.dialect === 'auto' ? '2025-11-25' : settings.dialect;
  const tasks = new TaskClient(client, {
    dialect,
    pollFrequency: settings.pollFrequency,
    ...(target.kind === 'http' && { rawDispatch: createRawDispatch(target.url, { headers }) }),
    ...(options.onInputRequest !== undefined && { onInputRequest: options.onInputRequest }),
    clientInfo: { name: 'mcp-tasks', version: '0.1.0' },
  });
  return {
    client,
    tasks,
    settings,
    get sessionId() {
      return http?.sessionId;
    },
    async close() {
      tasks.dispose();
      await client.close();
    },
  };
}
