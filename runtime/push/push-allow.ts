/**
 * Which URLs push notifications may call. A webhook URL comes from a requester, so without a
 * list the server could be made to POST to anything it can reach (its cloud metadata endpoint,
 * an admin port on loopback): server-side request forgery. Only the operator's prefixes are
 * called, and none by default.
 *
 * Matching is on parsed, normalized URLs (`new URL(u).href`), never on the raw text: that folds
 * case in the host, default ports, `..` segments (also percent-encoded), and backslashes the way
 * the HTTP client will, so what is checked is what is called. A prefix always covers a whole host
 * (`http://127.0.0.1` becomes `http://127.0.0.1/`, so `http://127.0.0.1.evil.com/` is not
 * covered) and a whole path segment (`https://h/hooks` covers `/hooks`, `/hooks/x` and
 * `/hooks?x`, not `/hooks2`). URLs with credentials (`user:pass@`) are refused: they are a
 * classic way to dress one host as another; so are paths with an encoded `/` or `\`.
 *
 * The check is on the URL, not on where its host resolves: list hosts the operator controls.
 *
 * @module
 */
import { InvalidArgumentError } from '../errors.js';

const SCHEMES = new Set(['http:', 'https:']);

/** The URL parsed, when it is http(s) without credentials; otherwise null. */
function parseWebUrl(text: string): URL | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if (!SCHEMES.has(url.protocol) || url.username !== '' || url.password !== '') return null;
  return url;
}

/**
 * The operator's list of URL prefixes that push notifications may call.
 *
 * @example
 * ```ts
 * const allow = new PushAllowList(['https://hooks.example.com/', 'http://127.0.0.1:4555/']);
 * allow.allows('https://hooks.example.com/t/1'); // true
 * allow.allows('https://hooks.example.com.evil.net/'); // false
 * ```
 */
export class PushAllowList {
  /** The prefixes, normalized. */
  readonly prefixes: readonly string[];

  /**
   * @param prefixes - URL prefixes, each an http(s) URL with a host and no credentials, query or
   *   fragment; an empty list allows nothing
   * @throws {@link InvalidArgumentError} naming a prefix that is not such a URL
   */
  constructor(prefixes: readonly string[] = []) {
    this.prefixes = prefixes.map((p) => {
      const url = parseWebUrl(p);
      if (url === null || url.hostname === '' || url.search !== '' || url.hash !== '' || p.includes('?') || p.includes('#')) {
        throw new InvalidArgumentError(`push allow-list prefix must be an http(s) URL with a host and no credentials, query or fragment, got ${JSON.stringify(p)}`);
      }
      return url.href;
    });
  }

  /**
   * True when `url` may be called: an http(s) URL without credentials under one of the prefixes.
   *
   * @param url - the webhook URL as the requester gave it
   * @example
   * ```ts
   * if (!allow.allows(target.url)) throw new InvalidArgumentError('webhook URL not allowed');
   * ```
   */
  allows(url: string): boolean {
    const parsed = parseWebUrl(url);
    // An encoded slash or backslash is one segment here but may be decoded into `../` by the
    // receiving server, stepping out of the allowed path.
    if (parsed === null || /%(2f|5c)/i.test(parsed.pathname)) return false;
    const href = parsed.href;
    return this.prefixes.some((prefix) => href.startsWith(prefix) && endsAtBoundary(prefix, href));
  }
}

/** A prefix ending mid-segment (`/hooks`) must be followed by the end, `/`, `?` or `#`. */
function endsAtBoundary(prefix: string, href: string): boolean {
  if (prefix.endsWith('/')) return true;
  const next = href.charAt(prefix.length);
  return next === '' || next === '/' || next === '?' || next === '#';
}
