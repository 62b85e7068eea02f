/**
 * `mcp-tasks status --http URL`: the status a server answers at `GET /status` (see
 * `adapters/http/status-endpoint.ts`), read with `fetch`, no MCP SDK needed.
 *
 * @module
 */
import type { ClusterStatus } from '../../runtime/cluster-status.types.js';
import { errorOfBody, reasonOf } from './request-failure.js';

/** How long the server may take to answer, in ms. */
const ANSWER_TIMEOUT_MS = 15_000;

/**
 * The status URL of a server given by its base URL or its MCP URL: `http://h:3000`,
 * `http://h:3000/` and `http://h:3000/mcp` all give `http://h:3000/status` (a path before `/mcp`,
 * as behind a proxy, is kept).
 *
 * @throws Error for something that is not an http(s) URL
 * @example
 * ```ts
 * statusUrl('http://127.0.0.1:3000/mcp').href; // 'http://127.0.0.1:3000/status'
 * ```
 */
export function statusUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`--http expects the server's URL, e.g. http://127.0.0.1:3000 or http://127.0.0.1:3000/mcp, got '${raw}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`--http expects an http:// or https:// URL, got '${raw}'`);
  const path = url.pathname.replace(/\/+$/, '');
  url.pathname = path.endsWith('/status') ? path : `${path.replace(/\/mcp$/, '')}/status`;
  url.search = '';
  url.hash = '';
  return url;
}

/**
 * The request headers of `--header 'Name: value'` flags (repeatable) and the operator token.
 *
 * @throws Error for a header without a name or a colon
 * @example
 * ```ts
 * requestHeaders(['X-Trace: 1'], 's3cret'); // { 'X-Trace': '1', authorization: 'Bearer s3cret' }
 * ```
 */
export function requestHeaders(flags: readonly string[], operatorToken: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const flag of flags) {
    const colon = flag.indexOf(':');
    const name = flag.slice(0, colon).trim();
    if (colon <= 0 || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new Error(`--header expects 'Name: value', got '${flag}'`);
    headers[name] = flag.slice(colon + 1).trim();
  }
  if (operatorToken !== undefined) {
    // The token wins over an Authorization given with --header (two would be sent joined).
    for (const name of Object.keys(headers)) if (name.toLowerCase() === 'authorization') delete headers[name];
    headers['authorization'] = `Bearer ${operatorToken}`;
  }
  return headers;
}

/** Whether `value` has the shape of a {@link ClusterStatus} (what is printed is read from these). */
function isStatus(value: unknown): value is ClusterStatus {
  const v = value as Partial<Record<keyof ClusterStatus, unknown>> | null;
  return (
    typeof v === 'object' && v !== null && Array.isArray(v.nodes) && Array.isArray(v.leases) && Array.isArray(v.durable) &&
    typeof v.counts === 'object' && v.counts !== null && !Array.isArray(v.counts)
  );
}

/**
 * Reads the status at `url`: the report, or the one sentence that says why not (naming the URL).
 *
 * @example
 * ```ts
 * const read = await fetchStatus(statusUrl('http://127.0.0.1:3000'), {});
 * if ('failure' in read) process.stderr.write(`mcp-tasks status: ${read.failure}\n`);
 * ```
 */
export async function fetchStatus(url: URL, headers: Readonly<Record<string, string>>): Promise<{ readonly report: ClusterStatus } | { readonly failure: string }> {
  let status: number;
  let body: string;
  try {
    const res = await fetch(url, { headers: { accept: 'application/json', ...headers }, redirect: 'error', signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS) });
    status = res.status;
    body = await res.text();
  } catch (error) {
    return { failure: `cannot reach ${url.href}: ${reasonOf(error)}` };
  }
  if (status !== 200) {
    const said = errorOfBody(body) ?? (body.trim().slice(0, 200) || '(no body)');
    if (status === 401 || status === 403) return { failure: `${url.href} refused (HTTP ${status}): ${said}` };
    const hint = status === 404 ? ' (is it mcp-tasks serve --http?)' : '';
    return { failure: `${url.href} answered HTTP ${status}${hint}: ${said}` };
  }
  let report: unknown;
  try {
    report = JSON.parse(body);
  } catch {
    report = undefined;
  }
  if (!isStatus(report)) return { failure: `${url.href} did not answer with a status report (nodes, leases, counts): is it mcp-tasks serve --http?` };
  return { report };
}
