/**
 * One JSON-RPC request of the stateless 2026-07-28 wire in, one reply out: the per-request `_meta`
 * replaces `initialize`, `server/discover` replaces the capability exchange, and the tasks
 * extension rides on the same runtime as the session-based dialects. The SDK 1.x `Server` cannot
 * serve this wire (it needs a session and rejects the version), hence this small dispatcher.
 *
 * `tools/call`, `prompts/get` and `resources/read` may become tasks. `subscriptions/listen` offers
 * task status only. Not served: `completion/complete` and `resources/subscribe` (-32601).
 *
 * @experimental the 2026-07-28 protocol is a draft.
 * @module
 */
import { context as otel } from '@opentelemetry/api';
import type { Implementation } from '../mcp-shapes.js';
import { startServerOperation, type KnownTargets } from '../mcp-telemetry.js';
import type { TaskRuntime } from '../../../runtime/index.js';
import { TASKS_EXTENSION_ID } from '../../dialects/ext/index.js';
import { registerWork } from '../register-work.js';
import type { InlineAnswerOptions, TaskServerDefinitions } from '../definitions.js';
import { describePrompt, describeResource, describeTool, servedDefinitions } from '../served-work.js';
import { JsonRpcCode, JsonRpcError } from '../wire-errors.js';
import { checkRoutingHeaders, type RequestHeaders } from './headers.js';
import { listenForTasks } from './subscriptions.js';
import { extTaskMethod } from './task-methods.js';
import { callStateless, ownerOf2026, type StatelessCall } from './work-call.js';
import { bearerOwner } from '../../../runtime/secrets.js';
import { errorReply, PROTOCOL_2026_07_28, readRequestMeta, RequestMetaKey, StatelessError, type StatelessReply } from './wire.js';

/** A result to wrap in the JSON-RPC response, or a stream that carries its own messages. */
type Answer = { readonly result: Record<string, unknown> } | Extract<StatelessReply, { stream: unknown }>;

/** Options of {@link createStatelessHandler}. */
export interface StatelessHandlerOptions extends TaskServerDefinitions, InlineAnswerOptions {
  /** Where tasks live; the same runtime the session-based dialects use. */
  readonly runtime: TaskRuntime;
  /** The server's name and version, sent in every result's `_meta`. */
  readonly info: Implementation;
}

/** Who sent one request and over what. */
export interface StatelessRequestContext {
  /** HTTP headers (lower-cased names) for the SEP-2243 checks; absent on transports without headers. */
  readonly headers?: RequestHeaders;
  /** The authenticated principal, or `null` when the transport does not authenticate. */
  readonly principal: string | null;
  /**
   * The connection the request came over when that connection is one requester (stdio: the
   * process at the other end): without a principal, its tasks are this connection's own.
   * Absent over HTTP, where a connection tells nothing of who asks.
   */
  readonly connection?: string;
  /**
   * The address the request came from (HTTP: the socket's remote address): an anonymous
   * requester's limits and suspicion are counted per address, its tasks still reachable by id alone.
   */
  readonly peer?: string;
  /** Aborted when the requester goes away. */
  readonly signal: AbortSignal;
}

/** Answers one JSON-RPC request of the stateless wire. */
export type StatelessHandler = (message: { id: string | number; method: string; params?: unknown }, context: StatelessRequestContext) => Promise<StatelessReply>;

/**
 * Makes the dispatcher for the stateless wire over the given definitions, and registers their work
 * with the runtime (so tasks created here run even before any session-based connection exists).
 *
 * @example
 * ```ts
 * const stateless = createStatelessHandler({ runtime, info: { name: 'demo', version: '1.0.0' }, tools });
 * const { status, body } = await stateless(message, { headers: req.headers, principal: null, signal });
 * ```
 */
