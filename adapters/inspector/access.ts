/**
 * Who may read the inspector, and who may act. Bound to loopback, only this machine can reach it,
 * so no token is needed to read; bound elsewhere, every request must carry the token (`?token=` for
 * what a browser loads by URL: the page, its script, the event stream; `Authorization: Bearer` for
 * anything else). An operator's token also grants reading; an action needs one, always as
 * `Authorization: Bearer` (never in a URL, which ends up in histories and logs).
 *
 * @module
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isLoopback, originGuard } from '../http/origin-guard.js';

export { isLoopback };

/** Why a request was refused, or `null` when it may go on. */
export type AccessRefusal = { readonly status: 401 | 403; readonly message: string } | null;

/**
 * The access rule of one inspector.
 *
 * @example
 * ```ts
 * const access = inspectorAccess('0.0.0.0', undefined);
 * const refusal = access.check(req, target.query);
 * ```
 */
export interface InspectorAccess {
  /** The token requests must carry, or `null` when none is needed. */
  readonly token: string | null;
  /** Whether any operator is configured (else no action is offered, and each is refused). */
  readonly operators: boolean;
  /** Whether `req` may be answered. */
  check(req: IncomingMessage, query: URLSearchParams): AccessRefusal;
  /** The name of the operator whose token `req` carries as `Authorization: Bearer`, else `null`. */
  operator(req: IncomingMessage): string | null;
  /**
   * Whether pages see credential-equivalent values in full: whenever the inspector needs a token
   * to read (every page then proved to be an operator's). A property of the inspector, not of who
   * asks: a page's event stream cannot send a Bearer header, so a per-request rule showed an
   * operator full values in one place and short ones in another.
   */
  readonly reveals: boolean;
  /**
   * The `Origin` of a browser's request that may not act, or `null`: an action must come from
   * this inspector's own page (its origin naming the request's `Host`), a loopback page, or an
   * origin the operator allowed (a proxy's public one, when the proxy rewrites `Host`), by the
   * MCP endpoint's rule (`originGuard`). A request without `Origin` is no browser's.
   */
  foreignOrigin(req: IncomingMessage): string | null;
}

/** Compared as digests so that neither the time taken nor a length mismatch tells anything. */
function sameToken(given: string, expected: string): boolean {
  const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** Whether `origin` is the page's own: its authority names the request's `Host`. */
function sameOrigin(origin: string, host: string | undefined): boolean {
  try {
    return new URL(origin).host.toLowerCase() === (host ?? '').toLowerCase();
  } catch {
    return false;
  }
}

function bearer(req: IncomingMessage): string | null {
  return req.headers.authorization?.match(/^Bearer\s+(.+)$/i)?.[1] ?? null;
}


/**
 * Checks the operators of an inspector: no empty token or name, and no operator token equal to
 * the read token (a reader would be an operator).
 *
 * @throws Error naming what is wrong
 * @example
 * ```ts
 * validOperators({ 'op-s3cret': 'alice' }, 'read-token');
 * ```
 */
export function validOperators(operators: Readonly<Record<string, string>>, token: string | undefined): void {
  for (const [secret, name] of Object.entries(operators)) {
    if (secret.trim() === '' || name.trim() === '') throw new Error('an inspector operator needs a non-empty token and name (TOKEN=NAME)');
    if (secret === token) throw new Error(`the token of inspector operator '${name}' must differ from the inspector's read token: a reader is not an operator`);
  }
}

/**
 * The access rule for an inspector bound to `host`.
 *
 * @param host - the bound address
 * @param token - the read token, if any; off loopback one is generated without it
 * @param operators - `{ [token]: name }` of those who may act
 * @param allowedOrigins - browser origins, besides the page's own and loopback ones, an action may come from
 * @throws Error for an empty token, or a bad operator (see {@link validOperators})
 * @example
 * ```ts
 * const { token } = inspectorAccess('0.0.0.0', undefined); // a fresh random token
 * ```
 */
export function inspectorAccess(host: string, token: string | undefined, operators: Readonly<Record<string, string>> = {}, allowedOrigins: readonly string[] = []): InspectorAccess {
  if (token !== undefined && token.trim() === '') throw new Error('the inspector token must not be empty');
  validOperators(operators, token);
  const named = Object.entries(operators);
  const operatorNamed = (given: string | null): string | null => {
    if (given === null) return null;
    // Every token compared, so the time taken does not tell which one (or whether any) matched.
    let name: string | null = null;
    for (const [secret, who] of named) if (sameToken(given, secret)) name = who;
    return name;
  };
  const loopback = isLoopback(host);
  const required = token ?? (loopback ? null : randomBytes(24).toString('base64url'));
  const hostCheck = originGuard({ bind: host });
  // Origins only: the Host was checked with every request already.
  const originCheck = originGuard({ bind: host, allowedHosts: ['*'], allowedOrigins });
  return {
    foreignOrigin(req) {
      const origin = req.headers.origin;
      if (origin === undefined || sameOrigin(origin, req.headers.host) || originCheck(req) === null) return null;
      return origin;
    },
    token: required,
    operators: named.length > 0,
    operator: (req) => operatorNamed(bearer(req)),
    reveals: required !== null,
    check(req, query) {
      if (required !== null) {
        // The read token may come in the URL (a browser loads the page by it); an operator's
        // token only as a Bearer header: a URL is copied, logged and shared, and that token acts.
        const header = bearer(req);
        const fromQuery = header === null ? query.get('token') : null;
        const readOk = (given: string | null): boolean => given !== null && sameToken(given, required);
        if (!(readOk(header) || readOk(fromQuery) || operatorNamed(header) !== null)) {
          return { status: 401, message: 'Unauthorized: add ?token=<token> to the URL (a generated token is in the URL printed at start) or send Authorization: Bearer <token>' };
        }
        return null;
      }
      // No token on loopback: refuse a page reached under a foreign name, which is what a DNS
      // rebinding attack from a web page the operator visits would look like (the same rule as
      // the MCP endpoint's; the inspector is read-only, so only its Host matters).
      const refused = hostCheck(req);
      if (refused?.header === 'host') return { status: 403, message: `Forbidden: Host '${refused.value}' is not this machine` };
      return null;
    },
  };
}
