/**
 * One HTTP endpoint for an SDK v2 task server, serving both eras the way each needs: 2026-07-28
 * requests through the SDK's per-request handler (`createMcpHandler`), 2025-11-25 clients through
 * a Streamable HTTP session each (the SDK's stateful transport), so that a 2025-11-25 requester
 * keeps its standalone stream (its input requests, its status notifications) between requests.
 *
 * @module
 */
import { shuttingDownRefusal } from '../wire/shutting-down.js';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createMcpHandler, DEFAULT_MAX_REQUEST_BODY_SIZE, isLegacyRequest, WebStandardStreamableHTTPServerTransport, type AuthInfo, type McpServer, type Server } from '@modelcontextprotocol/server';
import { BodyRefusal, DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_PENDING_BODY_BYTES, PendingBodies, readBody } from '../wire/http-body.js';
import { requestTarget } from '../wire/request-target.js';
import { refuseInbound } from './inbound-checks.js';
import { DEFAULT_MAX_SESSIONS_PER_REQUESTER, RequesterSessions, sessionRequester } from '../wire/requester-sessions.js';

/** Makes one server instance (already hosting tasks, see `attachTaskServerV2`). */
export type TaskServerFactoryV2 = () => Server | McpServer | Promise<Server | McpServer>;

/** Options of {@link createTaskHttpHandlerV2}. */
export interface TaskHttpHandlerV2Options {
  /**
   * A 2025-11-25 session with no request for this long is closed (its tasks stay until their
   * retention ends, bound as they were).
   * @default 3_600_000 (1 hour)
   */
  readonly sessionIdleMs?: number;
  /**
   * The most 2025-11-25 sessions kept at once; past it a new `initialize` is answered 503 with
   * `Retry-After` (existing sessions are never closed for it). `null`: no cap.
   * @default 5_000
   */
  readonly maxSessions?: number | null;
  /**
   * The most of those sessions one requester keeps: one principal, or, when anonymous, one peer
   * address (`fetch`'s `peer`; loopback like any other). Past it, that requester's `initialize` is
   * answered 503 with `Retry-After` and JSON-RPC error -32029 naming `maxSessionsPerRequester`,
   * while others are served; a session closed or expired frees its place. `null`: no cap.
   * @default 100
   */
  readonly maxSessionsPerRequester?: number | null;
  /**
   * While it returns a number (ms), a new 2025-11-25 session's `initialize` is answered 503 with
   * `Retry-After` and JSON-RPC error -32030 naming the shutdown (the server drains).
   * @default never draining
   */
  readonly draining?: () => number | null;
}

/** A web-standard MCP endpoint: one request in, one response out. */
export interface TaskHttpHandlerV2 {
  /**
   * Serves one HTTP request; `authInfo` is the principal the caller authenticated, if any, `peer`
   * the address the request came from (an anonymous requester's sessions are counted by it).
   */
  fetch(request: Request, options?: { readonly authInfo?: AuthInfo; readonly peer?: string }): Promise<Response>;
  /** Closes every 2025-11-25 session and the 2026-07-28 leg. */
  close(): Promise<void>;
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }), { status, headers: { 'content-type': 'application/json' } });
}

/**
 * Makes the endpoint. A 2025-11-25 session is opened by its `initialize` and lives until the
 * client deletes it or the endpoint closes; its requests must carry the `Mcp-Session-Id` it got.
 * A session belongs to the principal that opened it: another principal's requests on it are refused.
 *
 * @param factory - called for each 2026-07-28 request and each 2025-11-25 session
 * @example
 * ```ts
 * const endpoint = createTaskHttpHandlerV2(() => {
 *   const server = new McpServer({ name: 'reports', version: '1.0.0' });
 *   attachTaskServerV2(server, { runtime, tools: [reportTool] });
 *   return server;
 * });
 * http.createServer(toNodeListener(endpoint)).listen(3000);
 * ```
 */