export function createStatelessHandler(options: StatelessHandlerOptions): StatelessHandler {
  const { runtime, info } = options;
  const served = servedDefinitions(options);
  registerWork(runtime, served.tools.values(), options);
  const listed = { tools: [...served.tools.values()].map(describeTool), prompts: [...served.prompts.values()].map(describePrompt), resources: [...served.resources.values()].map(describeResource) };
  const capabilities = {
    ...(served.tools.size > 0 && { tools: {} }),
    ...(served.prompts.size > 0 && { prompts: {} }),
    ...(served.resources.size > 0 && { resources: {} }),
    extensions: { [TASKS_EXTENSION_ID]: {} },
  };
  const serverMeta = { [RequestMetaKey.serverInfo]: { name: info.name, version: info.version } };

  const answer = async (id: string | number, method: string, params: Record<string, unknown>, context: StatelessRequestContext): Promise<Answer> => {
    // Headers first: a request whose headers lie must not be acted on, whatever its body says.
    if (context.headers) checkRoutingHeaders(context.headers, method, params);
    const meta = readRequestMeta(params);
    const call: StatelessCall = { runtime, served, meta, owner: ownerOf2026(context.principal, context.connection ?? null, context.peer), signal: context.signal };
    switch (method) {
      case 'server/discover':
        // No legacy `capabilities.tasks` here: on this version tasks are the extension only.
        return { result: { resultType: 'complete', supportedVersions: [PROTOCOL_2026_07_28], capabilities, cacheScope: 'public', ttlMs: 0 } };
      case 'tools/list':
        return { result: { resultType: 'complete', tools: listed.tools, cacheScope: 'public', ttlMs: 0 } };
      case 'prompts/list':
        return { result: { resultType: 'complete', prompts: listed.prompts, cacheScope: 'public', ttlMs: 0 } };
      case 'resources/list':
        return { result: { resultType: 'complete', resources: listed.resources, cacheScope: 'public', ttlMs: 0 } };
      case 'tools/call':
      case 'prompts/get':
      case 'resources/read':
        return { result: await callStateless(call, method, params) };
      case 'subscriptions/listen':
        return listenForTasks(call, id, params, info);
      case 'tasks/get':
      case 'tasks/update':
      case 'tasks/cancel':
        return { result: await extTaskMethod(call, method, params) };
      default:
        // Includes initialize, ping, tasks/result and tasks/list: gone on this wire, while the
        // session-based dialects on the same endpoint keep them.
        throw new JsonRpcError(JsonRpcCode.methodNotFound, `Method not found: ${method} (not served on protocol ${PROTOCOL_2026_07_28})`);
    }
  };

  const dispatch: StatelessHandler = async (message, context) => {
    try {
      const params = message.params ?? {};
      if (typeof params !== 'object' || params === null || Array.isArray(params)) {
        throw new StatelessError(JsonRpcCode.invalidParams, `Invalid params for ${message.method}: params must be an object`, 400);
      }
      const answered = await answer(message.id, message.method, params as Record<string, unknown>, context);
      if ('stream' in answered) return answered;
      const { result } = answered;
      const own = typeof result['_meta'] === 'object' && result['_meta'] !== null ? (result['_meta'] as Record<string, unknown>) : {};
      return { status: 200, body: { jsonrpc: '2.0', id: message.id, result: { ...result, _meta: { ...own, ...serverMeta } } } };
    } catch (error) {
      return errorReply(message.id, error);
    }
  };
  const targets: KnownTargets = (kind, name) => (kind === 'tool' ? served.tools : served.prompts).has(name);
  return (message, context) => traced(message, context, dispatch, targets);
}

/**
 * One request in its SERVER span (see `mcp-telemetry.ts`): a stream's span ends when the stream
 * is handed over, as the response has then begun.
 */
async function traced(message: Parameters<StatelessHandler>[0], context: StatelessRequestContext, dispatch: StatelessHandler, targets: KnownTargets): Promise<StatelessReply> {
  const params = typeof message.params === 'object' && message.params !== null && !Array.isArray(message.params) ? (message.params as Record<string, unknown>) : undefined;
  // The only version this wire serves (a request naming another is refused, in its span).
  const operation = startServerOperation({ method: message.method, id: message.id, ...(params && { params }) }, { network: context.headers ? 'tcp' : 'pipe', protocolVersion: PROTOCOL_2026_07_28, targets, bearerTasks: bearerOwner(ownerOf2026(context.principal, context.connection ?? null, context.peer)) });
  const reply = await otel.with(operation.context, () => dispatch(message, context));
  const body = 'body' in reply && typeof reply.body === 'object' && reply.body !== null ? (reply.body as { result?: unknown; error?: { code: number; message: string } }) : undefined;
  operation.end(body?.error ? { error: body.error } : { result: body?.result });
  return reply;
}
