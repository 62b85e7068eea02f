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
import { checkTaskSubscription } from '../mcp-server/stateless/subscriptions.js';
import { checkInputResponses } from '../mcp-server/stateless/task-methods.js';
import { RequestMetaKey, StatelessError } from '../mcp-server/stateless/wire.js';
import { JsonRpcError } from '../mcp-server/wire-errors.js';

/** A refusal: the JSON-RPC error and the HTTP status it travels with. */
export interface InboundRefusal {
  readonly status: number;
  readonly error: { readonly code: number; readonly message: string; readonly data?: unknown };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The refusal of one inbound JSON-RPC message, or `undefined` when it is the SDK's to serve (any
 * message that is not a well-formed request carrying the 2026-07-28 envelope is).
 *
 * @example
 * ```ts
 * refuseInbound({ jsonrpc: '2.0', id: 1, method: 'tasks/update', params: { taskId, inputResponses: [] } });
 * // (with the 2026-07-28 envelope in params._meta) { status: 200, error: { code: -32602, … } }
 * ```
 */
export function refuseInbound(message: unknown): InboundRefusal | undefined {
  // Only a well-formed 2026-07-28 request: anything else is the SDK's to answer (or refuse).
  if (!isRecord(message) || message['jsonrpc'] !== '2.0' || !isRecord(message['params'])) return undefined;
  if (typeof message['id'] !== 'string' && typeof message['id'] !== 'number') return undefined;
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
    const body = { code: error.code, message: error.message, ...(error.data !== undefined && { data: error.data }) };
    return { status: error instanceof StatelessError ? error.httpStatus : 200, error: body };
  }
}