export function createTaskHttpHandlerV2(factory: TaskServerFactoryV2, options: TaskHttpHandlerV2Options = {}): TaskHttpHandlerV2 {
  const modern = createMcpHandler(() => factory(), { legacy: 'reject' });
  const sessions = new Map<string, { transport: WebStandardStreamableHTTPServerTransport; principal: string | null; seen: number }>();
  // Sessions nobody uses any more are closed: each holds a server, its transport and its watchers.
  const idleMs = options.sessionIdleMs ?? 3_600_000;
  const maxSessions = options.maxSessions === undefined ? 5_000 : options.maxSessions;
  const shares = new RequesterSessions(options.maxSessionsPerRequester === undefined ? DEFAULT_MAX_SESSIONS_PER_REQUESTER : options.maxSessionsPerRequester);
  const end = (id: string): void => {
    sessions.delete(id);
    shares.remove(id);
  };
  const sweeper = setInterval(() => {
    const now = Date.now();
    for (const [id, session] of sessions) {
      if (now - session.seen < idleMs) continue;
      end(id);
      void session.transport.close().catch(() => undefined);
    }
  }, Math.max(100, Math.min(idleMs, 60_000)));
  sweeper.unref();

  const legacy = async (request: Request, authInfo: AuthInfo | undefined, peer: string | undefined): Promise<Response> => {
    const principal = authInfo?.clientId ?? null;
    const sessionId = request.headers.get('mcp-session-id');
    if (sessionId !== null) {
      const session = sessions.get(sessionId);
      if (!session || session.principal !== principal) return jsonRpcError(404, -32001, `Session not found: ${sessionId}`);
      session.seen = Date.now();
      return session.transport.handleRequest(request, authInfo ? { authInfo } : {});
    }
    if (request.method !== 'POST') return jsonRpcError(400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    const draining = options.draining?.() ?? null;
    if (draining !== null) {
      const refusal = shuttingDownRefusal(draining);
      return new Response(JSON.stringify(refusal.body), { status: refusal.status, headers: { 'content-type': 'application/json', 'retry-after': refusal.retryAfter } });
    }
    if (maxSessions !== null && sessions.size >= maxSessions) {
      const busy = jsonRpcError(503, -32000, `Server busy: it keeps ${maxSessions} sessions already (maxSessions, --max-sessions); retry later, or end sessions you no longer use (DELETE)`);
      busy.headers.set('retry-after', '60');
      return busy;
    }
    const requester = sessionRequester(principal, peer);
    const overShare = shares.refusal(requester);
    if (overShare) return new Response(JSON.stringify(overShare.body), { status: overShare.status, headers: { 'content-type': 'application/json', 'retry-after': overShare.retryAfter } });
    // No session yet: this must be the initialize that opens one (the transport checks that).
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, principal, seen: Date.now() });
        shares.add(id, requester);
      },
      onsessionclosed: end,
    });
    const server = await factory();
    await server.connect(transport);
    const response = await transport.handleRequest(request, authInfo ? { authInfo } : {});
    if (transport.sessionId === undefined) await server.close();
    return response;
  };

  return {
    async fetch(request, options = {}) {
      if (await isLegacyRequest(request).catch(() => false)) return legacy(request, options.authInfo, options.peer);
      const refused = await refusedModern(request);
      if (refused !== undefined) return refused;
      return modern.fetch(request, options.authInfo ? { authInfo: options.authInfo } : {});
    },
    async close() {
      clearInterval(sweeper);
      const open = [...sessions.values()];
      sessions.clear();
      shares.clear();
      await Promise.all(open.map((s) => s.transport.close().catch(() => undefined)));
      await modern.close?.();
    },
  };
}

/** The methods `refuseInbound` judges, named by the routing header every 2026-07-28 request carries. */
const CHECKED_METHODS = new Set(['tasks/update', 'subscriptions/listen']);

/** The body as JSON, read up to `limit` bytes; `undefined` past it or when it is not JSON (the SDK answers those). */
async function boundedJson(request: Request, limit: number): Promise<unknown> {
  const reader = (request.clone().body as ReadableStream<Uint8Array> | null)?.getReader();
  if (reader === undefined) return undefined;
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    bytes += next.value.byteLength;
    if (bytes > limit) {
      // Not awaited: a branch of a teed body settles its cancel only once the other branch (the SDK's) ends too.
      void reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(next.value);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return undefined;
  }
}

/** A 2026-07-28 request refused before the SDK (see `inbound-checks.ts`), or `undefined`. */
async function refusedModern(request: Request): Promise<Response | undefined> {
  // Only these methods' bodies are read twice; the SDK checks the header against the body.
  if (request.method !== 'POST' || !CHECKED_METHODS.has(request.headers.get('mcp-method') ?? '')) return undefined;
  // No further than the SDK reads: a larger body is its to refuse (413).
  const message = await boundedJson(request, DEFAULT_MAX_REQUEST_BODY_SIZE);
  const refusal = refuseInbound(message);
  if (refusal === undefined) return undefined;
  return new Response(JSON.stringify(refusal.body), { status: refusal.status, headers: { 'content-type': 'application/json' } });
}

/** Options of {@link toNodeListener}. */
export interface NodeListenerOptions {
  /** Largest request body read, in bytes; a larger one is answered 413. @default 4 MiB */
  readonly maxBodyBytes?: number;
  /**
   * The count of request-body bytes still arriving, shared by the listeners of one node; a body
   * that would take it over its cap is answered 503. @default a count of its own, capped at 64 MiB
   */
  readonly pending?: PendingBodies;
}

