/**
 * Signing push requests, so a receiver can tell a request came from this server and was not
 * replayed.
 *
 * The scheme (version `v1`):
 *
 * - `x-mcp-task-actors-timestamp`: the sending time in whole Unix seconds.
 * - `x-mcp-task-actors-signature`: `v1=<hex>`, where `<hex>` is the lowercase hex HMAC-SHA256,
 *   keyed with the target's secret (UTF-8), of `<timestamp>.<body>`: the timestamp header's exact
 *   text, a dot, then the raw request body bytes. Receivers may see several comma-separated
 *   `v1=` entries (room for secret rotation); one match is enough.
 * - `x-mcp-task-actors-event-id`: the event's id, the receiver's idempotency key (delivery is at
 *   least once, so the same id may arrive more than once). Not signed: the body carries what
 *   matters, and the id is only a dedup hint.
 *
 * A receiver recomputes the HMAC over the body it received (before any JSON parsing), compares in
 * constant time, and refuses a timestamp further than a tolerance (default 5 minutes) from its own
 * clock: a captured request cannot be replayed later. Every attempt is signed afresh, so a retry
 * after a long backoff is not stale.
 *
 * @module
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Header names of the scheme (lowercase, as Node's `IncomingMessage.headers` has them).
 *
 * @example
 * ```ts
 * const eventId = req.headers[PushHeader.eventId]; // dedupe on it
 * ```
 */
export const PushHeader = {
  timestamp: 'x-mcp-task-actors-timestamp',
  signature: 'x-mcp-task-actors-signature',
  eventId: 'x-mcp-task-actors-event-id',
} as const;
/** One {@link PushHeader} name. */
export type PushHeader = (typeof PushHeader)[keyof typeof PushHeader];

/**
 * Request headers as a receiver may hold them: a fetch `Headers`, or Node's plain object.
 *
 * @example
 * ```ts
 * const headers: PushRequestHeaders = request.headers; // Headers (fetch) or IncomingHttpHeaders (node:http)
 * ```
 */
export type PushRequestHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * Options of {@link verifyPush}.
 *
 * @example
 * ```ts
 * verifyPush(body, headers, secret, { toleranceSeconds: 60 });
 * ```
 */
export interface VerifyPushOptions {
  /** The receiver's clock, in epoch ms. @default Date.now() */
  readonly now?: number;
  /** How far the timestamp may be from `now`, either way, in seconds. @default 300 */
  readonly toleranceSeconds?: number;
}

const VERSION = 'v1';

function hmacHex(secret: string, timestamp: string, body: string | Uint8Array): string {
  return createHmac('sha256', secret).update(`${timestamp}.`, 'utf8').update(body).digest('hex');
}

/**
 * Headers of a signed push request: content type, timestamp and signature.
 *
 * @param body - the exact JSON text that is sent
 * @param secret - the target's secret
 * @param timestamp - sending time in epoch ms (sent and signed as whole Unix seconds)
 * @example
 * ```ts
 * const body = JSON.stringify(event.body);
 * await fetch(url, { method: 'POST', body, headers: { ...signPush(body, secret, Date.now()), [PushHeader.eventId]: event.id } });
 * ```
 */
export function signPush(body: string, secret: string, timestamp: number): Record<string, string> {
  const seconds = String(Math.floor(timestamp / 1000));
  return {
    'content-type': 'application/json',
    [PushHeader.timestamp]: seconds,
    [PushHeader.signature]: `${VERSION}=${hmacHex(secret, seconds, body)}`,
  };
}

/**
 * Checks a received push request: the signature matches the body and secret, and the timestamp
 * is within the tolerance of `now` (replay protection).
 *
 * @param body - the raw body as received (not re-serialized JSON)
 * @param headers - the request headers (names matched case-insensitively)
 * @param secret - the secret registered with the webhook
 * @param options - clock and tolerance
 * @returns true only when both checks pass
 * @example
 * ```ts
 * http.createServer(async (req, res) => {
 *   const body = Buffer.concat(await req.toArray());
 *   res.writeHead(verifyPush(body, req.headers, secret) ? 204 : 401).end();
 * });
 * ```
 */
export function verifyPush(body: string | Uint8Array, headers: PushRequestHeaders, secret: string, options: VerifyPushOptions = {}): boolean {
  const timestamp = header(headers, PushHeader.timestamp);
  const signature = header(headers, PushHeader.signature);
  if (timestamp === undefined || signature === undefined || !/^\d{1,15}$/.test(timestamp)) return false;
  const nowSeconds = (options.now ?? Date.now()) / 1000;
  if (!(Math.abs(nowSeconds - Number(timestamp)) <= (options.toleranceSeconds ?? 300))) return false;
  const expected = Buffer.from(hmacHex(secret, timestamp, body), 'utf8');
  let match = false;
  for (const part of signature.split(',')) {
    const [version, hex] = part.trim().split('=', 2);
    if (version !== VERSION || hex === undefined) continue;
    const given = Buffer.from(hex, 'utf8');
    // Every entry is compared (no early exit) so timing does not tell which one matched.
    if (given.length === expected.length && timingSafeEqual(given, expected)) match = true;
  }
  return match;
}

/** One header's value; several values of one name are joined with a comma, as fetch does. */
function header(headers: PushRequestHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name || value === undefined) continue;
    return typeof value === 'string' ? value : value.join(',');
  }
  return undefined;
}
