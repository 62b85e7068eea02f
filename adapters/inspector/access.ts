/**
 * Who may read the inspector. Bound to loopback, only this machine can reach it, so no token is
 * needed; bound elsewhere, every request must carry the token (`?token=` for what a browser loads
 * by URL: the page, its script, the event stream; `Authorization: Bearer` for anything else).
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
  /** Whether `req` may be answered. */
  check(req: IncomingMessage, query: URLSearchParams): AccessRefusal;
}

/** Compared as digests so that neither the time taken nor a length mismatch tells anything. */
function sameToken(given: string, expected: string): boolean {
  const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(expected));
}

function presented(req: IncomingMessage, query: URLSearchParams): string | null {
  const header = req.headers.authorization;
  const bearer = header?.match(/^Bearer\s+(.+)$/i)?.[1];
  return bearer ?? query.get('token');
}

/**
 * The access rule for an inspector bound to `host`.
 *
 * @param host - the bound address
 * @param token - the operator's token, if any; off loopback one is generated without it
 * @throws Error for an empty token
 * @example
 * ```ts
 * const { token } = inspectorAccess('0.0.0.0', undefined); // a fresh random token
 * ```
 */
export function inspectorAccess(host: string, token: string | undefined): InspectorAccess {
  if (token !== undefined && token.trim() === '') throw new Error('the inspector token must not be empty');
  const loopback = isLoopback(host);
  const required = token ?? (loopback ? null : randomBytes(24).toString('base64url'));
  const hostCheck = originGuard({ bind: host });
  return {
    token: required,
    check(req, query) {
      if (required !== null) {
        const given = presented(req, query);
        if (given === null || !sameToken(given, required)) {
          return { status: 401, message: 'Unauthorized: open the URL printed at start (?token=...) or send Authorization: Bearer <token>' };
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
