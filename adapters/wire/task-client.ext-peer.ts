/**
 * The requester's path to a 2026-07-28 server (the tasks extension): every request carries the
 * wire's `_meta` envelope (protocol version, client info, client capabilities with the extension
 * declared) and goes out through a raw dispatch, since an SDK client refuses `resultType: "task"`.
 *
 * @experimental the 2026-07-28 protocol is a draft.
 * @module
 */
import type { z } from 'zod';
import { TASKS_EXTENSION_ID } from '../dialects/ext/index.js';
import { PROTOCOL_2026_07_28, RequestMetaKey } from './stateless/wire.js';
import type { RequesterPeer } from './task-client.wire.js';

/**
 * One JSON-RPC response as a raw dispatch gives it back: a result, or the JSON-RPC error.
 *
 * @example
 * ```ts
 * const answer: RawDispatchResponse = { kind: 'error', error: { code: -32602, message: 'Task not found' } };
 * ```
 */
export type RawDispatchResponse =
  | { readonly kind: 'result'; readonly result: unknown }
  | { readonly kind: 'error'; readonly error: { readonly code: number; readonly message: string; readonly data?: unknown } };

/**
 * Sends one JSON-RPC request and resolves with its response. `createRawDispatch(url)` from
 * `mcp-task-actors/adapters/mcp-client-v2` is one over Streamable HTTP.
 *
 * @example
 * ```ts
 * const dispatch: RawDispatch = createRawDispatch('http://127.0.0.1:3000/mcp', { headers: { authorization: 'Bearer t' } });
 * ```
 */
export type RawDispatch = (request: { readonly method: string; readonly params?: Record<string, unknown> }, call?: { readonly signal?: AbortSignal }) => Promise<RawDispatchResponse>;

/**
 * A JSON-RPC error answered by the server, with its code (read as `rpcCode` by the requester).
 *
 * @example
 * ```ts
 * catch (e) { if (e instanceof RawRpcError && e.code === -32602) console.log('no such task'); }
 * ```
 */
export class RawRpcError extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor(method: string, error: { readonly code: number; readonly message: string; readonly data?: unknown }) {
    super(`${method}: ${error.message}`);
    this.name = 'RawRpcError';
    this.code = error.code;
    this.data = error.data;
  }
}

/** Who the requester says it is on each 2026-07-28 request. */
export interface ExtensionFraming {
  readonly clientInfo: { readonly name: string; readonly version: string };
  /** Declared on every request; the tasks extension is added to it. */
  readonly clientCapabilities: Record<string, unknown>;
}

/**
 * A `RequesterPeer` over a raw dispatch on the 2026-07-28 wire.
 *
 * @example
 * ```ts
 * const peer = new ExtensionPeer(createRawDispatch(url), { clientInfo: { name: 'agent', version: '1.0.0' }, clientCapabilities: {} });
 * ```
 */
export class ExtensionPeer implements RequesterPeer {
  readonly #envelope: Record<string, unknown>;

  constructor(
    private readonly dispatch: RawDispatch,
    framing: ExtensionFraming,
  ) {
    const extensions = { ...(framing.clientCapabilities['extensions'] as Record<string, unknown> | undefined), [TASKS_EXTENSION_ID]: {} };
    this.#envelope = {
      [RequestMetaKey.protocolVersion]: PROTOCOL_2026_07_28,
      [RequestMetaKey.clientInfo]: framing.clientInfo,
      [RequestMetaKey.clientCapabilities]: { ...framing.clientCapabilities, extensions },
    };
  }

  async request(request: { method: string; params?: Record<string, unknown> }, schema: z.ZodType, options: { signal?: AbortSignal } = {}): Promise<unknown> {
    const params = request.params ?? {};
    const own = params['_meta'] as Record<string, unknown> | undefined;
    // A call may declare more than the requester does (a per-call onInputRequest can answer
    // questions): the server lets the task ask only what the creating request declared.
    const more = own?.[RequestMetaKey.clientCapabilities];
    const envelope =
      typeof more === 'object' && more !== null
        ? { ...this.#envelope, [RequestMetaKey.clientCapabilities]: { ...(more as Record<string, unknown>), ...(this.#envelope[RequestMetaKey.clientCapabilities] as Record<string, unknown>) } }
        : this.#envelope;
    const meta = { ...own, ...envelope };
    const answer = await this.dispatch({ method: request.method, params: { ...params, _meta: meta } }, options.signal ? { signal: options.signal } : {});
    if (answer.kind === 'error') throw new RawRpcError(request.method, answer.error);
    return schema.parse(answer.result);
  }
}
