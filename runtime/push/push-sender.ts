/**
 * One push request: sign the event, check the URL against the allow-list, POST it once.
 *
 * The allow-list is checked here, right before the request, even though registration checks it
 * too: a job may have been queued by another node with another list, or before the operator
 * narrowed it. Redirects are not followed (`redirect: 'manual'`), since following one would call
 * a URL nobody checked; a 3xx answer is a failed attempt.
 *
 * @module
 */
import type { PushAllowList } from './push-allow.js';
import { PushHeader, signPush } from './push-signing.js';
import type { PushEvent, PushTarget } from './push.types.js';

/**
 * Options of {@link sendPush}.
 *
 * @example
 * ```ts
 * const options: SendPushOptions = { allow, timeoutMs: 10_000, signal: stop.signal };
 * ```
 */
export interface SendPushOptions {
  /** The operator's allow-list; a URL not on it is refused without a request. */
  readonly allow: PushAllowList;
  /** How long the request may take until the response headers, in ms. */
  readonly timeoutMs: number;
  /** Cancels the request (the queue is stopping). */
  readonly signal?: AbortSignal;
  /** Clock for the signature's timestamp, epoch ms. @default Date.now */
  readonly now?: () => number;
}

/**
 * What one request achieved.
 *
 * @example
 * ```ts
 * const { delivered, refused, status } = await sendPush(target, event, options);
 * ```
 */
export interface SendPushOutcome {
  /** HTTP status of the answer, `null` when there was none. */
  readonly status: number | null;
  /** Why it failed; `null` when delivered. */
  readonly error: string | null;
  /** True on a 2xx answer. */
  readonly delivered: boolean;
  /** True when the URL is not on the allow-list: no request was made, and retrying cannot help. */
  readonly refused: boolean;
}

/**
 * POSTs `event` to `target` once, signed (see `push-signing.ts`), with the event id header.
 *
 * @param target - the webhook
 * @param event - what to post (`event.body` as JSON)
 * @param options - allow-list, timeout, stop signal, clock
 * @returns the outcome; never throws
 * @example
 * ```ts
 * const outcome = await sendPush(target, event, { allow, timeoutMs: 10_000 });
 * if (!outcome.delivered) console.log(outcome.status, outcome.error);
 * ```
 */
export async function sendPush(target: PushTarget, event: PushEvent, options: SendPushOptions): Promise<SendPushOutcome> {
  if (!options.allow.allows(target.url)) {
    return { status: null, error: 'refused: URL not on the push allow-list', delivered: false, refused: true };
  }
  const body = JSON.stringify(event.body);
  const headers = { ...signPush(body, target.secret, (options.now ?? Date.now)()), [PushHeader.eventId]: event.id };
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal === undefined ? timeout : AbortSignal.any([timeout, options.signal]);
  try {
    const response = await fetch(target.url, { method: 'POST', body, headers, redirect: 'manual', signal });
    // The answer's body is not needed; cancelling it frees the connection at once.
    await response.body?.cancel().catch(() => undefined);
    const delivered = response.status >= 200 && response.status < 300;
    return { status: response.status, error: delivered ? null : statusError(response.status), delivered, refused: false };
  } catch (e) {
    const error = timeout.aborted ? `timed out after ${options.timeoutMs} ms` : describe(e);
    return { status: null, error, delivered: false, refused: false };
  }
}

function statusError(status: number): string {
  return status >= 300 && status < 400 ? `redirect ${status} not followed` : `HTTP ${status}`;
}

/** fetch's own message is a bare "fetch failed"; the reason (ECONNREFUSED, …) is in `cause`. */
function describe(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const cause = e.cause instanceof Error ? `: ${e.cause.message}` : '';
  return `${e.message}${cause}`;
}
