/**
 * Typed errors of the NATS backend. `reason` says which NATS failure it was; the runtime `code` is
 * {@link NATS_BACKEND_CODE}.
 *
 * @module
 */
import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import { TaskErrorCode, TaskRuntimeError } from '../../errors.js';

/**
 * The runtime code every NATS backend error carries. It reuses `TASK_FAILED` (an internal error on
 * the wire, message kept) because adapters switch exhaustively over `TaskErrorCode`: a dedicated
 * code needs a matching case there, added in the same change. Tell NATS errors apart by class or
 * by `reason`, never by this code.
 *
 * @example
 * ```ts
 * if (isTaskRuntimeError(e, NATS_BACKEND_CODE) && e instanceof NatsBackendError) log(e.reason);
 * ```
 */
export const NATS_BACKEND_CODE: TaskErrorCode = TaskErrorCode.failed;

/**
 * Why a NATS backend operation failed.
 *
 * @example
 * ```ts
 * if (e instanceof NatsBackendError && e.reason === NatsErrorReason.unavailable) retryLater();
 * ```
 */
export const NatsErrorReason = {
  /** No server could be reached (or the handshake/auth failed). */
  unavailable: 'unavailable',
  /** A compare-and-swap write lost: someone else wrote the key since the expected revision. */
  revisionMismatch: 'revision_mismatch',
  /** A lease was taken over (or released) by someone else. */
  leaseLost: 'lease_lost',
  /** A task record too large for a NATS message even with its large parts kept apart. */
  tooLarge: 'too_large',
} as const;
/** One {@link NatsErrorReason}. */
export type NatsErrorReason = (typeof NatsErrorReason)[keyof typeof NatsErrorReason];

/**
 * Base class of the NATS backend's errors.
 *
 * @example
 * ```ts
 * try { await store.update(ref, snap, rev); } catch (e) { if (e instanceof NatsBackendError) log(e.reason); }
 * ```
 */
export class NatsBackendError extends TaskRuntimeError {
  readonly reason: NatsErrorReason;
  constructor(reason: NatsErrorReason, message: string, options?: ErrorOptions) {
    super(NATS_BACKEND_CODE, message, options);
    this.name = 'NatsBackendError';
    this.reason = reason;
  }
}

/**
 * No NATS server in the list could be reached; the message names every URL tried.
 *
 * @example
 * ```ts
 * await connectNats({ servers: 'nats://127.0.0.1:1' });
 * // NatsUnavailableError: NATS unavailable at nats://127.0.0.1:1: …
 * ```
 */
export class NatsUnavailableError extends NatsBackendError {
  readonly servers: readonly string[];
  constructor(servers: readonly string[], detail: string, options?: ErrorOptions) {
    super(NatsErrorReason.unavailable, `NATS unavailable at ${servers.join(', ')}: ${detail}`, options);
    this.name = 'NatsUnavailableError';
    this.servers = servers;
  }
}

/**
 * A compare-and-swap write found the key at another revision than the one expected.
 *
 * @example
 * ```ts
 * try { await store.update(ref, next, staleRevision); }
 * catch (e) { if (e instanceof RevisionMismatchError) reloadAndRetry(); }
 * ```
 */
export class RevisionMismatchError extends NatsBackendError {
  readonly key: string;
  readonly expectedRevision: number;
  constructor(key: string, expectedRevision: number, options?: ErrorOptions) {
    super(NatsErrorReason.revisionMismatch, `Revision mismatch on '${key}': expected revision ${expectedRevision}`, options);
    this.name = 'RevisionMismatchError';
    this.key = key;
    this.expectedRevision = expectedRevision;
  }
}

/**
 * A lease renewal found that another node took the lease over (or it was released).
 *
 * @example
 * ```ts
 * try { lease = await leases.renew(lease); } catch (e) { if (e instanceof LeaseLostError) abortWork(); }
 * ```
 */
export class LeaseLostError extends NatsBackendError {
  readonly taskKey: string;
  readonly nodeId: string;
  constructor(taskKey: string, nodeId: string, options?: ErrorOptions) {
    super(NatsErrorReason.leaseLost, `Lease on '${taskKey}' is no longer held by node '${nodeId}'`, options);
    this.name = 'LeaseLostError';
    this.taskKey = taskKey;
    this.nodeId = nodeId;
  }
}

/**
 * True when `error` is the JetStream API error a conditional write returns when the subject's
 * last sequence is not the expected one (KV `create` on an existing key, KV `update` with a stale
 * revision): codes 10071 and 10164.
 *
 * @param error - anything caught from a KV write
 * @example
 * ```ts
 * try { await kv.update(k, v, rev); } catch (e) { if (isWrongLastSequence(e)) throw new RevisionMismatchError(k, rev); }
 * ```
 */
export function isWrongLastSequence(error: unknown): boolean {
  if (!(error instanceof JetStreamApiError)) return false;
  return error.code === JetStreamApiCodes.StreamWrongLastSequence || error.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown;
}

/**
 * A task's record would not fit in a NATS message (`max_payload`) even with its large parts
 * (params, inputs, answers, failure detail, checkpoint) kept apart: what stays in it (the status
 * message, the error, partial results) is too large. Decided: trying again does not help.
 *
 * @example
 * ```ts
 * ctx.setStatusMessage('x'.repeat(2e6)); // on NATS, the write fails with RecordTooLargeError
 * ```
 */
export class RecordTooLargeError extends NatsBackendError {
  constructor(taskId: string, bytes: number, maxBytes: number, options?: ErrorOptions) {
    super(
      NatsErrorReason.tooLarge,
      `Task ${taskId}: its record would be ${bytes} bytes, more than a NATS message carries here (${maxBytes}): its status message, error or partial results are too large`,
      options,
    );
    this.name = 'RecordTooLargeError';
  }
}

/**
 * True when the server refused a write because a stream is full (its `max_msgs`, `max_bytes` or
 * a message size limit, discard policy `new`): a decided answer that trying again in a moment
 * does not change, unlike an outage. Told by the server's message: the code it comes with
 * ("stream store failed") also covers storage faults that may pass.
 *
 * @example
 * ```ts
 * if (isLimitRefusal(error)) throw error; // no retry
 * ```
 */
export function isLimitRefusal(error: unknown): boolean {
  return error instanceof JetStreamApiError && /maximum (messages|bytes|payload)|exceeds maximum|message size exceeds/i.test(error.message);
}
