/**
 * `serve --sdk v2 --http PORT`: Streamable HTTP at `/mcp` through the SDK v2 embedding
 * (`attachTaskServerV2`), behind the same origin guard and bearer tokens as the SDK v1 endpoint.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTaskHttpHandlerV2, type TaskServerFactoryV2 } from '../mcp-server-v2/index.js';
import { nodeRequestServer } from '../mcp-server-v2/http-v2.js';
import type { HttpEndpoint } from './endpoint-v1.js';
import type { HttpAuthenticator } from './auth.js';
import { DEFAULT_MAX_PENDING_BODY_BYTES, PendingBodies } from './body.js';
import { closeServer, guardedServer, type HttpTimeouts } from './front.js';
import { originGuard } from './origin-guard.js';
import { requestTarget } from './request-target.js';

/** Options of {@link startHttpEndpointV2}. */
export interface HttpEndpointV2Options extends HttpTimeouts {
  readonly port: number;
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** Makes one v2 server hosting the tasks (per 2026-07-28 request, per 2025-11-25 session). */
  readonly createServer: TaskServerFactoryV2;
  /** Authenticates every request; one it refuses gets 401. */
  readonly authenticate?: HttpAuthenticator;
  /** A 2025-11-25 session with no request for this long is closed. @default 3_600_000 */
  readonly sessionIdleMs?: number;
  /** See `TaskHttpHandlerV2Options.maxSessions`. @default 5_000 */
  readonly maxSessions?: number | null;
  readonly allowedHosts?: readonly string[];
  readonly allowedOrigins?: readonly string[];
  /** See `HttpEndpointOptions.maxBodyBytes`. @default 4_194_304 (4 MiB) */
  readonly maxBodyBytes?: number;
  /** See `HttpEndpointOptions.maxPendingBodyBytes`. @default 67_108_864 (64 MiB) */
  readonly maxPendingBodyBytes?: number | null;
  /** How long requests in flight may go on once `close()` is called, before they are cut. @default 5_000 */
  readonly closeGraceMs?: number;
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
  const endpoint = createTaskHttpHandlerV2(options.createServer, {
    ...(options.sessionIdleMs !== undefined && { sessionIdleMs: options.sessionIdleMs }),
    ...(options.maxSessions !== undefined && { maxSessions: options.maxSessions }),
  });
  const authenticated = new WeakMap<IncomingMessage, Awaited<ReturnType<HttpAuthenticator>>>();
  const pending = new PendingBodies(options.maxPendingBodyBytes === undefined ? DEFAULT_MAX_PENDING_BODY_BYTES : options.maxPendingBodyBytes);
  const listener = nodeRequestServer(endpoint, (req) => authenticated.get(req), { pending, ...(options.maxBodyBytes !== undefined && { maxBodyBytes: options.maxBodyBytes }) });
  const http = guardedServer('mcp', async (req, res) => {
    const refused = checkOrigin(req);
    if (refused) return replyError(res, 403, -32000, refused.message);
    const target = requestTarget(req.url);
    if ('refused' in target) return replyError(res, 400, -32600, `Bad Request: ${target.refused}`);
    if (target.path !== '/mcp') return replyError(res, 404, -32601, `Not found: ${target.path} (the MCP endpoint is /mcp)`);
    if (options.authenticate) {
      const auth = await options.authenticate(req);
      if (auth === undefined) {
        res.setHeader('www-authenticate', 'Bearer');
        return replyError(res, 401, -32001, 'Unauthorized: send Authorization: Bearer <token> with a token this server knows');
      }
      authenticated.set(req, auth);
    }
    await listener(req, res);
  }, options);
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, host, resolve);
  });
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/mcp`,
    async close() {
      await endpoint.close();
      await closeServer(http, options.closeGraceMs);
    },
  };
}
