/**
 * The public shapes of `mcp-task-actors/http`, free of any SDK type: a project with only SDK v1
 * or only SDK v2 installed type-checks against them, and either line's servers fit them.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SessionDirectory } from '../../runtime/backends/nats/session-store.js';
import type { StatelessHandler } from '../wire/stateless/index.js';
import type { HttpTimeouts } from './front.js';
import type { Logger } from '../../runtime/logger.js';

/**
 * Who sent a request, as both SDK lines read it (`extra.authInfo`): `clientId` is the principal
 * that sessions and tasks are bound to.
 *
 * @example
 * ```ts
 * const alice: HttpAuthInfo = { token: 's3cret-a', clientId: 'alice', scopes: [] };
 * ```
 */
export interface HttpAuthInfo {
  token: string;
  clientId: string;
  scopes: string[];
  expiresAt?: number;
  resource?: URL;
  extra?: Record<string, unknown>;
}

/**
 * Decides who sent a request: its {@link HttpAuthInfo}, or `undefined` to refuse it with 401.
 *
 * @example
 * ```ts
 * const authenticate: HttpAuthenticator = (req) => (req.headers['x-user'] === 'alice' ? { token: '', clientId: 'alice', scopes: [] } : undefined);
 * ```
 */
export type HttpAuthenticator = (req: IncomingMessage) => HttpAuthInfo | undefined | Promise<HttpAuthInfo | undefined>;

/**
 * An MCP server of either SDK line, as the endpoint uses it: SDK v1's `McpServer` or `Server`, or
 * SDK v2's `McpServer` or `Server`, each with the tasks attached (`attachTaskServer`,
 * `attachTaskServerV2`).
 *
 * @example
 * ```ts
 * const createServer = (): McpServerLike => createTaskServer(info, { runtime, tools });
 * ```
 */
export interface McpServerLike {
  connect(transport: never): Promise<void>;
  close(): Promise<void>;
}

/** What a node remembers about an SDK v1 HTTP session from its `initialize` request. */
export interface SessionRecord {
  readonly capabilities: Record<string, unknown>;
  readonly clientInfo: Record<string, unknown> | null;
  readonly protocolVersion: string | null;
  /** The authenticated principal that began the session (only it may use the session), or none. */
  readonly principal?: string | null;
  /** When some node last served the session (refreshed now and then, not on every request). */
  readonly lastSeen?: number;
}

/** What both SDK lines' handlers take. */
interface HttpHandlerBase {
  /**
   * Authenticates every request (see `bearerTokens`); one it refuses gets 401. A session is bound
   * to the principal that began it, and tasks to session and principal. Without it, requests are
   * anonymous and a session id is the only thing that tells requesters apart.
   */
  readonly authenticate?: HttpAuthenticator;
  /**
   * `Host` names accepted besides loopback names (and the bound address, for
   * `startHttpEndpoint`), against DNS rebinding: `NAME` on any port, `NAME:PORT` on that one, `*`
   * any. Any other `Host` gets 403. Behind a proxy or mounted in your own server, list your
   * public names here.
   * @default []
   */
  readonly allowedHosts?: readonly string[];
  /**
   * `Origin`s accepted besides loopback ones (`https://app.example`, or `*`); a request without
   * `Origin` (any non-browser client) is always accepted. Any other `Origin` gets 403.
   * @default []
   */
  readonly allowedOrigins?: readonly string[];
  /** Largest request body accepted, in bytes; a larger one gets 413. @default 4_194_304 (4 MiB) */
  readonly maxBodyBytes?: number;
  /**
   * The most bytes of request bodies still arriving held at once, over all connections; a body
   * that would go over is answered 503 (retry shortly). `null`: no cap.
   * @default 67_108_864 (64 MiB)
   */
  readonly maxPendingBodyBytes?: number | null;
  /**
   * While it returns a number (ms), the server drains: a new session's `initialize` is answered
   * 503 with `Retry-After` (that long, in seconds) and JSON-RPC error -32030 naming the shutdown;
   * existing sessions and the 2026-07-28 wire are served as before. `mcp-tasks serve` sets it on
   * SIGTERM. @default never draining
   */
  readonly draining?: () => number | null;
  /**
   * The most sessions kept; past it a new `initialize` is answered 503 with `Retry-After`
   * (existing sessions are never closed for it). `null`: no cap. @default 5_000
   */
  readonly maxSessions?: number | null;
  /**
   * The most of those sessions one requester keeps: one principal (with `authenticate`), or, when
   * anonymous, one peer address (`req.socket.remoteAddress`; loopback like any other, and behind a
   * proxy every anonymous requester has the proxy's). Past it, that requester's `initialize` is
   * answered 503 with `Retry-After` and JSON-RPC error -32029 naming `maxSessionsPerRequester`,
   * while others are served; a session closed or expired frees its place. Counted by this process,
   * as `maxSessions` is (on SDK v2: its 2025-11-25 sessions). `null`: no cap.
   * @default 100
   */
  readonly maxSessionsPerRequester?: number | null;
  /**
   * A session with no request for this long is closed (its tasks stay until their keepAlive, but
   * are bound to a session nobody holds any more). @default 3_600_000 (1 hour)
   */
  readonly sessionIdleMs?: number;
  /**
   * The request path served; any other path gets 404. `null` serves every path (for a handler
   * mounted under a route that rewrites `req.url`). @default '/mcp'
   */
  readonly path?: string | null;
  /**
   * Where the endpoint logs (one `error` line per request that failed unexpectedly and was
   * answered 500): a pino logger or anything with pino's `debug`/`info`/`warn`/`error(fields,
   * message)`. Absent: nothing is written anywhere (never to the process's stderr).
   * @default none (silent)
   * @example
   * ```ts
   * const endpoint = await startHttpEndpoint({ port: 3000, createServer, logger: pino() });
   * ```
   */
  readonly logger?: Logger;
}

