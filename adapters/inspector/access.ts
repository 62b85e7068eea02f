/**
 * Who may read the inspector. Bound to loopback, only this machine can reach it, so no token is
 * needed; bound elsewhere, every request must carry the token (`?token=` for what a browser loads
 * by URL: the page, its script, the event stream; `Authorization: Bearer` for anything else).
 *
 * @module
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** Why a request was refused, or `null` when it may go on. */
export type AccessRefusal = { readonly status: 401 | 403; readonly message: string } | null;

/**
 * The access rule of one inspector.
 *
 * @example
 * ```ts
 * const access = inspectorAccess('0.0.0.0', undefined);
 * const refusal = access.check(req, url);
 * ```
 */
export interface InspectorAccess {
  /** The token requests must carry, or `null` when none is needed. */
  readonly token: string | null;
  /** Whether `req` may be answered. */
  check(req: IncomingMessage, url: URL): AccessRefusal;
}

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

/** Compared as digests so that neither the time taken nor a length mismatch tells anything. */
function sameToken(given: string, expected: string): boolean {
  const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(expected));
}

function presented(req: IncomingMessage, url: URL): string | null {
  const header = req.headers.authorization;
  const bearer = header?.match(/^Bearer\s+(.+)$/i)?.[1];
  return bearer ?? url.searchParams.get('token');
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
  return {
    token: required,
    check(req, url) {
      if (required !== null) {
        const given = presented(req, url);
        if (given === null || !sameToken(given, required)) {
          return { status: 401, message: 'Unauthorized: open the URL printed at start (?token=...) or send Authorization: Bearer <token>' };
        }
        return null;
      }
      // No token on loopback: refuse a page reached under a foreign name, which is what a DNS
      // rebinding attack from a web page the operator visits would look like.
      const hostHeader = req.headers.host ?? '';
      const name = hostHeader.startsWith('[') ? hostHeader.slice(0, hostHeader.indexOf(']') + 1) : hostHeader.split(':')[0]!;
      if (!isLoopback(name)) return { status: 403, message: `Forbidden: Host '${hostHeader}' is not this machine` };
      return null;
    },
  };
}
