/**
 * How a task's work ended, decided once for every backend: a returned value completes the task
 * when it can be kept (JSON, within `maxResultBytes`); a thrown `TaskFailure` fails it keeping its
 * result and detail under the same rule; anything else thrown fails it with its message.
 *
 * @module
 */
import { boundedMessage, taskEvents, type TaskEvent } from '../../machines/index.js';
import { InvalidArgumentError, TaskFailure, TaskLimitError } from '../errors.js';
import { checkResult } from '../task-identity.js';

/** The decided outcome of a task's work, ready to be kept by the backend. */
export type Settled =
  | { readonly status: 'completed'; readonly result: unknown; /** Characters of the result's JSON. */ readonly bytes: number }
  | {
      readonly status: 'failed';
      /** Characters of the JSON of what the failure keeps (its result and detail). */
      readonly bytes: number;
      /** The task's error message. */
      readonly error: string;
      /** The `TaskFailure`'s detail (JSON-safe), or `null`. */
      readonly failure: unknown;
      /** Present when the failure keeps a result (a tool result with `isError`, say). */
      readonly result?: { readonly value: unknown };
    };

/**
 * What a settled outcome keeps and tells the machine, on every backend: the result kept (a
 * completion's, or the one a failure carries; `null` when none) and the terminal event.
 *
 * @param resultRef - where the backend keeps the result (the machine's context names it)
 * @example
 * ```ts
 * const { kept, event } = endingOf(outcome, key, now);
 * ```
 */
export function endingOf(outcome: Settled, resultRef: string, at: number): { readonly kept: { readonly value: unknown } | null; readonly event: TaskEvent } {
  if (outcome.status === 'completed') return { kept: { value: outcome.result }, event: taskEvents.complete(resultRef, at) };
  return { kept: outcome.result ?? null, event: taskEvents.fail(outcome.error, at) };
}

/** The largest failure detail a task keeps, bytes of JSON (when `maxResultBytes` is not lower). */
export const MAX_FAILURE_DETAIL_BYTES = 256 * 1024;

/** A failure detail whose `message` (a JSON-RPC error's) is cut as a task's error message is. */
function withBoundedMessage(detail: unknown): unknown {
  if (typeof detail !== 'object' || detail === null || typeof (detail as { message?: unknown }).message !== 'string') return detail;
  const message = (detail as { message: string }).message;
  const bounded = boundedMessage(message);
  return bounded === message ? detail : { ...detail, message: bounded };
}

/** The message of anything thrown; never throws itself (a thrown object may refuse `String`). */
function messageOf(error: unknown): string {
  try {
    return error instanceof Error ? String(error.message) : String(error);
  } catch {
    return 'The task failed with a value that cannot be shown';
  }
}

/** A value that cannot be kept: the failure says why, in the words of the check that refused it. */
function unkeepable(error: unknown): error is TaskLimitError | InvalidArgumentError {
  return error instanceof TaskLimitError || error instanceof InvalidArgumentError;
}

/**
 * Decides the outcome of a handler's settled promise.
 *
 * @param settled - the handler's value, or what it threw
 * @param maxResultBytes - the largest result (and failure detail) a task keeps, `null` for no cap
 * @returns the outcome to keep; never throws
 * @example
 * ```ts
 * decideOutcome({ ok: true, value: { content: [] } }, 921_600); // { status: 'completed', result: { content: [] } }
 * decideOutcome({ ok: false, error: new Error('boom') }, null);  // { status: 'failed', error: 'boom', failure: null }
 * ```
 */
export function decideOutcome(settled: { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown }, maxResultBytes: number | null): Settled {
  try {
    if (settled.ok) {
      // Not JSON, or too large to keep: the task fails saying why, instead of holding it.
      const bytes = checkResult(settled.value, maxResultBytes);
      return { status: 'completed', result: settled.value, bytes };
    }
    const error = settled.error;
    if (!(error instanceof TaskFailure)) return { status: 'failed', error: messageOf(error), failure: null, bytes: 0 };
    // A failure's result and detail count against the size limit too; too large, neither is kept.
    const resultBytes = error.hasResult ? checkResult(error.result, maxResultBytes) : 0;
    // The detail rides with the task's record everywhere (the result does not): its message is
    // bounded as the task's own is, and the whole of it by MAX_FAILURE_DETAIL_BYTES.
    const failure = withBoundedMessage(error.detail ?? null);
    const bytes = resultBytes + checkResult(failure, maxResultBytes === null ? MAX_FAILURE_DETAIL_BYTES : Math.min(maxResultBytes, MAX_FAILURE_DETAIL_BYTES), 'failure detail');
    return error.hasResult ? { status: 'failed', error: error.message, failure, result: { value: error.result }, bytes } : { status: 'failed', error: error.message, failure, bytes };
  } catch (refused) {
    if (!unkeepable(refused)) throw refused;
    return { status: 'failed', error: refused.message, failure: null, bytes: 0 };
  }
}
