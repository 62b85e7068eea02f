/**
 * Checks of 2026-07-28 requests that SDK v2 serves or reshapes before any handler of ours sees
 * them, made on the request as it came: `subscriptions/listen` (served by the SDK's own listen
 * router) asking for task ids without the tasks extension, and a `tasks/update` whose
 * `inputResponses` is not a map (the SDK lifts it out of the params and keeps only well-formed
 * answers, so a handler cannot tell `[]` from `{}`). The same rules, in the same words, as the
 * stateless dispatcher of `mcp-tasks serve`. SDK-free.
 *
 * @module
 */
import { checkTaskSubscription } from '../wire/stateless/subscriptions.js';
import { checkInputResponses } from '../wire/stateless/task-methods.js';
import { errorReply, RequestMetaKey } from '../wire/stateless/wire.js';
import { JsonRpcError } from '../wire/wire-errors.js';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The reply refusing one inbound JSON-RPC message (its HTTP status and JSON-RPC error, as the
 * stateless dispatcher replies), or `undefined` when it is the SDK's to serve (any message that is
 * not a well-formed request carrying the 2026-07-28 envelope is).
 *
 * @example
 * ```ts
 * refuseInbound({ jsonrpc: '2.0', id: 1, method: 'tasks/update', params: { taskId, inputResponses: [] } });
 * // (with the 2026-07-28 envelope in params._meta) { status: 200, body: { jsonrpc: '2.0', id: 1, error: { code: -32602, … } } }
 * ```
 */
export function refuseInbound(message: unknown): { readonly status: number; readonly body: unknown } | undefined {
  // Only a well-formed 2026-07-28 request: anything else is the SDK's to answer (or refuse).
  if (!isRecord(message) || message['jsonrpc'] !== '2.0' || !isRecord(message['params'])) return undefined;
  const id = message['id'];
  if (typeof id !== 'string' && typeof id !== 'number') return undefined;
  const params = message['params'];
  if (!isRecord(params['_meta']) || typeof params['_meta'][RequestMetaKey.protocolVersion] !== 'string') return undefined;
  try {
    if (message['method'] === 'tasks/update') checkInputResponses(params);
    if (message['method'] === 'subscriptions/listen' && isRecord(params['notifications']) && 'taskIds' in params['notifications']) {
      const caps = params['_meta'][RequestMetaKey.clientCapabilities];
      checkTaskSubscription(params, isRecord(caps) ? caps : {});
    }
    return undefined;
  } catch (error) {
    if (!(error instanceof JsonRpcError)) throw error;
    return errorReply(id, error);
  }
}
