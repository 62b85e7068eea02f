/**
 * What every HTTP front of a node shares (the MCP endpoints of both SDK lines, the inspector): a
 * request handler whose unexpected error answers 500 and is logged (through the embedder's `logger`,
 * silent without one), never ending the process; the
 * server's deadlines for a request's headers and body; and a close that always ends, however many
 * clients hold connections open.
 *
 * @module
 */
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from '../../runtime/logger.js';
import { StoreUnavailableError } from '../../runtime/errors.js';
import { toJsonRpcError } from '../wire/wire-errors.js';

/** Deadlines of one HTTP server's requests. */
export interface HttpTimeouts {
  /**
   * A request's headers must have arrived within this long of its first byte; else Node answers
   * 408 and closes the connection. @default 10_000
   */
  readonly headersTimeoutMs?: number;
  /**
   * A whole request (headers and body) must have arrived within this long; else Node answers 408
   * and closes the connection. A response may take as long as it needs (event streams stay open).
   * @default 30_000
   */
  readonly bodyTimeoutMs?: number;
}

/** Defaults of {@link HttpTimeouts}. */
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;

/** The open connections of each guarded server, for its close (see {@link closeServer}). */
const openConnections = new WeakMap<Server, ReadonlySet<Socket>>();

/**
 * A `node:http` server for `handle`, with the request deadlines set: an error `handle` throws (or
 * rejects with) answers 500 when nothing was sent yet and is logged once to `logger` (none: not
 * at all); the process goes on.
 *
 * @param label - names the front in the log line (`mcp`, `inspector`)
 * @param logger - where the line of a 500 goes; absent: nowhere
 * @example
 * ```ts
 * const server = guardedServer('mcp', async (req, res) => route(req, res), { bodyTimeoutMs: 30_000 }, pino());
 * ```
 */
