/**
 * The SDK v1 line's Streamable HTTP handler: one SDK server and transport per session, all
 * sharing one runtime; sessions shared across nodes through a directory (NATS), parked when idle.
 * Loaded by `index.ts` only when SDK v1 is asked for.
 *
 * @module
 */
import { shuttingDownRefusal } from '../wire/shutting-down.js';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { BodyRefusal, DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_PENDING_BODY_BYTES, PendingBodies, readBody } from '../wire/http-body.js';
import type { HttpHandler, HttpHandlerOptionsV1 } from './http.types.js';
import { originGuard } from './origin-guard.js';
import { requestTarget } from '../wire/request-target.js';
import { isRelayable, placesHere, sessionRecordOf, spreadRequestIds } from './session-restore.js';
import { SessionPool, SESSION_DEFAULTS, type Held } from './session-pool.js';
import { sessionRequester } from '../wire/requester-sessions.js';
import { isStatelessPost, serveStateless } from './stateless-http.js';
import { checkMessage } from '../mcp-server/stdio-transport.js';
import { isMcpServer } from '../mcp-server/plain-registrations.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';

function replyError(res: ServerResponse, status: number, code: number, message: string, data?: unknown): void {
  const error = data === undefined ? { code, message } : { code, message, data };
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error }));
}

/**
 * The JSON-RPC request ids each session has in flight. The SDK transport keeps one reply stream
 * per id, so a second POST reusing an id still in flight would leave one of the two unanswered;
 * it waits here until the first is answered instead (the requester gets both answers, in order).
 */
class InFlightIds {
  readonly #busy = new Map<string, Promise<void>>();

