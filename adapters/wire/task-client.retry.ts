/**
 * The requester's side of the server's pacing: a request refused with -32029 (a limit) or -32030
 * (the node is shutting down) that says when to come back (`data.retryAfterMs`) is sent again after
 * that wait, a bounded number of times. Both refusals are made before anything is decided (no
 * task was created, nothing was read), so sending the same request again is safe; a refusal that
 * names no wait (`maxConcurrentTasks`: "once one of your tasks has ended") is the caller's.
 *
 * @module
 */
import type { RequesterPeer } from './task-client.wire.js';

/** The JSON-RPC codes of refusals worth one more try after their `retryAfterMs`. */
const RETRIED_CODES: ReadonlySet<number> = new Set([-32029, -32030]);

/** How often a refused request is sent again, and the longest wait taken, by default. */
export const DEFAULT_PACED_RETRIES = { retries: 5, maxWaitMs: 30_000 } as const;

/**
 * The wait a refusal asks for, or `null` when it is not one to retry: -32029 or -32030 with a
 * finite `data.retryAfterMs`, from either SDK line's error or the 2026-07-28 raw dispatch's.
 *
 * @example
 * ```ts
 * retryAfterOf({ code: -32029, data: { limit: 'createsPerSecond', retryAfterMs: 50 } }); // 50
 * retryAfterOf({ code: -32029, data: { limit: 'maxConcurrentTasks', retryAfterMs: null } }); // null
 * ```
 */
export function retryAfterOf(error: unknown): number | null {
  if (typeof error !== 'object' || error === null) return null;
  const { code, data } = error as { code?: unknown; data?: unknown };
  if (typeof code !== 'number' || !RETRIED_CODES.has(code) || typeof data !== 'object' || data === null) return null;
  const ms = (data as { retryAfterMs?: unknown }).retryAfterMs;
  return typeof ms === 'number' && Number.isFinite(ms) && ms >= 0 ? ms : null;
}

/**
 * Wraps a requester peer so that a paced refusal is retried no sooner than the wait it names,
 * doubled at each further refusal of the same call and spread by up to as much again at random
 * (so that many calls refused together do not return together), each wait at most `maxWaitMs`,
 * up to `retries` times; the call's `signal` ends the wait. Past that, or for a named wait longer
 * than `maxWaitMs`, the refusal is the caller's as it came.
 *
 * @example
 * ```ts
 * const peer = pacedPeer(client, { retries: 3 });
 * await peer.request({ method: 'tools/call', params }, schema); // a -32029 with retryAfterMs 40 is sent again 40–80 ms later
 * ```
 */
export function pacedPeer(peer: RequesterPeer, o: { readonly retries?: number; readonly maxWaitMs?: number } = {}): RequesterPeer {
  const retries = o.retries ?? DEFAULT_PACED_RETRIES.retries;
  const maxWaitMs = o.maxWaitMs ?? DEFAULT_PACED_RETRIES.maxWaitMs;
  if (retries === 0) return peer;
  return {
    async request(request, schema, options) {
      for (let attempt = 0; ; attempt++) {
        try {
          return await peer.request(request, schema, options);
        } catch (error) {
          const wait = retryAfterOf(error);
          if (options?.signal?.aborted) throw abortedWith(options.signal, error);
          if (wait === null || attempt >= retries || wait > maxWaitMs) throw error;
          // Many calls refused together come back spread out, later each time: the server's wait
          // is for one call, and a burst of them would otherwise be refused together again.
          await pause(Math.min(maxWaitMs, Math.max(1, wait) * 2 ** attempt * (1 + Math.random())), options?.signal, error);
        }
      }
    },
  };
}

/** Waits `ms`; an abort meanwhile rejects with its reason (else the refusal being waited out). */
function pause(ms: number, signal: AbortSignal | undefined, refusal: unknown): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', aborted);
      resolve();
    }, ms);
    function aborted(): void {
      clearTimeout(timer);
      reject(abortedWith(signal!, refusal));
    }
    signal?.addEventListener('abort', aborted, { once: true });
  });
}

/** What an aborted call rejects with: the abort's reason when it is an error, else the refusal. */
function abortedWith(signal: AbortSignal, refusal: unknown): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  return refusal instanceof Error ? refusal : new Error(String(refusal));
}
