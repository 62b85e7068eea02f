/**
 * What every HTTP front of a node shares (the MCP endpoints of both SDK lines, the inspector): a
 * request handler whose unexpected error answers 500 and is logged, never ending the process; the
 * server's deadlines for a request's headers and body; and a close that always ends, however many
 * clients hold connections open.
 *
 * @module
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { log } from '../log.js';

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

/**
 * A `node:http` server for `handle`, with the request deadlines set: an error `handle` throws (or
 * rejects with) answers 500 when nothing was sent yet and is logged once; the process goes on.
 *
 * @param label - names the front in the log line (`mcp`, `inspector`)
 * @example
 * ```ts
 * const server = guardedServer('mcp', async (req, res) => route(req, res), { bodyTimeoutMs: 30_000 });
 * ```
 */
export function guardedServer(label: string, handle: (req: IncomingMessage, res: ServerResponse) => Promise<void> | void, timeouts: HttpTimeouts = {}): Server {
  const headersTimeout = timeouts.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const requestTimeout = Math.max(timeouts.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS, headersTimeout);
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
      let answered: Promise<void> | void;
      try {
        answered = handle(req, res);
      } catch (error) {
        return failed(label, req, res, error);
      }
      if (answered instanceof Promise) answered.catch((error: unknown) => failed(label, req, res, error));
    },
  );
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    // Node's own answer to what its parser refused (400, 408, 413, 431), when the socket can still take one.
    if (!socket.writable || error.code === 'ECONNRESET') return void socket.destroy();
    const status = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout' : error.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : '400 Bad Request';
    socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
  });
  return server;
}

function failed(label: string, req: IncomingMessage, res: ServerResponse, error: unknown): void {
  log('error', 'http request failed', { front: label, method: req.method, target: String(req.url).slice(0, 200), error: error instanceof Error ? error.message : String(error) });
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
  const cut = setTimeout(() => server.closeAllConnections(), graceMs);
  cut.unref();
  await closed;
  clearTimeout(cut);
}
