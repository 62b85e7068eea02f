/**
 * The request target of an HTTP request, read the same defensive way by every front (the MCP
 * endpoints of both SDK lines, the inspector, and any probe endpoint beside them). `new URL(target,
 * base)` throws on targets a client may send (`//`, `///`, `//@`: a scheme-relative URL with an
 * empty or odd host), and a throw in a request handler must never end a node. Here a target is
 * either a path (and query) or a clear refusal.
 *
 * @module
 */

/** A request target read: its path and query, or why it is not one this server serves. */
export type RequestTarget =
  | { readonly path: string; readonly query: URLSearchParams }
  | { readonly refused: string };

// RFC 3986 `pchar` and '/': unreserved, pct-encoded (checked apart), sub-delims, ':' and '@'.
const PATH = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/]|%[0-9A-Fa-f]{2})*$/;
// A query may also hold '?'; anything a browser escapes is refused as it would be in a path.
const QUERY = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{2})*$/;

/**
 * Reads a request target: origin-form (`/path?query`, the usual one), or absolute-form
 * (`http://host/path`, which servers must accept from proxies). The path is kept as sent (no dot
 * segments removed, no percent-decoding): `//mcp` is not `/mcp`.
 *
 * @param raw - `req.url` as Node gives it
 * @example
 * ```ts
 * requestTarget('/mcp?x=1');  // { path: '/mcp', query: URLSearchParams { 'x' => '1' } }
 * requestTarget('//');        // { path: '//', query: … }: a path, just not one served
 * requestTarget('/\\');       // { refused: 'the request target is not a valid path: …' }
 * ```
 */
export function requestTarget(raw: string | undefined): RequestTarget {
  const target = raw ?? '';
  if (/^https?:\/\//i.test(target)) {
    try {
      const url = new URL(target);
      return { path: url.pathname, query: url.searchParams };
    } catch {
      return { refused: `the request target is not a valid URL: ${shown(target)}` };
    }
  }
  if (!target.startsWith('/')) return { refused: `the request target must be a path beginning with '/': ${shown(target)}` };
  const cut = target.search(/[?#]/);
  const path = cut < 0 ? target : target.slice(0, cut);
  const rest = cut < 0 ? '' : target.slice(cut);
  const query = rest.startsWith('?') ? rest.slice(1).split('#')[0]! : '';
  if (!PATH.test(path)) return { refused: `the request target is not a valid path: ${shown(path)}` };
  if (!QUERY.test(query)) return { refused: `the request target's query is not valid: ${shown(query)}` };
  return { path, query: new URLSearchParams(query) };
}

/** A target for a message: at most 100 characters, JSON-quoted (no control characters leak into logs). */
function shown(value: string): string {
  return JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}…` : value);
}
