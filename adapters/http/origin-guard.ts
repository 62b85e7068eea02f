/**
 * The `Host` and `Origin` checks of the HTTP endpoints against DNS rebinding (the MCP transport
 * spec's MUST): a web page the operator visits can make the browser send requests to a loopback
 * server under a name the attacker controls (`Host: evil.example:3000`), or from its own origin
 * (`Origin: http://evil.example`). Both are refused unless the operator allowed them.
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';

/**
 * Whether `host` names this machine only.
 *
 * @example
 * ```ts
 * isLoopback('127.0.0.1'); // true
 * isLoopback('0.0.0.0');   // false: every interface
 * ```
 */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h) || h === '::ffff:127.0.0.1';
}

/**
 * The name part of a `Host` header (or of an origin's authority): no port, IPv6 kept in brackets,
 * lower case.
 *
 * @example
 * ```ts
 * hostName('LocalHost:3000'); // 'localhost'
 * hostName('[::1]:3000');     // '[::1]'
 * hostName('[::1].evil.example'); // '[::1].evil.example' (not an IPv6 literal)
 * ```
 */
export function hostName(authority: string): string {
  const a = authority.trim().toLowerCase();
  if (a.startsWith('[')) {
    // Only an exact bracketed IPv6 literal, with a port or none, is one: `[::1].evil.example` is a
    // name of its own (never loopback), kept whole so that no allowed name can match it either.
    const literal = /^(\[[0-9a-f:.]+\])(?::\d*)?$/.exec(a);
    return literal ? literal[1]! : a;
  }
  return a.split(':')[0]!;
}

/** Options of {@link originGuard}. */
export interface OriginGuardOptions {
  /** The address the server is bound to; a specific non-loopback address is allowed as a `Host`. */
  readonly bind: string;
  /**
   * More `Host` names to accept (a proxy's public name, say): `NAME` accepts it on any port,
   * `NAME:PORT` on that port only, `*` any host (turns the check off). Loopback names are always
   * accepted.
   * @default []
   */
  readonly allowedHosts?: readonly string[];
  /**
   * More `Origin`s to accept, as a browser sends them (`https://app.example`, with a port when not
   * the scheme's default), or `*` for any. Loopback origins and requests without `Origin` (every
   * non-browser client) are always accepted.
   * @default []
   */
  readonly allowedOrigins?: readonly string[];
}

/** Why a request was refused: which header, its value, and a message saying how to allow it. */
export interface OriginRefusal {
  readonly header: 'host' | 'origin';
  readonly value: string;
  readonly message: string;
}

/**
 * The check of one endpoint: `null` when a request may go on, else why not.
 *
 * @example
 * ```ts
 * const check = originGuard({ bind: '127.0.0.1', allowedOrigins: ['https://app.example'] });
 * const refusal = check(req); // { header: 'origin', … } for Origin: http://evil.example
 * ```
 */
export type OriginCheck = (req: IncomingMessage) => OriginRefusal | null;

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Makes the `Host`/`Origin` check for an endpoint bound to `options.bind`.
 *
 * @param options - the bind address and what the operator allowed besides loopback
 * @throws Error for an empty name in the allowed lists
 * @example
 * ```ts
 * const check = originGuard({ bind: '127.0.0.1' });
 * if (check(req) !== null) res.writeHead(403).end();
 * ```
 */
export function originGuard(options: OriginGuardOptions): OriginCheck {
  const hosts = (options.allowedHosts ?? []).map((h) => h.trim().toLowerCase());
  const origins = (options.allowedOrigins ?? []).map((o) => o.trim().toLowerCase().replace(/\/+$/, ''));
  if (hosts.includes('') || origins.includes('')) throw new Error('an allowed host or origin must not be empty');
  const anyHost = hosts.includes('*');
  const anyOrigin = origins.includes('*');
  const bind = hostName(options.bind.includes(':') && !options.bind.startsWith('[') ? `[${options.bind}]` : options.bind);
  // 0.0.0.0 and :: are every interface, not a name a client would use: they allow nothing more.
  const boundName = bind === '0.0.0.0' || bind === '[::]' ? null : bind;

  const hostAllowed = (header: string): boolean => {
    const value = header.trim().toLowerCase();
    const name = hostName(value);
    if (isLoopback(name) || name === boundName) return true;
    return hosts.some((h) => h === value || (!h.slice(h.lastIndexOf(']') + 1).includes(':') && h === name));
  };
  const originAllowed = (origin: string): boolean => {
    const value = origin.trim().toLowerCase();
    if (origins.includes(value)) return true;
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return false; // "null" (sandboxed frames, file:) and anything else that is not an origin
    }
    return (url.protocol === 'http:' || url.protocol === 'https:') && isLoopback(url.hostname);
  };

  return (req) => {
    const host = first(req.headers.host) ?? '';
    if (!anyHost && !hostAllowed(host)) {
      return { header: 'host', value: host, message: `Forbidden: Host '${host}' is not allowed (this server answers to loopback names${boundName && !isLoopback(boundName) ? ` and ${boundName}` : ''}; start it with --allowed-host ${hostName(host) || 'NAME'} to accept this one)` };
    }
    const origin = first(req.headers.origin);
    if (origin !== undefined && !anyOrigin && !originAllowed(origin)) {
      return { header: 'origin', value: origin, message: `Forbidden: Origin '${origin}' is not allowed (only loopback origins are, by default; start the server with --allowed-origin ${origin} to accept this one)` };
    }
    return null;
  };
}

/**
 * Reads allowed names from repeatable flags and a comma-separated environment variable (both
 * count: the environment for what a deployment always needs, the flags for one run).
 *
 * @example
 * ```ts
 * allowedList(['proxy.example'], 'a.example, b.example'); // ['proxy.example', 'a.example', 'b.example']
 * ```
 */
export function allowedList(flags: readonly string[] | undefined, env: string | undefined): string[] {
  return [...(flags ?? []), ...(env ?? '').split(',')].map((v) => v.trim()).filter((v) => v !== '');
}
