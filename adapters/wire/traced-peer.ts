/**
 * The requester side of the MCP spans: every request a task client sends gets a CLIENT span named
 * as the conventions say, its trace context injected into `params._meta` (SEP-414), and its
 * duration recorded in `mcp.client.operation.duration`.
 *
 * @module
 */
import { context } from '@opentelemetry/api';
import { OTHER, startClientOperation, type McpOutcome } from './mcp-telemetry.js';
import type { RequesterPeer } from './task-client.wire.js';

/**
 * `peer` with each request traced.
 *
 * @example
 * ```ts
 * const client = tracedPeer(sdkClient);
 * await client.request({ method: 'tasks/get', params: { taskId } }, schema); // sent with _meta.traceparent inside a span
 * ```
 */
export function tracedPeer(peer: RequesterPeer): RequesterPeer {
  return {
    request(request, schema, options) {
      const { operation, params } = startClientOperation(request, {});
      const sent = context.with(operation.context, () => peer.request(params === undefined ? request : { ...request, params }, schema, options));
      void sent.then(
        (result) => operation.end({ result }),
        (error: unknown) => operation.end(outcomeOf(error)),
      );
      return sent;
    },
  };
}

/** A failed request's outcome: its JSON-RPC error (both SDK lines' errors carry the code), else what ended it. */
function outcomeOf(error: unknown): McpOutcome {
  const e = error as { code?: unknown; message?: unknown; name?: unknown } | null;
  if (typeof e?.code === 'number') return { error: { code: e.code, message: String(e.message) } };
  return { abandoned: e?.name === 'AbortError' ? 'cancelled' : OTHER };
}
