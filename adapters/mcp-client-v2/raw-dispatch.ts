/**
 * The raw request path a 2026-07-28 requester needs for task traffic: the SDK v2 `Client` refuses
 * `resultType: "task"`, so `@modelcontextprotocol/ext-tasks` asks its host for a function that
 * sends one JSON-RPC request and resolves with its response. This is that function over
 * Streamable HTTP, with the routing headers (SEP-2243) the 2026-07-28 wire requires.
 *
 * @module
 */

/** One response, as ext-tasks reads it: a result, or the JSON-RPC error. */
export type RawResponse = { readonly kind: 'result'; readonly result: never } | { readonly kind: 'error'; readonly error: { code: number; message: string; data?: never } };

/** What ext-tasks passes with each request: its abort signal, and per-call headers. */
export interface RawDispatchCall {
  readonly signal?: AbortSignal;
  readonly context?: { readonly headers?: Readonly<Record<string, string>> };
}

/** A JSON-RPC response message as it came, to the shape ext-tasks reads. */
function toRawResponse(message: { result?: unknown; error?: { code: number; message: string; data?: unknown } }): RawResponse {
  if (message.error !== undefined) return { kind: 'error', error: message.error as { code: number; message: string } };
  return { kind: 'result', result: message.result as never };
}

/** Options of {@link createRawDispatch}. */
export interface RawDispatchOptions {
  /** Sent with every request (e.g. `authorization`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The protocol version in the `MCP-Protocol-Version` header. @default '2026-07-28' */
  readonly protocolVersion?: string;
}

/** The name a request routes by (`Mcp-Name`): a tool or prompt name, a resource uri, a task id. */
function routingName(params: Record<string, unknown> | undefined): string | undefined {
  const name = params?.['name'] ?? params?.['uri'] ?? params?.['taskId'];
  return typeof name === 'string' ? name : undefined;
}

/**
 * Makes a raw dispatcher for the MCP endpoint at `url`: pass it to ext-tasks as `rawDispatch`.
 * A response sent as a server-sent event stream is read to its JSON-RPC response.
 *
 * @example
 * ```ts
 * const tasks = createTaskSessionFromClient(client, {
 *   endpointId: 'reports',
 *   rawDispatch: createRawDispatch(url),
 *   v2RequestFraming: { protocolVersion: '2026-07-28', clientInfo, clientCapabilities },
 * });
 * ```
 */
export function createRawDispatch(url: string | URL, options: RawDispatchOptions = {}): (request: unknown, call?: RawDispatchCall) => Promise<RawResponse> {
  let next = 0;
  return async (request, call = {}) => {
    const r = request as { id?: string | number; method: string; params?: Record<string, unknown> };
    const name = routingName(r.params);
    const headers = new Headers({
      ...options.headers,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': options.protocolVersion ?? '2026-07-28',
      'mcp-method': r.method,
      ...(name !== undefined && { 'mcp-name': name }),
    });
    // The requester's own headers for this call win (ext-tasks sends its routing headers itself).
    for (const [key, value] of Object.entries(call.context?.headers ?? {})) headers.set(key, value);
    const response = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', ...r, id: r.id ?? `raw-${++next}` }),
      ...(call.signal && { signal: call.signal }),
    });
    const text = await response.text();
    if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) {
      try {
        return toRawResponse(JSON.parse(text) as never);
      } catch {
        throw new Error(`${r.method}: HTTP ${response.status} with a body that is not JSON-RPC: ${text.slice(0, 200)}`);
      }
    }
    // A stream: its JSON-RPC response is the message with an id (notifications before it are skipped).
    for (const line of text.split('\n')) {
      if (!line.startsWith('data: ')) continue;
      const message = JSON.parse(line.slice(6)) as { id?: unknown };
      if (message.id !== undefined && ('result' in message || 'error' in message)) return toRawResponse(message as never);
    }
    throw new Error(`No JSON-RPC response in the event stream for ${r.method} (HTTP ${response.status})`);
  };
}
