/**
 * What a draining server answers a requester that opens something new (a session, over HTTP):
 * 503 with `Retry-After`, and a JSON-RPC error naming the shutdown, the same code a refused task
 * create gets (`JsonRpcCode.shuttingDown`). One shape for both SDK lines' HTTP handlers.
 *
 * @module
 */
import { JsonRpcCode } from './wire-errors.js';

/** A 503 refusal of a draining server. */
export interface ShuttingDownRefusal {
  readonly status: 503;
  /** The `Retry-After` header: whole seconds, at least 1. */
  readonly retryAfter: string;
  readonly body: { readonly jsonrpc: '2.0'; readonly id: null; readonly error: { readonly code: number; readonly message: string; readonly data: unknown } };
}

/**
 * The refusal of a new session while the server drains.
 *
 * @param retryAfterMs - when to try again (through a load balancer, another node answers)
 * @example
 * ```ts
 * const r = shuttingDownRefusal(1_000);
 * res.writeHead(r.status, { 'retry-after': r.retryAfter, 'content-type': 'application/json' }).end(JSON.stringify(r.body));
 * ```
 */
export function shuttingDownRefusal(retryAfterMs: number): ShuttingDownRefusal {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1_000));
  const message = `Service Unavailable: this server is shutting down and opens no new session; retry after ${seconds} s (another node may take it)`;
  return { status: 503, retryAfter: String(seconds), body: { jsonrpc: '2.0', id: null, error: { code: JsonRpcCode.shuttingDown, message, data: { reason: 'shutting-down', retryAfterMs } } } };
}
