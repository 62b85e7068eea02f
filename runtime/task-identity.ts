/**
 * What every backend decides the same way about a new or named task: whose it is (the owner key
 * that scopes it), whether its id is acceptable, and how long it is kept once it ends.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import type { TaskOwner } from '../machines/index.js';
import { InvalidArgumentError, TaskLimitError } from './errors.js';
import type { ResolvedTaskRuntimeOptions } from './options.js';

/**
 * The key that scopes tasks: session and principal together, so either differing means "another
 * requester".
 *
 * @example
 * ```ts
 * ownerKeyOf({ session: 's1', principal: null }); // '\u0001s1'
 * ```
 */
export function ownerKeyOf(owner: TaskOwner): string {
  return `${owner.principal ?? ''}\u0001${owner.session ?? ''}`;
}

/**
 * Who asks, for what counts per requester (rate limits, the audit's suspicion): the one budget a
 * call is charged to, whichever of its owner's tasks it names.
 */
export interface RequesterRef {
  /** The key of its budget and of its line in the suspicion report. */
  readonly key: string;
  /** Its session; `null` for an authenticated requester, whose sessions share one budget. */
  readonly session: string | null;
  readonly principal: string | null;
  /** Its network address, for a requester only that tells apart (see {@link TaskOwner.peer}). */
  readonly peer: string | null;
}

/**
 * The requester behind a call by `owner`: an authenticated requester is its principal (its
 * session's tasks and its principal's own are one budget, not two); a requester nothing else
 * tells apart (a shared owner) is its peer address when the transport knows it; any other is its
 * owner.
 *
 * @example
 * ```ts
 * requesterOf({ session: 's1', principal: 'alice' }).key === requesterOf({ session: null, principal: 'alice' }).key; // true
 * requesterOf({ ...ANONYMOUS_OWNER, peer: '203.0.113.7' }).peer; // '203.0.113.7'
 * ```
 */
export function requesterOf(owner: TaskOwner): RequesterRef {
  const key = requesterKeyOf(owner);
  if (owner.principal !== null) return { key, session: null, principal: owner.principal, peer: null };
  return { key, session: owner.session, principal: null, peer: byPeer(owner) ? owner.peer! : null };
}

/**
 * The key of {@link requesterOf}, alone: what a rate limit charges (no object made per poll).
 *
 * @example
 * ```ts
 * limiter.admit(requesterKeyOf(owner), 'pollsPerSecond');
 * ```
 */
export function requesterKeyOf(owner: TaskOwner): string {
  // A principal's key is its principal-only owner key: the budget its 2025-11-25 tasks always had.
  if (owner.principal !== null) return `${owner.principal}\u0001`;
  return byPeer(owner) ? `\u0002${owner.peer!}` : ownerKeyOf(owner);
}

const byPeer = (owner: TaskOwner): boolean => owner.peer !== undefined && isSharedOwner(owner);

/**
 * The owner of tasks whose requesters nothing tells apart: the 2026-07-28 wire without
 * authentication. Its session is a value no transport gives (a session id is visible ASCII
 * without spaces; ours are UUIDs), so no session's look-up or listing reaches these tasks: each is
 * reachable by its id alone. Over HTTP each caller's address is its `peer`: their limits and
 * suspicion are counted per address (see {@link requesterOf}).
 *
 * @example
 * ```ts
 * runtime.get(taskId, ANONYMOUS_OWNER);
 * ```
 */
export const ANONYMOUS_OWNER: TaskOwner = Object.freeze({ session: '(anonymous 2026-07-28 requester)', principal: null });

/**
 * Whether many requesters may share `owner`: {@link ANONYMOUS_OWNER}, or neither session nor
 * principal (an embedder's transport without sessions). Nothing requester-wide (a webhook for all
 * its tasks) is kept for such an owner.
 *
 * @example
 * ```ts
 * isSharedOwner({ session: null, principal: null }); // true
 * isSharedOwner({ session: 's1', principal: null }); // false
 * ```
 */
export function isSharedOwner(owner: TaskOwner): boolean {
  return owner.principal === null && (owner.session === null || owner.session === ANONYMOUS_OWNER.session);
}

/**
 * Names one task among every task ever (its owner, id and creation time, hashed): the same on
 * every node and every run of it. The prefix of its step keys, and of its push events' ids.
 *
 * @example
 * ```ts
 * taskIncarnation({ owner, taskId: 't1', createdAt: 1_700_000_000_000 }); // 22 base64url characters
 * ```
 */
export function taskIncarnation(task: { readonly owner: TaskOwner; readonly taskId: string; readonly createdAt: number }): string {
  return createHash('sha256').update(JSON.stringify([task.owner.session, task.owner.principal, task.taskId, task.createdAt])).digest('base64url').slice(0, 22);
}