function jsonError(res: ServerResponse, status: number, message: string, extra: { readonly data?: unknown } = {}): void {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (status === 503) headers['retry-after'] = '1';
  res.writeHead(status, headers).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message, ...(extra.data !== undefined && { data: extra.data }) } }));
}

/** The `Request` URL of a Node request: its Host and target, or `null` when they make no URL. */
function requestUrl(req: IncomingMessage): string | null {
  const target = requestTarget(req.url);
  if ('refused' in target) return null;
  try {
    // The host as the client named it (the SDK may read it); an odd one makes no URL, never a throw.
    return new URL(`${target.path}${target.query.size > 0 ? `?${target.query.toString()}` : ''}`, `http://${req.headers.host ?? 'localhost'}`).href;
  } catch {
    return null;
  }
}

/**
 * Serves a web-standard handler from `node:http`: the request becomes a `Request` (aborted when
 * the client goes away), the `Response` is streamed back as it comes (server-sent events). A target
 * or `Host` that makes no URL is answered 400, any other failure 500: a request never throws.
 *
 * @param authenticate - the principal of a request, if the endpoint authenticates (`undefined`: anonymous)
 * @example
 * ```ts
 * http.createServer(toNodeListener(endpoint, (req) => tokens.get(req.headers.authorization ?? ''))).listen(3000);
 * ```
 */
export function toNodeListener(
  handler: Pick<TaskHttpHandlerV2, 'fetch'>,
  authenticate?: (req: IncomingMessage) => AuthInfo | undefined | Promise<AuthInfo | undefined>,
  options: NodeListenerOptions = {},
): (req: IncomingMessage, res: ServerResponse) => void {
  const serve = nodeRequestServer(handler, authenticate, options);
  return (req, res) => void serve(req, res);
}

/**
 * {@link toNodeListener}'s work, as a function whose promise settles when the answer has ended
 * (it never rejects), for a front that waits for it.
 *
 * @example
 * ```ts
 * const serve = nodeRequestServer(endpoint, authenticate, { pending });
 * await serve(req, res);
 * ```
 */
export function nodeRequestServer(
  handler: Pick<TaskHttpHandlerV2, 'fetch'>,
  authenticate?: (req: IncomingMessage) => AuthInfo | undefined | Promise<AuthInfo | undefined>,
  options: NodeListenerOptions = {},
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const maxBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const pending = options.pending ?? new PendingBodies(DEFAULT_MAX_PENDING_BODY_BYTES);
  return async (req, res) => {
    try {
      // Methods a `Request` cannot carry (fetch forbids them): refused here, not thrown there as a 500.
      if (/^(?:CONNECT|TRACE|TRACK)$/i.test(req.method ?? '')) {
        res.setHeader('allow', 'GET, POST, DELETE');
        return jsonError(res, 405, `Method not allowed: ${req.method ?? '?'}`);
      }
      const url = requestUrl(req);
      if (url === null) return jsonError(res, 400, `Bad Request: the request target or Host header makes no URL (${JSON.stringify(String(req.url).slice(0, 100))})`);
      const left = new AbortController();
      res.on('close', () => left.abort());
      let body: Buffer | undefined;
      if (req.method === 'POST') {
        try {
          body = await readBody(req, { maxBytes, pending });
        } catch (error) {
          if (!(error instanceof BodyRefusal)) throw error;
          // Refused before it is all held in memory; readBody drops the rest, so the answer arrives whole.
          return jsonError(res, error.status, error.message, error.limit !== null ? { data: { limit: error.limit } } : {});
        }
      }
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
      const request = new Request(url, {
        method: req.method ?? 'GET',
        headers,
        ...(body !== undefined && body.length > 0 && { body }),
        signal: left.signal,
      });
      const authInfo = await authenticate?.(req);
      const peer = req.socket.remoteAddress;
      const response = await handler.fetch(request, { ...(authInfo && { authInfo }), ...(peer !== undefined && { peer }) });
      res.writeHead(response.status, Object.fromEntries(response.headers));
      const stream = response.body;
      if (!stream) return void res.end();
      // The client went away: the stream ends now, not at its next message (the SDK then frees
      // the session's one standalone stream at once, for the client's reconnection).
      const reader = (stream as ReadableStream<Uint8Array>).getReader();
      const cancel = (): void => void reader.cancel().catch(() => undefined);
      // Gone already (while the request was authenticated or served): cancelled now, or the SDK
      // would keep the session's one standalone stream for a reader nobody has.
      if (left.signal.aborted) cancel();
      else left.signal.addEventListener('abort', cancel, { once: true });
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        res.write(value);
      }
      res.end();
    } catch (error) {
      // Whoever mounted this listener gets an answer, never an unhandled rejection.
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32603, message: `Internal error: ${error instanceof Error ? error.message : String(error)}` } }));
    }
  };
}
