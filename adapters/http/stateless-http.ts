/**
 * The HTTP side of the stateless 2026-07-28 wire: which POSTs belong to it, and how its replies
 * go out. Everything else on `/mcp` stays with the SDK's session-based transport.
 *
 * @experimental the 2026-07-28 protocol is a draft.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PROTOCOL_2026_07_28, RequestMetaKey, type StatelessHandler } from '../wire/stateless/index.js';

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/**
 * Whether a POST speaks the stateless wire: its `MCP-Protocol-Version` header names 2026-07-28, or
 * it has no session and names a protocol version in its own `_meta` (which only that wire does).
 *
 * @example
 * ```ts
 * if (isStatelessPost(req, body)) return serveStateless(handler, req, res, body, principal);
 * ```
 */
export function isStatelessPost(req: IncomingMessage, body: unknown): boolean {
  const version = req.headers['mcp-protocol-version'];
  if ((Array.isArray(version) ? version[0] : version)?.trim() === PROTOCOL_2026_07_28) return true;
  if (req.headers['mcp-session-id'] !== undefined || typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const meta = (body as { params?: { _meta?: Record<string, unknown> } }).params?._meta;
  return typeof meta?.[RequestMetaKey.protocolVersion] === 'string';
}

/**
 * Answers one stateless POST: a JSON reply, or an SSE stream for `subscriptions/listen`.
 *
 * @example
 * ```ts
 * await serveStateless(handler, req, res, body, auth?.clientId ?? null, closing.signal);
 * ```
 */
export async function serveStateless(handler: StatelessHandler, req: IncomingMessage, res: ServerResponse, body: unknown, principal: string | null, closing?: AbortSignal): Promise<void> {
  if (Array.isArray(body)) return send(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: batches are not supported on this protocol version' } });
  const message = body as { id?: unknown; method?: unknown; params?: unknown };
  // Notifications and responses: there are no server→client requests to answer on this wire.
  if (typeof message.method !== 'string' || (typeof message.id !== 'string' && typeof message.id !== 'number')) return void res.writeHead(202).end();
  const gone = new AbortController();
  res.once('close', () => gone.abort());
  const reply = await handler({ id: message.id, method: message.method, params: message.params }, { headers: req.headers, principal, signal: gone.signal, ...(req.socket.remoteAddress !== undefined && { peer: req.socket.remoteAddress }) });
  if ('body' in reply) return send(res, reply.status, reply.body);
  // subscriptions/listen: Server-Sent Events until the subscription ends or the client leaves.
  res.writeHead(reply.status, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  // Ended when the endpoint closes too: an open stream would keep the HTTP server from closing.
  const signal = closing === undefined ? gone.signal : AbortSignal.any([gone.signal, closing]);
  await reply.stream((m) => res.write(`event: message\ndata: ${JSON.stringify(m)}\n\n`), signal);
  res.end();
}
