/**
 * Who may read a node's operator endpoints (`GET /status` beside `/mcp`): an operator, never a
 * requester. What they show (every requester's task counts, the sessions and principals the audit
 * flagged) is not a requester's to see, so a requester's bearer token (`--auth-token`) never
 * grants them; only the operator token (`--operator-token`) does.
 *
 * The rule: the Host/Origin guard first, as on `/mcp` (DNS rebinding). Then, with an operator
 * token configured, every request must carry it (`Authorization: Bearer <token>`, else 401).
 * Without one, a server bound to loopback whose MCP endpoint is anonymous answers (only this
 * machine can reach it, and it has no requesters to tell apart); any other server (bound off
 * loopback, or with requester tokens) refuses with 403, naming the flag that enables it.
 *
 * @module
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isLoopback, originGuard } from './origin-guard.js';

/** Options of {@link operatorAccess}. */
export interface OperatorAccessOptions {
  /** The bound address. */
  readonly bind: string;
  /** The operator token, or `null` when none is configured. */
  readonly operatorToken: string | null;
  /** Whether the MCP endpoint authenticates its requesters (bearer tokens). */
  readonly requesterAuth: boolean;
  /** As the MCP endpoint's. @default [] */
  readonly allowedHosts?: readonly string[];
  /** As the MCP endpoint's. @default [] */
  readonly allowedOrigins?: readonly string[];
}

/** Why a request was refused (`body` is the JSON answered), or `null` when it may go on. */
export type OperatorRefusal = { readonly status: 401 | 403; readonly body: { readonly error: string; readonly [key: string]: unknown } } | null;

/** Compared as digests so that neither the time taken nor a length mismatch tells anything. */
function sameToken(given: string, expected: string): boolean {
  const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * The access check of a node's operator endpoints.
 *
 * @param options - the bind address, the operator token, whether requesters authenticate, and the
 *   MCP endpoint's allowed hosts and origins
 * @throws Error for an empty operator token
 * @example
 * ```ts
 * const check = operatorAccess({ bind: '127.0.0.1', operatorToken: null, requesterAuth: false });
 * const refusal = check(req); // null: loopback, anonymous MCP, a loopback Host
 * ```
 */
export function operatorAccess(options: OperatorAccessOptions): (req: IncomingMessage) => OperatorRefusal {
  const token = options.operatorToken;
  if (token !== null && token.trim() === '') throw new Error('the operator token must not be empty');
  const guard = originGuard({ bind: options.bind, allowedHosts: options.allowedHosts ?? [], allowedOrigins: options.allowedOrigins ?? [] });
  const open = token === null && isLoopback(options.bind) && !options.requesterAuth;
  return (req) => {
    const refused = guard(req);
    if (refused) return { status: 403, body: { error: refused.message, header: refused.header } };
    if (token !== null) {
      const given = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
      if (given === undefined || !sameToken(given, token)) {
        return { status: 401, body: { error: 'Unauthorized: send Authorization: Bearer <operator token> (the token the server was started with: --operator-token or MCP_TASKS_OPERATOR_TOKEN)' } };
      }
      return null;
    }
    if (open) return null;
    const why = options.requesterAuth ? 'this server authenticates its requesters (--auth-token), and a requester is not an operator' : `this server is bound to ${options.bind}, not loopback`;
    return {
      status: 403,
      body: { error: `Forbidden: ${why}; start it with --operator-token TOKEN (or MCP_TASKS_OPERATOR_TOKEN) and send Authorization: Bearer TOKEN to read this endpoint`, flag: '--operator-token' },
    };
  };
}
