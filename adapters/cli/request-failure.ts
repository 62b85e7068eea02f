/**
 * The human reason of a failed HTTP request (`fetch`), shared by the commands that talk to a
 * server: `call` and `status --http`.
 *
 * @module
 */

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
  const e = error as { name?: unknown; message?: unknown; cause?: { code?: unknown; message?: unknown } };
  const code = e?.cause?.code;
  if (code === 'ECONNREFUSED') return 'connection refused (is the server running?)';
  if (code === 'ENOTFOUND') return 'no such host';
  if (typeof code === 'string') return `${code}${typeof e.cause?.message === 'string' ? ` (${e.cause.message})` : ''}`;
  if (e?.name === 'TimeoutError') return 'no answer in time';
  // fetch's own words are in its cause ("fetch failed" says nothing).
  if (typeof e?.cause?.message === 'string' && e.cause.message !== '') return e.cause.message;
  return typeof e?.message === 'string' ? e.message : String(error);
}
