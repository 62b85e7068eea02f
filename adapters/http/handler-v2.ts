/**
 * The SDK v2 line's Streamable HTTP handler (`createTaskHttpHandlerV2` under a Node listener),
 * behind the same Host/Origin guard, bearer tokens and body limits as the SDK v1 one. Loaded by
 * `index.ts` only when SDK v2 is asked for.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createTaskHttpHandlerV2, type TaskServerFactoryV2 } from '../mcp-server-v2/index.js';
import { nodeRequestServer } from '../mcp-server-v2/http-v2.js';
import { DEFAULT_MAX_PENDING_BODY_BYTES, PendingBodies } from '../wire/http-body.js';
import type { HttpAuthInfo, HttpHandler, HttpHandlerOptionsV2 } from './http.types.js';
import { originGuard } from './origin-guard.js';
import { requestTarget } from '../wire/request-target.js';

function replyError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }));
}

/**
 * The SDK v2 handler for `options`, answering to loopback names, `bind` and `allowedHosts`.
 *
 * @example
 * ```ts
 * const handle = createHandlerV2({ sdk: 'v2', createServer: () => v2Server(runtime) }, '127.0.0.1');
 * ```
 */
export function createHandlerV2(options: HttpHandlerOptionsV2, bind: string): HttpHandler {
  const checkOrigin = originGuard({ bind, allowedHosts: options.allowedHosts ?? [], allowedOrigins: options.allowedOrigins ?? [] });
  const path = options.path === undefined ? '/mcp' : options.path;
  const endpoint = createTaskHttpHandlerV2(options.createServer as TaskServerFactoryV2, {
    ...(options.sessionIdleMs !== undefined && { sessionIdleMs: options.sessionIdleMs }),
    ...(options.maxSessions !== undefined && { maxSessions: options.maxSessions }),
    ...(options.maxSessionsPerRequester !== undefined && { maxSessionsPerRequester: options.maxSessionsPerRequester }),
    ...(options.draining !== undefined && { draining: options.draining }),
  });
  const authenticated = new WeakMap<IncomingMessage, HttpAuthInfo>();
  const pending = new PendingBodies(options.maxPendingBodyBytes === undefined ? DEFAULT_MAX_PENDING_BODY_BYTES : options.maxPendingBodyBytes);
  const listener = nodeRequestServer(endpoint, (req) => authenticated.get(req), { pending, ...(options.maxBodyBytes !== undefined && { maxBodyBytes: options.maxBodyBytes }) });
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const refused = checkOrigin(req);
    if (refused) return replyError(res, 403, -32000, refused.message);
    const target = requestTarget(req.url);
    if ('refused' in target) return replyError(res, 400, -32600, `Bad Request: ${target.refused}`);
    if (path !== null && target.path !== path) return replyError(res, 404, -32601, `Not found: ${target.path} (the MCP endpoint is ${path})`);
    if (options.authenticate) {
      const auth = await options.authenticate(req);
      if (auth === undefined) {
        res.setHeader('www-authenticate', 'Bearer');
        return replyError(res, 401, -32001, 'Unauthorized: send Authorization: Bearer <token> with a token this server knows');
      }
      authenticated.set(req, auth);
    }
    await listener(req, res);
  };
  return Object.assign(handle, { close: () => endpoint.close() });
}
