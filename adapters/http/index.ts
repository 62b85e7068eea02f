/**
 * MCP over Streamable HTTP with tasks, for embedders: the endpoint `mcp-tasks serve --http` runs,
 * with its Host/Origin guard, bearer tokens, body and session limits, idle timeout and (SDK v1,
 * NATS) sessions shared across nodes. `startHttpEndpoint` listens on a port of its own;
 * `createHttpHandler` is a Node `(req, res)` handler to mount in your own server.
 *
 * Each SDK line is loaded only when asked for (`sdk: 'v1'`, the default, needs
 * `@modelcontextprotocol/sdk`; `sdk: 'v2'` needs `@modelcontextprotocol/server`); without it,
 * the call fails with a `MissingPeerDependencyError` that says what to install.
 *
 * @example
 * ```ts
 * import { startHttpEndpoint } from 'mcp-task-actors/http';
 * const endpoint = await startHttpEndpoint({ port: 3000, createServer: () => createTaskServer(info, { runtime, tools }) });
 * console.error(`serving at ${endpoint.url}`);
 * ```
 *
 * @module
 */
import { startEndpoint } from './endpoint.js';
import { guardHandler } from './front.js';
import { handlerFor } from './handler-for.js';
import type { HttpEndpoint, HttpEndpointOptions, HttpHandler, HttpHandlerOptions } from './http.types.js';

export type {
  HttpAuthInfo,
  HttpAuthenticator,
  HttpEndpoint,
  HttpEndpointOptions,
  HttpHandler,
  HttpHandlerOptions,
  HttpHandlerOptionsV1,
  HttpHandlerOptionsV2,
  HttpListenOptions,
  McpServerLike,
  SessionRecord,
} from './http.types.js';
export type { HttpTimeouts } from './front.js';
export { bearerTokens } from './auth.js';
export { MissingPeerDependencyError } from '../peer-dependency.js';

/**
 * A Node `(req, res)` handler serving MCP with tasks at `options.path` (`/mcp`), to mount in
 * `node:http`, Express (`app.all('/mcp', handler)`), Fastify or Hono's Node adapter. An
 * unexpected error in one request answers 500 and is logged; the process goes on. It answers to
 * loopback `Host` names and `allowedHosts`: list your public names there.
 *
 * @param options - `createServer` (a server with the tasks attached, per session) and the limits;
 *   `sdk: 'v2'` for `@modelcontextprotocol/server` servers
 * @throws MissingPeerDependencyError when the SDK line asked for is not installed
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { createHttpHandler } from 'mcp-task-actors/http';
 * const mcp = await createHttpHandler({ createServer: () => createTaskServer(info, { runtime, tools }) });
 * createServer((req, res) => void mcp(req, res)).listen(3000);
 * ```
 */
export async function createHttpHandler(options: HttpHandlerOptions): Promise<HttpHandler> {
  const handle = await handlerFor(options, '127.0.0.1');
  return Object.assign(guardHandler('mcp', handle, options.logger), { close: () => handle.close() });
}

/**
 * Serves MCP with tasks over Streamable HTTP at `http://HOST:PORT/mcp` until closed: the
 * endpoint of `mcp-tasks serve --http`, with the same guard, limits and session handling.
 *
 * @param options - the port (0: a free one), `createServer`, and the limits; `sdk: 'v2'` for
 *   `@modelcontextprotocol/server` servers
 * @throws MissingPeerDependencyError when the SDK line asked for is not installed
 * @example
 * ```ts
 * import { startHttpEndpoint } from 'mcp-task-actors/http';
 * const endpoint = await startHttpEndpoint({ port: 3000, createServer: () => createTaskServer(info, { runtime, tools }), logger: pino() });
 * process.once('SIGTERM', () => void endpoint.close());
 * ```
 */
export async function startHttpEndpoint(options: HttpEndpointOptions): Promise<HttpEndpoint> {
  return startEndpoint(options);
}
