/**
 * A requester's share of an HTTP endpoint's sessions (`maxSessionsPerRequester`, within
 * `maxSessions`): one principal, or, when anonymous, one peer address, may keep at most so many
 * sessions, so that one requester opening sessions in a loop never fills the table for the others.
 * A session counts from its `initialize` until it is closed, expires idle or the endpoint closes.
 * Loopback is a peer address like any other; behind a proxy, every anonymous requester has the
 * proxy's address (authenticate requesters there, or raise the share). One rule for both SDK
 * lines' handlers.
 *
 * @module
 */
import { JsonRpcCode } from './wire-errors.js';

/** Default of `maxSessionsPerRequester`. */
export const DEFAULT_MAX_SESSIONS_PER_REQUESTER = 100;

/** When a refused requester may try again, in seconds (a session frees its share when it ends). */
const RETRY_AFTER_S = 60;

/**
 * Who a session is counted against: its principal when the request was authenticated, else the
 * address it came from (an IPv4 peer seen through an IPv6 socket is the same peer).
 *
 * @example
 * ```ts
 * sessionRequester('alice', '10.0.0.7'); // 'principal:alice'
 * sessionRequester(null, '::ffff:127.0.0.1'); // 'peer:127.0.0.1'
 * ```
 */
export function sessionRequester(principal: string | null, peer: string | undefined): string {
  if (principal !== null) return `principal:${principal}`;
  const address = peer ?? 'unknown';
  return `peer:${address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address}`;
}

/** A 503 refusal of a requester's new session past its share. */
export interface SessionShareRefusal {
  readonly status: 503;
  /** The `Retry-After` header, in seconds. */
  readonly retryAfter: string;
  readonly body: { readonly jsonrpc: '2.0'; readonly id: null; readonly error: { readonly code: number; readonly message: string; readonly data: unknown } };
}

/**
 * The sessions each requester keeps on one endpoint.
 *
 * @example
 * ```ts
 * const shares = new RequesterSessions(100);
 * const refused = shares.refusal(sessionRequester(principal, req.socket.remoteAddress));
 * if (refused) return reply(refused);
 * shares.add(sessionId, requester); // once the session began; shares.remove(sessionId) once it ended
 * ```
 */
export class RequesterSessions {
  /** The share, `null`: none. */
  readonly max: number | null;
  readonly #of = new Map<string, string>();
  readonly #counts = new Map<string, number>();

  constructor(max: number | null) {
    this.max = max;
  }

  /** Sessions `requester` keeps now. */
  count(requester: string): number {
    return this.#counts.get(requester) ?? 0;
  }

  /** The answer to `requester`'s new session when it keeps its share already, else `null`. */
  refusal(requester: string): SessionShareRefusal | null {
    const max = this.max;
    if (max === null || this.count(requester) < max) return null;
    const message = `Too many sessions: this requester (one principal, or one peer address when anonymous) keeps ${max} sessions here already (maxSessionsPerRequester, --max-sessions-per-requester); end sessions you no longer use (DELETE), or retry after ${RETRY_AFTER_S} s`;
    return { status: 503, retryAfter: String(RETRY_AFTER_S), body: { jsonrpc: '2.0', id: null, error: { code: JsonRpcCode.limitExceeded, message, data: { limit: 'maxSessionsPerRequester', retryAfterMs: RETRY_AFTER_S * 1_000 } } } };
  }

  /** A session of `requester` began here (counted once, however often told). */
  add(sessionId: string, requester: string): void {
    if (this.#of.has(sessionId)) return;
    this.#of.set(sessionId, requester);
    this.#counts.set(requester, this.count(requester) + 1);
  }

  /** A session ended: its share is free. Unknown ids are ignored. */
  remove(sessionId: string): void {
    const requester = this.#of.get(sessionId);
    if (requester === undefined) return;
    this.#of.delete(sessionId);
    const left = this.count(requester) - 1;
    if (left > 0) this.#counts.set(requester, left);
    else this.#counts.delete(requester);
  }

  /** Forgets every session (the endpoint closed). */
  clear(): void {
    this.#of.clear();
    this.#counts.clear();
  }
}
