/**
 * A handler of either SDK line on a port of its own: the request deadlines, the guard that turns
 * an unexpected error into one 500, a close that always ends, and (for `mcp-tasks serve`) the
 * operator's status endpoint in front of the MCP handler.
 *
 * @module
 */
import type { AddressInfo } from 'node:net';
import type { Logger } from '../../runtime/logger.js';
import { closeServer, guardedServer } from './front.js';
import { handlerFor } from './handler-for.js';
import type { HttpEndpoint, HttpEndpointOptions, HttpHandler, HttpListenOptions } from './http.types.js';
import { operatorAccess } from './operator-access.js';
import { withStatusEndpoint, type StatusSource } from './status-endpoint.js';
import { withHealthProbes, type HealthProbes } from './health.js';

/**
 * What `mcp-tasks serve` adds in front of the MCP handler: `GET /status`, read from `status`,
 * behind the operator access check (see `operator-access.ts`).
 *
 * @example
 * ```ts
 * const operator: OperatorFront = { status: localStatusSource(runtime), operatorToken: process.env['MCP_TASKS_OPERATOR_TOKEN'] ?? null };
 * ```
 */
export interface OperatorFront {
  readonly status: StatusSource;
  /** The operator token, or `null` for none (then only a loopback, anonymous server answers). */
  readonly operatorToken: string | null;
  /** `GET /healthz` and `GET /readyz` in front of everything (no operator access needed, see `health.ts`). */
  readonly probes?: HealthProbes;
}

/**
 * Starts the endpoint of `options` (the SDK line's handler on its port), with the operator's
 * status endpoint in front of it when `operator` is given.
 *
 * @throws MissingPeerDependencyError when the SDK line asked for is not installed
 * @example
 * ```ts
 * const endpoint = await startEndpoint({ port: 0, createServer }, { status: localStatusSource(runtime), operatorToken: null });
 * ```
 */
export async function startEndpoint(options: HttpEndpointOptions, operator?: OperatorFront): Promise<HttpEndpoint> {
  const bind = options.host ?? '127.0.0.1';
  // The token is checked before the SDK loads: a bad flag is told at once.
  const access = operator && operatorAccess({ bind, operatorToken: operator.operatorToken, requesterAuth: options.authenticate !== undefined, allowedHosts: options.allowedHosts ?? [], allowedOrigins: options.allowedOrigins ?? [] });
  const handle = await handlerFor(options, bind);
  const front = operator && access ? withStatusEndpoint(handle, { source: operator.status, access }) : handle;
  return listenHttp(operator?.probes ? withHealthProbes(front, operator.probes) : front, options);
}

/**
 * Serves `handle` on `options.port` until closed.
 *
 * @example
 * ```ts
 * const endpoint = await listenHttp(handle, { port: 0 }); // endpoint.url: http://127.0.0.1:PORT/mcp
 * ```
 */
export async function listenHttp(handle: HttpHandler, options: HttpListenOptions & { readonly path?: string | null; readonly logger?: Logger | undefined }): Promise<HttpEndpoint> {
  const host = options.host ?? '127.0.0.1';
  const server = guardedServer('mcp', handle, options, options.logger);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  // Calls: POSTs whose body has arrived, until answered. A standalone GET stream lasts as long as
  // its session, and a half-sent body may never come: either would keep a drain waiting for nothing.
  let calls = 0;
  let draining = false;
  // Before the handler, which may answer at once (a probe).
  server.prependListener('request', (_req, res) => {
    // Draining: each kept-alive connection closes after its next answer. Closing idle ones at once
    // would reset a request already on its way over one (a poll sent just after SIGTERM). A stream
    // that names its own Connection header keeps it.
    if (draining && !res.headersSent) res.setHeader('connection', 'close');
  });
  server.on('request', (req, res) => {
    if (req.method !== 'POST') return;
    req.once('end', () => {
      if (res.writableFinished || res.destroyed) return;
      calls += 1;
      res.once('close', () => (calls -= 1));
    });
  });
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}${options.path ?? '/mcp'}`,
    close: async () => {
      // Sessions first: their event streams end, so the connections they held are idle when closed.
      await handle.close();
      await closeServer(server, options.closeGraceMs);
    },
    drain: () => {
      draining = true;
    },
    callsInFlight: () => calls,
  };
}