export function guardedServer(label: string, handle: (req: IncomingMessage, res: ServerResponse) => Promise<void> | void, timeouts: HttpTimeouts = {}, logger?: Logger): Server {
  const headersTimeout = timeouts.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const requestTimeout = Math.max(timeouts.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS, headersTimeout);
  const guarded = guardHandler(label, handle, logger);
  /** Per connection, the request being served while its body still arrives: a deadline then is the body's. */
  const arriving = new WeakMap<Duplex, { readonly req: IncomingMessage; readonly res: ServerResponse }>();
  const server = createServer(
    {
      headersTimeout,
      requestTimeout,
      // Node checks the deadlines this often (30 s by default, which would let a 10 s deadline run to 40).
      connectionsCheckingInterval: Math.max(100, Math.min(1_000, Math.floor(headersTimeout / 4))),
    },
    (req, res) => {
      // A reset connection is an event, not an error of the node.
      req.on('error', () => undefined);
      res.on('error', () => undefined);
      arriving.set(req.socket, { req, res });
      req.once('end', () => {
        if (arriving.get(req.socket)?.req === req) arriving.delete(req.socket);
      });
      void guarded(req, res);
    },
  );
  const sockets = new Set<Socket>();
  openConnections.set(server, sockets);
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('clientError', (error: NodeJS.ErrnoException & { reason?: string }, socket: Duplex) => {
    const served = arriving.get(socket);
    // Gone, or answered already (a body nobody read, still arriving): a second answer would be garbage.
    if (!socket.writable || error.code === 'ECONNRESET' || served?.res.headersSent === true || served?.res.writableEnded === true) return void socket.destroy();
    const { status, message, data } = socketRefusal(error, served !== undefined, { headersTimeout, requestTimeout });
    const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message, ...(data !== undefined && { data }) } });
    // Destroyed once written: the connection is half-open, and a client still sending would keep it.
    socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`, () => socket.destroy());
  });
  return server;
}

/**
 * Node's own refusals (its parser's, its deadlines'), each naming what was wrong and, for a
 * limit, how to raise it. A deadline met while the request was being served is the body's.
 */
function socketRefusal(error: NodeJS.ErrnoException & { reason?: string }, inBody: boolean, ms: { readonly headersTimeout: number; readonly requestTimeout: number }): { status: number; message: string; data?: unknown } {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return inBody
      ? { status: 408, message: `Request Timeout: the request did not arrive whole within ${ms.requestTimeout} ms (bodyTimeoutMs; raise it with --body-timeout MS)`, data: { limit: 'bodyTimeoutMs' } }
      : { status: 408, message: `Request Timeout: the request headers did not arrive within ${ms.headersTimeout} ms (headersTimeoutMs; raise it with --header-timeout MS)`, data: { limit: 'headersTimeoutMs' } };
  }
  if (error.code === 'HPE_HEADER_OVERFLOW') return { status: 431, message: "Request Header Fields Too Large: the request headers pass Node's limit (16 KiB unless node --max-http-header-size says otherwise)" };
  return { status: 400, message: `Bad Request: the request is not valid HTTP/1.1 (${error.code ?? 'unknown'}${error.reason === undefined ? '' : `: ${error.reason}`})` };
}

/**
 * `handle`, so that an error it throws (or rejects with) answers 500 when nothing was sent yet
 * and is logged once to `logger` (absent: not at all; library code never writes to the
 * embedder's stderr), and never reaches the caller: one request can never end the process.
 *
 * @param logger - where the line of a 500 goes; absent: nowhere
 * @example
 * ```ts
 * const handler = guardHandler('mcp', async (req, res) => route(req, res), pino());
 * ```
 */
export function guardHandler(label: string, handle: (req: IncomingMessage, res: ServerResponse) => Promise<void> | void, logger?: Logger): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    try {
      await handle(req, res);
    } catch (error) {
      failed(label, req, res, error, logger);
    }
  };
}

/** The request's path without its query: an inspector page's stream carries its read token there. */
function pathOnly(url: string | undefined): string {
  const target = String(url);
  const query = target.search(/[?#]/);
  return (query < 0 ? target : `${target.slice(0, query)}?…`).slice(0, 200);
}

function failed(label: string, req: IncomingMessage, res: ServerResponse, error: unknown, logger: Logger | undefined): void {
  // The task store is down (a NATS outage, seen by the session directory or the runtime): the
  // requester is told so and when to retry, as a task call in the same outage is; the outage
  // itself is logged by the node that sees it, not once per request.
  if (error instanceof StoreUnavailableError && !res.headersSent) {
    const { code, message, data } = toJsonRpcError(error);
    res.writeHead(503, { 'content-type': 'application/json', 'retry-after': String(Math.ceil(error.retryAfterMs / 1000)) });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message, data } }));
    return;
  }
  try {
    logger?.error({ front: label, method: req.method, target: pathOnly(req.url), error: error instanceof Error ? error.message : String(error) }, 'http request failed');
  } catch {
    // A failing log sink must not keep the 500 from being answered.
  }
  if (!res.headersSent) {
    res.writeHead(500, { 'content-type': 'application/json', connection: 'close' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32603, message: 'Internal error' } }));
  } else {
    res.destroy();
  }
}

/** How long in-flight requests may go on once a server is closing, by default. */
export const DEFAULT_CLOSE_GRACE_MS = 5_000;

/**
 * Closes a server so that the close always ends: no new connection is taken, idle keep-alive
 * connections are closed at once, requests in flight may finish within `graceMs`, and whatever is
 * still open then (a half-sent request, a stream) is cut.
 *
 * @example
 * ```ts
 * await closeServer(server, 5_000);
 * ```
 */
export async function closeServer(server: Server, graceMs = DEFAULT_CLOSE_GRACE_MS): Promise<void> {
  if (!server.listening) return void server.closeAllConnections();
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  // Node counts a connection that has not sent a byte yet as busy, not idle: it would hold the
  // close for the whole grace. Nothing was asked on it, so nothing is cut.
  for (const socket of openConnections.get(server) ?? []) if (socket.bytesRead === 0) socket.destroy();
  const cut = setTimeout(() => server.closeAllConnections(), graceMs);
  cut.unref();
  await closed;
  clearTimeout(cut);
}
