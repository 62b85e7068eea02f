/**
 * `serve --sdk v2 --http PORT`: Streamable HTTP at `/mcp` through the SDK v2 embedding
 * (`attachTaskServerV2`), behind the same origin guard and bearer tokens as the SDK v1 endpoint.
 *
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTaskHttpHandlerV2, toNodeListener, type TaskServerFactoryV2 } from '../mcp-server-v2/index.js';
import type { HttpEndpoint } from './http-endpoint.js';
import type { HttpAuthenticator } from './http-auth.js';
import { originGuard } from './origin-guard.js';

/** Options of {@link startHttpEndpointV2}. */
export interface HttpEndpointV2Options {
  readonly port: number;
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** Makes one v2 server hosting the tasks (per 2026-07-28 request, per 2025-11-25 session). */
  readonly createServer: TaskServerFactoryV2;
  /** Authenticates every request; one it refuses gets 401. */
  readonly authenticate?: HttpAuthenticator;
  /** A 2025-11-25 session with no request for this long is closed. @default 3_600_000 */
  readonly sessionIdleMs?: number;
  readonly allowedHosts?: readonly string[];
  readonly allowedOrigins?: readonly string[];
}

function replyError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }));
}

/**
 * Serves the v2 endpoint until closed.
 *
 * @example
 * ```ts
 * const endpoint = await startHttpEndpointV2({ port: 0, createServer: () => v2Server(runtime) });
 * ```
 */
export async function startHttpEndpointV2(options: HttpEndpointV2Options): Promise<HttpEndpoint> {
  const host = options.host ?? '127.0.0.1';
  const checkOrigin = originGuard({ bind: host, allowedHosts: options.allowedHosts ?? [], allowedOrigins: options.allowedOrigins ?? [] });
  const endpoint = createTaskHttpHandlerV2(options.createServer, options.sessionIdleMs === undefined ? {} : { sessionIdleMs: options.sessionIdleMs });
  const authenticated = new WeakMap<IncomingMessage, Awaited<ReturnType<HttpAuthenticator>>>();
  const listener = toNodeListener(endpoint, (req) => authenticated.get(req));
  const http = createServer((req, res) => {
    void (async () => {
      const refused = checkOrigin(req);
      if (refused) return replyError(res, 403, -32000, refused.message);
      const path = new URL(req.url ?? '/', 'http://localhost').pathname;
      if (path !== '/mcp') return replyError(res, 404, -32601, `Not found: ${path} (the MCP endpoint is /mcp)`);
      if (options.authenticate) {
        const auth = await options.authenticate(req);
        if (auth === undefined) {
          res.setHeader('www-authenticate', 'Bearer');
          return replyError(res, 401, -32001, 'Unauthorized: send Authorization: Bearer <token> with a token this server knows');
        }
        authenticated.set(req, auth);
      }
      listener(req, res);
    })();
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, host, resolve);
  });
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/mcp`,
    async close() {
      await endpoint.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}
