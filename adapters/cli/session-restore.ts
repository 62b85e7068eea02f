/**
 * Taking up, on this node, an HTTP session that another node began: a fresh SDK transport and
 * server that behave as if they had answered the session's `initialize` themselves.
 *
 * The SDK 1.x has no public way to start a transport or server in an already-initialized state
 * (its own docs send multi-node users to stateless mode, which loses the session scoping that
 * task isolation needs), so this sets the few private fields `initialize` would have set. It
 * checks that they exist and fails loudly otherwise, so an SDK upgrade cannot silently break it.
 *
 * @module
 */
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';

/** What a node remembers about a session from its `initialize` request. */
export interface SessionRecord {
  readonly capabilities: Record<string, unknown>;
  readonly clientInfo: Record<string, unknown> | null;
  readonly protocolVersion: string | null;
}

/**
 * The record of a session from its `initialize` request body.
 *
 * @example
 * ```ts
 * await directory.remember(id, sessionRecordOf(body));
 * ```
 */
export function sessionRecordOf(initialize: unknown): SessionRecord {
  const params = (initialize as { params?: Record<string, unknown> }).params ?? {};
  const object = (v: unknown): Record<string, unknown> | null => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null);
  return {
    capabilities: object(params['capabilities']) ?? {},
    clientInfo: object(params['clientInfo']),
    protocolVersion: typeof params['protocolVersion'] === 'string' ? params['protocolVersion'] : null,
  };
}

/**
 * Makes a transport and server for session `sessionId`, already initialized with `record`.
 *
 * @throws Error when the SDK's internals are not the expected ones
 * @example
 * ```ts
 * const transport = await resumeSession(id, record, () => createTaskServer(info, options));
 * await transport.handleRequest(req, res, body);
 * ```
 */
export async function resumeSession(sessionId: string, record: SessionRecord, createServer: () => Server): Promise<StreamableHTTPServerTransport> {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => sessionId });
  const inner = (transport as unknown as { _webStandardTransport?: Record<string, unknown> })._webStandardTransport;
  const server = createServer();
  const serverFields = server as unknown as Record<string, unknown>;
  if (!inner || !('_initialized' in inner) || !('sessionId' in inner)) {
    throw new Error('This SDK version hides the session fields a node needs to resume another node\'s session');
  }
  await server.connect(transport);
  inner['_initialized'] = true;
  inner['sessionId'] = sessionId;
  serverFields['_clientCapabilities'] = record.capabilities;
  if (record.clientInfo) serverFields['_clientVersion'] = record.clientInfo;
  return transport;
}
