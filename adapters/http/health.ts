/**
 * Health probes, for an orchestrator: `GET /healthz` (the process is alive and serving HTTP: 200)
 * and `GET /readyz` (it can take new work: 200, else 503 with `{ ready: false, reasons }`). On
 * `serve --http` they are answered in front of everything else, and `--health-port` serves them
 * alone (stdio and worker nodes have no HTTP port of their own).
 *
 * They need no credentials and pass no Host/Origin check: a kubelet or load balancer sends none
 * and names the node by its address, and all they tell is "alive" and "ready or not, and why"
 * (the reasons name no task, session nor requester).
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readiness } from '../../runtime/index.js';
import { requestTarget } from '../wire/request-target.js';
import { closeServer, guardedServer } from './front.js';
import type { HttpHandler } from './http.types.js';
import type { Logger } from '../../runtime/logger.js';

/** The liveness probe's path. */
export const LIVENESS_PATH = '/healthz';
/** The readiness probe's path. */
export const READINESS_PATH = '/readyz';

/**
 * What the probes read.
 *
 * @example
 * ```ts
 * const probes: HealthProbes = { readiness: () => runtime.readiness(), draining: () => null };
 * ```
 */
export interface HealthProbes {
  /** Whether the node can take new work (`TaskRuntime.readiness`). */
  readonly readiness: () => Promise<Readiness>;
  /**
   * While the node drains (a number), every response asks its client to close the connection,
   * so that no idle keep-alive connection stays with a node that is going.
   */
  readonly draining?: () => number | null;
}

function json(res: ServerResponse, status: number, value: unknown, head: boolean): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(body) });
  res.end(head ? undefined : body);
}

/**
 * Answers a probe request, or returns `false` when the request is no probe's.
 *
 * @example
 * ```ts
 * if (await answerProbe(req, res, probes)) return;
 * ```
 */
export async function answerProbe(req: IncomingMessage, res: ServerResponse, probes: HealthProbes): Promise<boolean> {
  const target = requestTarget(req.url);
  if ('refused' in target || (target.path !== LIVENESS_PATH && target.path !== READINESS_PATH)) return false;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('allow', 'GET, HEAD');
    json(res, 405, { error: `Method not allowed: ${req.method ?? '?'} (a probe is read with GET)` }, false);
    return true;
  }
  const head = req.method === 'HEAD';
  if (target.path === LIVENESS_PATH) {
    json(res, 200, { alive: true }, head);
    return true;
  }
  let readiness: Readiness;
  try {
    readiness = await probes.readiness();
  } catch (error) {
    readiness = { ready: false, reasons: [`the readiness could not be read: ${error instanceof Error ? error.message : String(error)}`] };
  }
  json(res, readiness.ready ? 200 : 503, { ready: readiness.ready, reasons: readiness.reasons }, head);
  return true;
}

/**
 * `handle`, with the probes answered in front of it (before its Host/Origin guard and
 * authentication), and every response of a draining node closing its connection.
 *
 * @param handle - the MCP handler (with the status endpoint, on `serve`)
 * @example
 * ```ts
 * const front = withHealthProbes(handle, { readiness: () => runtime.readiness() });
 * ```
 */
export function withHealthProbes(handle: HttpHandler, probes: HealthProbes): HttpHandler {
  const serve = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if ((probes.draining?.() ?? null) !== null) res.setHeader('connection', 'close');
    if (await answerProbe(req, res, probes)) return;
    return handle(req, res);
  };
  return Object.assign(serve, { close: () => handle.close() });
}

/** Where {@link startHealthServer} listens. */
export interface HealthServerOptions {
  readonly port: number;
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** Where a request that failed unexpectedly is logged; absent: nowhere. */
  readonly logger?: Logger;
}

/**
 * A server of the probes alone (`serve --health-port`, for stdio and worker nodes). Any other
 * target gets 404, a malformed one 400: it never throws.
 *
 * @example
 * ```ts
 * const health = await startHealthServer({ port: 8081 }, { readiness: () => runtime.readiness() });
 * await health.close();
 * ```
 */
export async function startHealthServer(options: HealthServerOptions, probes: HealthProbes): Promise<{ readonly url: string; close(): Promise<void> }> {
  const host = options.host ?? '127.0.0.1';
  const server = guardedServer('health', async (req, res) => {
    if (await answerProbe(req, res, probes)) return;
    const target = requestTarget(req.url);
    if ('refused' in target) return json(res, 400, { error: `Bad Request: ${target.refused}` }, false);
    json(res, 404, { error: `Not found: ${target.path} (this port serves ${LIVENESS_PATH} and ${READINESS_PATH})` }, false);
  }, {}, options.logger);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`, close: () => closeServer(server, 1_000) };
}
