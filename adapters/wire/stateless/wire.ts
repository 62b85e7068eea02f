/**
 * The envelope of the stateless 2026-07-28 wire: its version, its error codes and the HTTP status
 * each error travels with, and the per-request `_meta` that replaces `initialize`.
 *
 * @experimental the 2026-07-28 protocol is a draft.
 * @module
 */
import { JsonRpcCode, JsonRpcError, toJsonRpcError } from '../wire-errors.js';

/** The protocol version this wire speaks. */
export const PROTOCOL_2026_07_28 = '2026-07-28';

/** `_meta` keys every request of this wire carries (SEP-2575). */
export const RequestMetaKey = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
} as const;

/** Error codes this wire adds to JSON-RPC's. */
export const StatelessCode = {
  /** `Mcp-Method` / `Mcp-Name` disagree with the body (SEP-2243). */
  headerMismatch: -32020,
  /** The request needs a client capability it did not declare. */
  missingCapability: -32021,
  /** The requested protocol version is not served here. */
  unsupportedVersion: -32022,
} as const;

/**
 * What the transport sends back: a status and one JSON body, or (`subscriptions/listen`) a stream
 * of messages that `run` emits until it resolves or `signal` (the requester left) aborts.
 */
export type StatelessReply =
  | { readonly status: number; readonly body: unknown }
  | { readonly status: number; readonly stream: (emit: (message: unknown) => void, signal: AbortSignal) => Promise<void> };

/**
 * A wire error that also says which HTTP status carries it: the stateless wire maps envelope and
 * negotiation errors to 4xx so that intermediaries can see them without reading the body.
 *
 * @example
 * ```ts
 * throw new StatelessError(-32020, 'Header mismatch: Mcp-Method', 400);
 * ```
 */
export class StatelessError extends JsonRpcError {
  readonly httpStatus: number;
  constructor(code: number, message: string, httpStatus: number, data?: unknown) {
    super(code, message, data);
    this.name = 'StatelessError';
    this.httpStatus = httpStatus;
  }
}

/**
 * The -32021 error for a request that needs the tasks extension (or another capability) the
 * client did not declare on this request.
 *
 * @example
 * ```ts
 * throw missingCapability({ extensions: { 'io.modelcontextprotocol/tasks': {} } }, 'long_job must run as a task');
 * ```
 */
export function missingCapability(requiredCapabilities: Record<string, unknown>, why: string): StatelessError {
  return new StatelessError(StatelessCode.missingCapability, `Missing required client capability: ${why}`, 400, { requiredCapabilities });
}

/** What a request says about its client, read from its own `_meta`. */
export interface RequestMeta {
  readonly protocolVersion: string;
  readonly clientCapabilities: Record<string, unknown>;
  readonly clientInfo?: unknown;
}

/**
 * Reads the per-request `_meta` (protocol version, client capabilities, client info).
 *
 * @throws StatelessError -32602 (HTTP 400) when the version or capabilities are missing or malformed,
 *   -32022 when the version is not served here
 * @example
 * ```ts
 * readRequestMeta({ _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } });
 * ```
 */
export function readRequestMeta(params: Record<string, unknown>): RequestMeta {
  const meta = params['_meta'];
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) {
    throw new StatelessError(JsonRpcCode.invalidParams, `Invalid params: _meta with "${RequestMetaKey.protocolVersion}" and "${RequestMetaKey.clientCapabilities}" is required on every request`, 400);
  }
  const m = meta as Record<string, unknown>;
  const version = m[RequestMetaKey.protocolVersion];
  if (typeof version !== 'string') {
    throw new StatelessError(JsonRpcCode.invalidParams, `Invalid params: _meta["${RequestMetaKey.protocolVersion}"] must be a string`, 400);
  }
  if (version !== PROTOCOL_2026_07_28) {
    throw new StatelessError(StatelessCode.unsupportedVersion, `Unsupported protocol version: ${version}`, 400, { requested: version, supported: [PROTOCOL_2026_07_28] });
  }
  const caps = m[RequestMetaKey.clientCapabilities];
  if (typeof caps !== 'object' || caps === null || Array.isArray(caps)) {
    throw new StatelessError(JsonRpcCode.invalidParams, `Invalid params: _meta["${RequestMetaKey.clientCapabilities}"] must be an object ({} declares none)`, 400);
  }
  return { protocolVersion: version, clientCapabilities: caps as Record<string, unknown>, clientInfo: m[RequestMetaKey.clientInfo] };
}

/**
 * The reply to a request of this wire that failed: unknown and removed methods are 404, envelope
 * problems 400 (a {@link StatelessError} says which), the rest 200.
 *
 * @example
 * ```ts
 * errorReply(7, missingCapability(TASKS_REQUIRED, 'why')); // { status: 400, body: { jsonrpc: '2.0', id: 7, error: { code: -32021, … } } }
 * ```
 */
export function errorReply(id: string | number, error: unknown): { readonly status: number; readonly body: unknown } {
  const e = toJsonRpcError(error);
  const status = e instanceof StatelessError ? e.httpStatus : e.code === JsonRpcCode.methodNotFound ? 404 : 200;
  const body = { jsonrpc: '2.0', id, error: e.data === undefined ? { code: e.code, message: e.message } : { code: e.code, message: e.message, data: e.data } };
  return { status, body };
}