/**
 * A UTF-16 code unit of a surrogate pair standing alone: with the `u` flag a well-formed pair is one
 * code point and does not match, so this finds exactly the lone ones.
 */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * Refuses a task id that is not a non-empty string of well-formed Unicode, or is longer than
 * `maxLength` characters. Ids that are not well-formed cannot name a task: a store that keys by the
 * UTF-8 bytes of an id (NATS) would turn every lone surrogate into U+FFFD, so `"\ud800"`,
 * `"\udfff"` and `"\ufffd"` would all name one task there and three on memory.
 *
 * @throws InvalidArgumentError for a non-string, empty or not well-formed id
 * @throws TaskLimitError (limit `maxTaskIdLength`) for an id over the length limit
 * @example
 * ```ts
 * checkTaskId(params.taskId, 128); // params.taskId is a string from here on
 * ```
 */
export function checkTaskId(taskId: unknown, maxLength: number | null): asserts taskId is string {
  if (typeof taskId !== 'string' || taskId.length === 0) throw new InvalidArgumentError('taskId must be a non-empty string');
  if (LONE_SURROGATE.test(taskId)) throw new InvalidArgumentError('taskId must be well-formed Unicode: it holds a lone surrogate (an unpaired \\ud800-\\udfff escape)');
  if (maxLength !== null && taskId.length > maxLength) {
    throw new TaskLimitError('maxTaskIdLength', `task ids of at most ${maxLength} characters`, null, { when: 'a retry will not pass: use a shorter task id' });
  }
}

/**
 * Refuses what a task cannot keep: a result (or a failure's detail) that is not JSON (a circular
 * object, a BigInt: it could never be stored nor sent, so retrying would not help), or whose JSON
 * is larger than `maxBytes`. The task then fails at once with this error's message, on every
 * backend alike.
 *
 * @param value - the handler's result, or the detail of its `TaskFailure`
 * @param maxBytes - the `maxResultBytes` limit, or `null` for none
 * @param what - what `value` is, for the message
 * @throws InvalidArgumentError when `value` cannot be written as JSON
 * @returns the length of its JSON, in characters (what it keeps, about)
 * @throws TaskLimitError (limit `maxResultBytes`) when its JSON is too large
 * @example
 * ```ts
 * checkResult({ content: [] }, 921_600);          // passes
 * checkResult({ n: 1n }, null);                    // throws: "The task's result cannot be stored as JSON: …BigInt…"
 * ```
 */
export function checkResult(value: unknown, maxBytes: number | null, what = 'result'): number {
  return checkJsonSize(value, maxBytes, what, { limit: 'maxResultBytes', limited: 'results', when: 'the task failed: ask for a smaller result' });
}

/**
 * Refuses what a requester sends a task that is larger than `maxRequestBytes` as JSON: a task's
 * params, or an answer to its input request. The same on every backend (the NATS backend keeps
 * large ones beside the task's record, in chunks, so that any size up to the limit works there too).
 *
 * @param what - what `value` is, for the message: `params`, `input answer`
 * @throws InvalidArgumentError when `value` cannot be written as JSON
 * @throws TaskLimitError (limit `maxRequestBytes`, a retry will not pass) when its JSON is too large
 * @example
 * ```ts
 * checkRequest(o.params, opts.limits.maxRequestBytes, 'params');
 * ```
 */
export function checkRequest(value: unknown, maxBytes: number | null, what: string): void {
  if (maxBytes === null) return;
  void checkJsonSize(value, maxBytes, what, { limit: 'maxRequestBytes', limited: `task params and input answers`, when: `a retry will not pass: send smaller ${what}` });
}

/** The one JSON size check of both limits. */
function checkJsonSize(value: unknown, maxBytes: number | null, what: string, o: { readonly limit: 'maxResultBytes' | 'maxRequestBytes'; readonly limited: string; readonly when: string }): number {
  let json: string;
  try {
    json = JSON.stringify(value) ?? '';
  } catch (error) {
    throw new InvalidArgumentError(`The task's ${what} cannot be stored as JSON: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  if (maxBytes === null) return json.length;
  // Counting UTF-8 bytes only when the characters alone could be over (each is 1 to 3 bytes).
  if (json.length * 3 <= maxBytes || Buffer.byteLength(json) <= maxBytes) return json.length;
  throw new TaskLimitError(o.limit, `${o.limited} of at most ${maxBytes} bytes of JSON`, null, { when: o.when });
}

/**
 * The keepAlive a task gets: the requested one capped by the receiver maximum, the default when
 * none was asked, the maximum when `null` (as long as allowed) was asked.
 *
 * @throws InvalidArgumentError for a negative or non-numeric request
 * @example
 * ```ts
 * effectiveKeepAlive(options, 10 * 3_600_000); // options.maxKeepAlive (1 h by default)
 * ```
 */
export function effectiveKeepAlive(opts: Pick<ResolvedTaskRuntimeOptions, 'defaultKeepAlive' | 'maxKeepAlive'>, requested: number | null | undefined): number | null {
  if (requested === null) return opts.maxKeepAlive;
  if (requested !== undefined && (typeof requested !== 'number' || !Number.isFinite(requested) || requested < 0)) {
    throw new InvalidArgumentError('keepAlive must be a non-negative number of milliseconds');
  }
  const wanted = requested ?? opts.defaultKeepAlive;
  return opts.maxKeepAlive === null ? wanted : Math.min(wanted, opts.maxKeepAlive);
}
