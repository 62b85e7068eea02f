/**
 * The human reason of a failed request, shared by the commands that talk to a server (`call`,
 * `tasks`, `status --http`): the network's own words for a connection that could not be made or
 * was lost, and, for an HTTP error after connecting, its status and what the server said (with
 * how to pass credentials for 401 and 403).
 *
 * @module
 */

/** What `--header` takes to authenticate, as the sentences of 401 and 403 name it. */
export const CREDENTIALS_HINT = 'pass credentials with --header "Authorization: Bearer …"';

// Node's (and undici's) codes of a connection that could not be made or broke.
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'UND_ERR_CONNECT_TIMEOUT']);
// The words a lost connection leaves once the requester kept only the message (its cause is gone).
const LOST_WORDS = /fetch failed|ECONNREFUSED|ECONNRESET|EPIPE|socket hang up|other side closed|terminated|SSE stream disconnected|network error/i;

type ErrorLike = { name?: unknown; message?: unknown; code?: unknown; rpcCode?: unknown; cause?: { code?: unknown; message?: unknown } };

/**
 * A human reason for a failed request: the network's own words for a refused connection.
 *
 * @example
 * ```ts
 * process.stderr.write(`mcp-tasks status: cannot reach ${url}: ${reasonOf(error)}\n`);
 * // … cannot reach http://127.0.0.1:59999/status: connection refused (is the server running?)
 * ```
 */
export function reasonOf(error: unknown): string {
  const e = error as ErrorLike;
  const code = e?.cause?.code;
  if (code === 'ECONNREFUSED') return 'connection refused (is the server running?)';
  if (code === 'ENOTFOUND') return 'no such host';
  if (typeof code === 'string') return `${code}${typeof e.cause?.message === 'string' ? ` (${e.cause.message})` : ''}`;
  if (e?.name === 'TimeoutError') return 'no answer in time';
  // fetch's own words are in its cause ("fetch failed" says nothing).
  if (typeof e?.cause?.message === 'string' && e.cause.message !== '') return e.cause.message;
  return typeof e?.message === 'string' ? e.message : String(error);
}

/**
 * What a server's error body says: `{ error }` (the status endpoint), `{ error: { message } }`
 * (a JSON-RPC error, as the MCP endpoint answers 401), or `null` when the body is not such JSON.
 *
 * @example
 * ```ts
 * errorOfBody('{"jsonrpc":"2.0","error":{"code":-32001,"message":"Unauthorized"},"id":null}'); // 'Unauthorized'
 * ```
 */
export function errorOfBody(body: string): string | null {
  try {
    const parsed = JSON.parse(body) as { error?: unknown };
    const e = parsed.error as string | { message?: unknown } | undefined;
    if (typeof e === 'string') return e;
    if (typeof e?.message === 'string') return e.message;
  } catch {
    // Not JSON.
  }
  return null;
}

/**
 * The HTTP status and the server's words of an HTTP error the MCP transport reported after the
 * connection was made (SDK v1 `StreamableHTTPError`: "Streamable HTTP error: Error POSTing to
 * endpoint: BODY" with the status as `code`; through the task client the status is its
 * `rpcCode`), or `null` for any other error.
 *
 * @example
 * ```ts
 * httpErrorOf(error); // { status: 401, said: 'Unauthorized: send Authorization: Bearer <token> …' }
 * ```
 */
export function httpErrorOf(error: unknown): { readonly status: number; readonly said: string } | null {
  const e = error as ErrorLike;
  const message = typeof e?.message === 'string' ? e.message : '';
  const marked = /Streamable HTTP error: (?:Error POSTing to endpoint|Failed to open SSE stream)(?: \(HTTP \d{3}\))?: ?([\s\S]*)$/.exec(message);
  if (marked === null) return null;
  const status = [e.code, e.rpcCode].find((c): c is number => typeof c === 'number' && Number.isInteger(c) && c >= 400 && c <= 599);
  if (status === undefined) return null;
  const body = (marked[1] ?? '').trim();
  return { status, said: errorOfBody(body) ?? (body.slice(0, 300) || '(no body)') };
}

/** Whether `error` says the connection could not be made or broke (not an answer of the server). */
export function isConnectionLost(error: unknown): boolean {
  const e = error as ErrorLike;
  if (typeof e?.cause?.code === 'string' && CONNECTION_CODES.has(e.cause.code)) return true;
  if (typeof e?.code === 'string' && CONNECTION_CODES.has(e.code)) return true;
  return typeof e?.message === 'string' && LOST_WORDS.test(e.message);
}

/**
 * The sentence of an HTTP error after connecting: the status, what the server said, and for 401
 * and 403 how to pass credentials (see {@link CREDENTIALS_HINT}).
 *
 * @example
 * ```ts
 * httpErrorSentence('http://127.0.0.1:3000/mcp', { status: 401, said: 'Unauthorized' });
 * // 'http://127.0.0.1:3000/mcp refused the request (HTTP 401): Unauthorized; pass credentials with --header "Authorization: Bearer …"'
 * ```
 */
export function httpErrorSentence(where: string, http: { readonly status: number; readonly said: string }): string {
  if (http.status === 401 || http.status === 403) return `${where} refused the request (HTTP ${http.status}): ${http.said}; ${CREDENTIALS_HINT}`;
  return `${where} answered HTTP ${http.status}: ${http.said}`;
}

/**
 * The sentence of a request that failed before or without a task: an HTTP error names its status
 * and the server's words; a connection that could not be made says so; anything else is the
 * server's error answer.
 *
 * @param where - the server as the user named it
 * @param error - what the transport or the task client threw
 * @param connecting - whether this was the first contact (`initialize`)
 * @example
 * ```ts
 * out.error(failureSentence(settings.where, error, true), EXIT.transport);
 * ```
 */
export function failureSentence(where: string, error: unknown, connecting: boolean): string {
  const http = httpErrorOf(error);
  if (http !== null) return httpErrorSentence(where, http);
  if (connecting || isConnectionLost(error)) return `cannot reach ${where}: ${reasonOf(error)}`;
  return `${where} answered with an error: ${reasonOf(error)}`;
}
