/**
 * Taking up, on this node, an HTTP session that another node began: a fresh SDK transport and
 * server that behave as if they had answered the session's `initialize` themselves.
 *
 * The SDK 1.x has no public way to start a transport or server in an already-initialized state
 * (its own docs send multi-node users to stateless mode, which loses the session scoping that
 * task isolation needs), so this sets the few private fields `initialize` would have set, through
 * the accessors of `sdk-internals.ts`: they fail loudly when a field changed, so an SDK upgrade
 * cannot silently break resuming, relaying or request id spreading.
 *
 * @module
 */
import { randomInt } from 'node:crypto';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { FastLane } from '../mcp-server/fast-lane.js';
import { assertSdkInternals } from '../mcp-server/sdk-internals-check.js';
import type { SessionRecord } from './http.types.js';
import { awaitsResponse, isHandlingRequest, markSessionInitialized, restoreClientInfo, setNextRequestId } from '../mcp-server/sdk-internals.js';

export type { SessionRecord } from './http.types.js';

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
 * @throws SdkInternalsError when the SDK's internals are not the expected ones
 * @example
 * ```ts
 * const transport = await resumeSession(id, record, () => createTaskServer(info, options));
 * await transport.handleRequest(req, res, body);
 * ```
 */
export async function resumeSession(
  sessionId: string,
  record: SessionRecord,
  createServer: () => Server,
  prepare: (transport: StreamableHTTPServerTransport) => void = () => undefined,
): Promise<{ readonly transport: StreamableHTTPServerTransport; readonly server: Server }> {
  // Before anything is created: a changed SDK fails here, not halfway through a resume.
  assertSdkInternals();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => sessionId });
  const server = createServer();
  // Before connect: the server chains its own close handling onto what is set here.
  prepare(transport);
  await server.connect(transport);
  markSessionInitialized(transport, sessionId);
  restoreClientInfo(server, record.capabilities, record.clientInfo);
  spreadRequestIds(server);
  return { transport, server };
}

/**
 * Starts the server's own request ids at a random offset. Several nodes may each send requests
 * (elicitation, sampling) to one session; with ids from 0 on every node, an answer relayed from
 * another node could match the wrong request.
 *
 * @throws SdkInternalsError when the SDK's internals are not the expected ones
 * @example
 * ```ts
 * spreadRequestIds(server);
 * ```
 */
export function spreadRequestIds(server: Server): void {
  assertSdkInternals();
  setNextRequestId(server, randomInt(1, 2 ** 40));
}

/**
 * True when `message` is something this server is waiting for: an answer to a request it sent,
 * or a cancel of a request it is handling. Anything else from the client that has an id to
 * place is another node's, and is relayed.
 *
 * @throws SdkInternalsError when the SDK's internals are not the expected ones
 * @example
 * ```ts
 * if (isRelayable(message) && !placesHere(server, message)) directory.relay(sessionId, message);
 * ```
 */
export function placesHere(server: Server, message: Record<string, unknown>): boolean {
  if (!('method' in message)) return awaitsResponse(server, Number(message['id']));
  const params = message['params'] as { requestId?: unknown } | undefined;
  // Task requests are answered by the fast lane, ahead of the SDK, which never sees them.
  return isHandlingRequest(server, params?.requestId) || FastLane.of(server)?.handles(params?.requestId) === true;
}

/**
 * True for the client messages that may belong to another node: responses, and cancels.
 *
 * @example
 * ```ts
 * isRelayable({ jsonrpc: '2.0', id: 7, result: {} }); // true
 * ```
 */
export function isRelayable(message: unknown): message is Record<string, unknown> {
  if (typeof message !== 'object' || message === null) return false;
  const m = message as Record<string, unknown>;
  if (m['method'] === 'notifications/cancelled') return true;
  return !('method' in m) && 'id' in m && ('result' in m || 'error' in m);
}
