/**
 * `GET /status` beside `/mcp`: the node's status as `mcp-tasks status --json` prints it (nodes,
 * leases, tasks by status, resumable tasks), for `mcp-tasks status --http URL`. Read-only, behind
 * the operator access check (see `operator-access.ts`); every other request goes on to the MCP
 * handler unchanged, so both SDK lines get it from the front.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ClusterStatus } from '../../runtime/cluster-status.types.js';
import { requestTarget } from '../wire/request-target.js';
import type { HttpHandler } from './http.types.js';
import type { OperatorRefusal } from './operator-access.js';

/** The path of the status endpoint. */
export const STATUS_PATH = '/status';

/**
 * Where the endpoint reads the status: the process's runtime (`localStatusSource`) or a NATS
 * task space (`clusterStatusReader`).
 *
 * @example
 * ```ts
 * const source: StatusSource = clusterStatusReader(nc, { prefix: 'tasks', replicas: 1 });
 * ```
 */
export interface StatusSource {
  read(): Promise<ClusterStatus>;
  /** Frees what the source holds; called when the endpoint closes. */
  close?(): Promise<void>;
}

/** Options of {@link withStatusEndpoint}. */
export interface StatusEndpointOptions {
  readonly source: StatusSource;
  /** The operator access check (`operatorAccess`). */
  readonly access: (req: IncomingMessage) => OperatorRefusal;
}

function json(res: ServerResponse, status: number, value: unknown, head = false): void {
  const body = JSON.stringify(value);
  // The report names sessions and principals: never kept by a cache, never sniffed as a page.
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', 'content-length': Buffer.byteLength(body) });
  res.end(head ? undefined : body);
}

/**
 * `handle`, with `GET /status` answered in front of it.
 *
 * @param handle - the MCP handler; it answers every other request (bad targets included)
 * @example
 * ```ts
 * const front = withStatusEndpoint(handle, { source: localStatusSource(runtime), access: operatorAccess({ bind, operatorToken: null, requesterAuth: false }) });
 * ```
 */
export function withStatusEndpoint(handle: HttpHandler, options: StatusEndpointOptions): HttpHandler {
  const serve = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const target = requestTarget(req.url);
    if ('refused' in target || target.path !== STATUS_PATH) return handle(req, res);
    const refusal = options.access(req);
    if (refusal) {
      if (refusal.status === 401) res.setHeader('www-authenticate', 'Bearer');
      return json(res, refusal.status, refusal.body);
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      return json(res, 405, { error: `Method not allowed: ${req.method ?? '?'} (the status endpoint is read-only: GET)` });
    }
    let report: ClusterStatus;
    try {
      report = await options.source.read();
    } catch (error) {
      // The task space is away (NATS down), or the runtime is shutting down: say so, not 500.
      return json(res, 503, { error: `Service Unavailable: the status could not be read: ${error instanceof Error ? error.message : String(error)}` });
    }
    json(res, 200, report, req.method === 'HEAD');
  };
  return Object.assign(serve, {
    close: async () => {
      await handle.close();
      await options.source.close?.();
    },
  });
}
