/**
 * A handler of either SDK line on a port of its own: the request deadlines, the guard that turns
 * an unexpected error into one 500, and a close that always ends.
 *
 * @module
 */
import type { AddressInfo } from 'node:net';
import { closeServer, guardedServer } from './front.js';
import type { HttpEndpoint, HttpHandler, HttpListenOptions } from './http.types.js';

/**
 * Serves `handle` on `options.port` until closed.
 *
 * @example
 * ```ts
 * const endpoint = await listenHttp(handle, { port: 0 }); // endpoint.url: http://127.0.0.1:PORT/mcp
 * ```
 */
export async function listenHttp(handle: HttpHandler, options: HttpListenOptions & { readonly path?: string | null }): Promise<HttpEndpoint> {
  const host = options.host ?? '127.0.0.1';
  const server = guardedServer('mcp', handle, options);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}${options.path ?? '/mcp'}`,
    close: async () => {
      // Sessions first: their event streams end, so the connections they held are idle when closed.
      await handle.close();
      await closeServer(server, options.closeGraceMs);
    },
  };
}