/** Options of the SDK v1 (`@modelcontextprotocol/sdk`) handler. */
export interface HttpHandlerOptionsV1 extends HttpHandlerBase {
  /** @default 'v1' */
  readonly sdk?: 'v1';
  /** Makes the SDK v1 server (`McpServer` or `Server`, tasks attached) of a new session. */
  readonly createServer: () => McpServerLike;
  /**
   * Where sessions are shared with other nodes (NATS, `openSessionStore`): a session begun on any
   * node is accepted here too. Without it, sessions live in this process only.
   */
  readonly sessions?: SessionDirectory<SessionRecord>;
  /**
   * A session with nothing in flight for this long keeps only its record: its SDK server is
   * closed, and its next request gets a new one from `createServer`. Only for a `createServer`
   * whose servers are all alike. `null`: never. @default null (`mcp-tasks serve`: 30_000)
   */
  readonly parkAfterMs?: number | null;
  /** With parking on: sessions with an SDK server at once, past which idle ones are parked at once. @default 200 */
  readonly maxActiveSessions?: number;
  /**
   * Serves the stateless 2026-07-28 wire (tasks extension) on the same endpoint: POSTs that name
   * that version go here, everything else to the SDK sessions.
   * @experimental
   */
  readonly stateless?: StatelessHandler;
}

/** Options of the SDK v2 (`@modelcontextprotocol/server`) handler. */
export interface HttpHandlerOptionsV2 extends HttpHandlerBase {
  readonly sdk: 'v2';
  /** Makes one v2 server (`McpServer` or `Server`, tasks attached) per 2026-07-28 request or 2025-11-25 session. */
  readonly createServer: () => McpServerLike | Promise<McpServerLike>;
}

/** Options of `createHttpHandler`: the SDK line (`sdk`, default `'v1'`) and its options. */
export type HttpHandlerOptions = HttpHandlerOptionsV1 | HttpHandlerOptionsV2;

/** What `startHttpEndpoint` adds: where to listen, and how long closing may take. */
export interface HttpListenOptions extends HttpTimeouts {
  /** TCP port; 0 picks a free one. */
  readonly port: number;
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** How long requests in flight may go on once `close()` is called, before they are cut. @default 5_000 */
  readonly closeGraceMs?: number;
}

/** Options of `startHttpEndpoint`. */
export type HttpEndpointOptions = HttpHandlerOptions & HttpListenOptions;

/**
 * A Node request handler serving MCP (Streamable HTTP) with tasks, to mount in `node:http`,
 * Express, Fastify (`reply.hijack()` first) or Hono's Node adapter. `close()` ends its sessions.
 *
 * @example
 * ```ts
 * const mcp = await createHttpHandler({ createServer });
 * createServer((req, res) => void mcp(req, res)).listen(3000);
 * ```
 */
export interface HttpHandler {
  (req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** Closes every session (and its SDK server); requests after it are refused. */
  close(): Promise<void>;
}

/** A running endpoint. */
export interface HttpEndpoint {
  /** Where it serves, e.g. `http://127.0.0.1:3000/mcp`. */
  readonly url: string;
  /** Stops taking connections, lets requests in flight finish (within `closeGraceMs`), and ends every session. */
  close(): Promise<void>;
  /**
   * A drain begins: from now on each answer closes its connection (`Connection: close`), so that
   * kept-alive clients reconnect, through a load balancer to another node, after their next
   * answer. No connection is closed under a request that may be on its way; requests in flight
   * and streams go on.
   */
  drain(): void;
  /**
   * The POST requests received in full and not yet answered in full: a SEP-1686 call waiting for
   * its task, a `tasks/result` waiting for its end, any request being handled. A draining node
   * waits for them before it closes (standalone GET streams and bodies still arriving are not
   * counted: the one lasts as long as its session, the other may never come).
   */
  callsInFlight(): number;
}
