/**
 * Which failures of the NATS backend go away by themselves, and are worth waiting out: the one
 * list, used by the task core's waits (`TaskStore.isTransient`) and by the backend's own
 * {@link persistently} writes. A positive list: anything not on it (a plain `Error`, a type
 * error, a decided answer such as a revision mismatch) is a fault or an answer, and surfaces at
 * once instead of being retried for minutes.
 *
 * @module
 */
import { errors as natsErrors, RequestError } from '@nats-io/transport-node';
import { JetStreamApiError, JetStreamError } from '@nats-io/jetstream';
import { isLimitRefusal, NatsBackendError, NatsErrorReason } from './errors.js';

/** How deep a chain of `cause`s is followed (a wrapped wrapper of a timeout). */
const MAX_CAUSES = 4;

/**
 * HTTP-like statuses JetStream answers while it cannot serve yet: 503 (no leader, JetStream
 * temporarily unavailable, no responders) and 408 (the request timed out inside the server).
 */
const PASSING_STATUSES: ReadonlySet<number> = new Set([408, 503]);

/**
 * True when `error` (or one of its causes) is a NATS failure that passes: a request that timed
 * out, a connection lost or being re-established, no responder (JetStream electing a leader or
 * starting up), JetStream answering 503/408, or this backend's own "NATS unavailable". A closed
 * or draining connection is not one: it does not come back.
 *
 * @param error - what a NATS operation threw
 * @example
 * ```ts
 * try { await kv.get(key); } catch (e) { if (isNatsTransient(e)) await retryLater(); else throw e; }
 * ```
 */
export function isNatsTransient(error: unknown): boolean {
  let e: unknown = error;
  for (let depth = 0; depth <= MAX_CAUSES && e instanceof Error; depth++, e = e.cause) {
    // A stream full by its limits answers 503 too, but waiting does not change it: a refusal.
    if (isLimitRefusal(e)) return false;
    if (passes(e)) return true;
  }
  return false;
}

/** One error, without its causes. */
function passes(e: Error): boolean {
  if (e instanceof natsErrors.TimeoutError || e instanceof natsErrors.ConnectionError || e instanceof natsErrors.NoRespondersError) return true;
  // Also the cause of "jetstream is not enabled", what a JetStream request becomes when nobody
  // answers its API subject: during a restart the server is up before its JetStream is (the node
  // found JetStream there when it started).
  if (e instanceof RequestError) return e.isNoResponders();
  // A pull's status answer (JetStreamStatusError, not exported on its own) carries its code.
  if (e instanceof JetStreamError) {
    const code: unknown = (e as { code?: unknown }).code;
    return typeof code === 'number' && PASSING_STATUSES.has(code);
  }
  if (e instanceof JetStreamApiError) return PASSING_STATUSES.has(e.status);
  return e instanceof NatsBackendError && e.reason === NatsErrorReason.unavailable;
}