  /** Waits until none of the body's request ids is in flight in the session, then claims them. */
  async enter(sessionId: string, body: unknown, res: ServerResponse): Promise<() => void> {
    const keys = (Array.isArray(body) ? body : [body]).flatMap((m: unknown) => {
      const message = m as { id?: unknown; method?: unknown };
      return typeof message?.method === 'string' && (typeof message.id === 'string' || typeof message.id === 'number') ? [`${sessionId}\u0000${typeof message.id}:${String(message.id)}`] : [];
    });
    for (;;) {
      const waits = keys.flatMap((k) => this.#busy.get(k) ?? []);
      if (waits.length === 0) break;
      await Promise.all(waits);
    }
    let release!: () => void;
    const claimed = new Promise<void>((resolve) => (release = resolve));
    for (const k of keys) this.#busy.set(k, claimed);
    const done = (): void => {
      for (const k of keys) if (this.#busy.get(k) === claimed) this.#busy.delete(k);
      release();
    };
    // Answered (or the client went away): the ids are free again.
    res.once('close', done);
    return done;
  }
}

/**
 * The SDK v1 handler for `options`, answering to loopback names, `bind` and `allowedHosts`.
 *
 * @example
 * ```ts
 * const handle = createHandlerV1({ createServer: () => createTaskServer(info, opts) }, '127.0.0.1');
 * ```
 */
export function createHandlerV1(options: HttpHandlerOptionsV1, bind: string): HttpHandler {
  const checkOrigin = originGuard({ bind, allowedHosts: options.allowedHosts ?? [], allowedOrigins: options.allowedOrigins ?? [] });
  const path = options.path === undefined ? '/mcp' : options.path;
  const createServer = (): Server => {
    // An `McpServer` is connected through its `server`: the session machinery reads the low-level one's request ids.
    const made = options.createServer() as Server | McpServer;
    return isMcpServer(made) ? made.server : made;
  };
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const pending = new PendingBodies(options.maxPendingBodyBytes === undefined ? DEFAULT_MAX_PENDING_BODY_BYTES : options.maxPendingBodyBytes);
  const idleMs = options.sessionIdleMs ?? 3_600_000;
  const pool = new SessionPool({
    createServer,
    directory: options.sessions,
    idleMs,
    parkAfterMs: options.parkAfterMs ?? null,
    maxActive: options.maxActiveSessions ?? SESSION_DEFAULTS.maxActive,
    maxSessions: options.maxSessions === undefined ? SESSION_DEFAULTS.maxSessions : options.maxSessions,
    ...(options.maxSessionsPerRequester !== undefined && { maxPerRequester: options.maxSessionsPerRequester }),
  });
  const inFlight = new InFlightIds();
  /** Aborted on close: ends the stateless wire's subscription streams. */
  const closing = new AbortController();

  /** Tells the other nodes now and then that the session is in use, so none ends it as idle. */
  const touch = (sessionId: string, held: Held): void => {
    const now = Date.now();
    if (!options.sessions || now - held.touched < idleMs / 4) return;
    held.touched = now;
    void options.sessions.remember(sessionId, { ...held.record, lastSeen: now }).catch(() => undefined);
  };

  // Answers and cancels that belong to a request another node holds reach it through the relay;
  // a node injects only what its own server is waiting for.
  const stopRelay = options.sessions?.onRelay?.((sessionId, message) => {
    const held = pool.active(sessionId);
    if (!held || !isRelayable(message) || !placesHere(held.server, message)) return;
    held.transport.onmessage?.(message as JSONRPCMessage);
  });
  const relayStrays = (sessionId: string, server: Server, body: unknown): void => {
    const directory = options.sessions;
    if (!directory?.relay) return;
    for (const message of Array.isArray(body) ? body : [body]) {
      if (isRelayable(message) && !placesHere(server, message)) directory.relay(sessionId, message);
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // First of all, on every wire: a request a web page made the browser send under a foreign
    // name or from a foreign origin is refused before it can read or change anything.
    const refused = checkOrigin(req);
    if (refused) return replyError(res, 403, -32000, refused.message, { header: refused.header, value: refused.value });
    const target = requestTarget(req.url);
    if ('refused' in target) return replyError(res, 400, -32600, `Bad Request: ${target.refused}`);
    if (path !== null && target.path !== path) return replyError(res, 404, -32601, `Not found: ${target.path} (the MCP endpoint is ${path})`);
    const auth = options.authenticate ? await options.authenticate(req) : undefined;
    if (options.authenticate && auth === undefined) {
      res.setHeader('www-authenticate', 'Bearer');
      return replyError(res, 401, -32001, 'Unauthorized: send Authorization: Bearer <token> with a token this server knows');
    }
    // The SDK transport hands `req.auth` to the server as `extra.authInfo` (the task owner's principal).
    (req as IncomingMessage & { auth?: unknown }).auth = auth;
    const principal = auth?.clientId ?? null;
    const header = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(header) ? header[0] : header;
    const found = sessionId === undefined ? undefined : await pool.get(sessionId, req.socket.remoteAddress);
    // Another principal's session does not exist for this one: the same answer as an unknown id.
    const existing = found && (found.record.principal ?? null) === principal ? found : undefined;
    if (existing && sessionId !== undefined) {
      touch(sessionId, existing);
      // In flight until answered (a GET stream: until it closes): a session in use is never parked.
      res.once('close', pool.enter(existing));
    }

    if (req.method === 'POST') {
      let body: unknown;
      try {
        body = JSON.parse((await readBody(req, { maxBytes: maxBody, pending })).toString('utf8'));
      } catch (error) {
        if (!(error instanceof BodyRefusal)) return replyError(res, 400, -32700, 'Parse error: the request body is not valid JSON');
        // Answered at once; readBody drops the rest of the body, so the answer arrives whole.
        if (error.status === 503) res.setHeader('retry-after', '1');
        return replyError(res, error.status, -32600, error.message, error.limit === null ? undefined : { limit: error.limit });
      }
      // Refuse a malformed single message with a reply that says what was wrong (the SDK would
      // answer any of them with a bare "Invalid JSON-RPC message").
      if (!Array.isArray(body)) {
        const checked = checkMessage(body);
        if (checked === null) return void res.writeHead(202).end();
        if ('reply' in checked) return void res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify(checked.reply));
      }
      if (options.stateless && isStatelessPost(req, body)) return serveStateless(options.stateless, req, res, body, principal, closing.signal);
      if (existing && sessionId !== undefined) {
        relayStrays(sessionId, existing.server, body);
        await inFlight.enter(sessionId, body, res);
        return existing.transport.handleRequest(req, res, body);
      }
      if (sessionId !== undefined) return replyError(res, 404, -32001, `Session not found: ${sessionId}`);
      if (!isInitializeRequest(body)) {
        return replyError(res, 400, -32600, 'Bad Request: no mcp-session-id header, and the message is not an initialize request');
      }
      const draining = options.draining?.() ?? null;
      if (draining !== null) {
        const refusal = shuttingDownRefusal(draining);
        res.setHeader('retry-after', refusal.retryAfter);
        return void res.writeHead(refusal.status, { 'content-type': 'application/json' }).end(JSON.stringify(refusal.body));
      }
      if (!pool.hasRoom()) {
        res.setHeader('retry-after', '60');
        return replyError(res, 503, -32000, `Server busy: it keeps ${options.maxSessions ?? SESSION_DEFAULTS.maxSessions} sessions already (maxSessions, --max-sessions); retry later, or end sessions you no longer use (DELETE)`, { limit: 'maxSessions' });
      }
      const requester = sessionRequester(principal, req.socket.remoteAddress);
      const overShare = pool.refusalFor(requester);
      if (overShare) {
        res.setHeader('retry-after', overShare.retryAfter);
        return void res.writeHead(overShare.status, { 'content-type': 'application/json' }).end(JSON.stringify(overShare.body));
      }
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: async (id) => {
          const record = { ...sessionRecordOf(body), principal, lastSeen: Date.now() };
          const held: Held = { transport, server, record, touched: Date.now(), inFlight: 0, active: Date.now() };
          // In flight before it is added: a session is never parked before its initialize is answered.
          res.once('close', pool.enter(held));
          pool.add(id, held, requester);
          // Shared before the reply leaves, so the client's next request may go to any node.
          await options.sessions?.remember(id, record);
        },
      });
      pool.track(transport);
      const server = createServer();
      if (options.sessions) spreadRequestIds(server);
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
      // Refused before a session began (bad headers, say): nothing will ever use this server.
      if (transport.sessionId === undefined) await server.close();
      return;
    }
    if (req.method === 'GET' || req.method === 'DELETE') {
      if (!existing) return replyError(res, sessionId === undefined ? 400 : 404, -32001, sessionId === undefined ? 'Bad Request: mcp-session-id header is required' : `Session not found: ${sessionId}`);
      await existing.transport.handleRequest(req, res);
      // A session the client closed is closed on every node that may still be asked for it.
      if (req.method === 'DELETE' && sessionId !== undefined) await options.sessions?.forget(sessionId).catch(() => undefined);
      return;
    }
    res.setHeader('allow', 'GET, POST, DELETE');
    return replyError(res, 405, -32600, `Method not allowed: ${req.method ?? '?'}`);
  };

  return Object.assign(handle, {
    close: async () => {
      stopRelay?.();
      closing.abort();
      await pool.close();
    },
  });
}
