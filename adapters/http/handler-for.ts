/**
 * The MCP handler of the SDK line an endpoint's options ask for, its SDK loaded only then: a
 * project with one SDK line installed never loads the other.
 *
 * @module
 */
import { loadWithPeer } from '../peer-dependency.js';
import type { HttpHandler, HttpHandlerOptions } from './http.types.js';

const ENTRY = 'mcp-task-actors/http';

/**
 * The handler of the SDK line `options.sdk`, answering to loopback names, `bind` and `allowedHosts`.
 *
 * @throws MissingPeerDependencyError when the SDK line asked for is not installed
 * @example
 * ```ts
 * const handle = await handlerFor({ createServer }, '127.0.0.1');
 * ```
 */
export async function handlerFor(options: HttpHandlerOptions, bind: string): Promise<HttpHandler> {
  if (options.sdk === 'v2') {
    const { createHandlerV2 } = await loadWithPeer('@modelcontextprotocol/server', '^2.4.0', ENTRY, () => import('./handler-v2.js'));
    return createHandlerV2(options, bind);
  }
  const { createHandlerV1 } = await loadWithPeer('@modelcontextprotocol/sdk', '>=1.25.0 <=1.32.2', ENTRY, () => import('./handler-v1.js'));
  return createHandlerV1(options, bind);
}
