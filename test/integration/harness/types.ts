/**
 * The raw JSON-RPC client the black-box integration tests talk through: its message types and
 * the {@link Wire} / {@link InteractiveWire} interfaces. Implemented once in wire.ts
 * ({@link WireCore}), over stdio (stdio-wire.ts) and Streamable HTTP (http-wire.ts).
 */
export type JsonRpcId = string | number;

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** A whole JSON-RPC response message: exactly one of result / error is set. */
export interface JSONRPCResponse {
  jsonrpc: '2.0';
  id: JsonRpcId | null;
  result?: Record<string, unknown>;
  error?: JsonRpcErrorObject;
}

export interface JSONRPCNotification {
  jsonrpc: '2.0';
  method: string;
  params?: Record<string, unknown>;
}

export interface JSONRPCRequest {
  jsonrpc: '2.0';
  id: JsonRpcId;
  method: string;
  params?: Record<string, unknown>;
}

/** Every message the server sent us, in arrival order. */
export type InboundEntry =
  | { kind: 'response'; seq: number; message: JSONRPCResponse }
  | { kind: 'notification'; seq: number; message: JSONRPCNotification }
  | { kind: 'request'; seq: number; message: JSONRPCRequest };

export interface RequestOptions {
  /** Use this JSON-RPC id instead of an auto-generated one. */
  id?: JsonRpcId;
  /** How long request()/responseFor() wait before rejecting (default 10 s). */
  timeoutMs?: number;
}

export interface Wire {
  readonly transport: 'stdio' | 'http';
  /** The `result` of the initialize response. */
  readonly initializeResult: Record<string, unknown>;
  /** Every notification received, in arrival order. */
  readonly notifications: readonly JSONRPCNotification[];
  /** Every inbound message (responses, notifications, server requests), in arrival order. */
  readonly inbound: readonly InboundEntry[];
  /**
   * Protocol violations seen by the harness (non-JSON stdout line, response for
   * an id we never sent, duplicate response, unexpected HTTP status, ...).
   * Tests assert this stays empty.
   */
  readonly violations: readonly string[];

  /** Sends a request and resolves with the whole response message (result or error). */
  request(method: string, params?: Record<string, unknown>, options?: RequestOptions): Promise<JSONRPCResponse>;
  /** Sends a notification. */
  notify(method: string, params?: Record<string, unknown>): Promise<void>;
  /** Sends a request without waiting; returns its id. Use responseFor(id) later. */
  sendRequestNoWait(method: string, params?: Record<string, unknown>, options?: { id?: JsonRpcId }): JsonRpcId;
  /** Resolves with the response to request `id` (immediately if it already arrived). */
  responseFor(id: JsonRpcId, timeoutMs?: number): Promise<JSONRPCResponse>;
  /** Whether any response for `id` has arrived. */
  responseReceived(id: JsonRpcId): boolean;
  /** Resolves with the first notification (already received or future) matching the predicate. */
  waitForNotification(
    predicate: (n: JSONRPCNotification) => boolean,
    timeoutMs?: number,
  ): Promise<JSONRPCNotification>;
  /** Everything the server wrote to stderr so far (for diagnostics). */
  stderr(): string;
  /** Ends the connection and kills the server process. Idempotent. */
  close(): Promise<void>;
}

export type Connect = (flags?: string[]) => Promise<Wire>;

/** One request the server sent to this client. */
export interface ServerRequestEntry {
  readonly message: JSONRPCRequest;
  /** Where it arrived: `stdout`, or e.g. `POST tools/call (sse)` over HTTP. */
  readonly origin: string;
  /** When it arrived (Date.now()). */
  readonly at: number;
}

/**
 * A {@link Wire} whose client side can be asked things: it declares client capabilities in
 * `initialize` and, instead of refusing server-to-client requests like the plain wire does,
 * records them (with the channel they arrived on) so that a test can inspect them and answer
 * (or not answer, or answer late) by hand.
 */
export interface InteractiveWire extends Wire {
  /** The capabilities this client declared in `initialize`. */
  readonly clientCapabilities: Record<string, unknown>;
  /** Every server-to-client request except `ping` (answered automatically), in arrival order. */
  readonly serverRequests: readonly ServerRequestEntry[];
  /** Resolves with the first server request (already received or future) matching the predicate. */
  waitForServerRequest(predicate: (r: ServerRequestEntry) => boolean, timeoutMs?: number): Promise<ServerRequestEntry>;
  /** Answers a server request with a result. */
  answer(id: JsonRpcId, result: Record<string, unknown>): Promise<void>;
  /** Answers a server request with a JSON-RPC error. */
  answerError(id: JsonRpcId, error: JsonRpcErrorObject): Promise<void>;
}

export interface InteractiveOptions {
  /** CLI flags after `serve --stdio` / `serve --http 0`. */
  readonly flags?: readonly string[];
  /** Client capabilities for `initialize`; default `{ elicitation: {}, sampling: {} }`. */
  readonly capabilities?: Record<string, unknown>;
}

export type ConnectInteractive = (options?: InteractiveOptions) => Promise<InteractiveWire>;

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
