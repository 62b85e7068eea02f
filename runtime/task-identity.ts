/**
 * What every backend decides the same way about a new or named task: whose it is (the owner key
 * that scopes it), whether its id is acceptable, and how long it is kept once it ends.
 *
 * @module
 */
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
 * Refuses a task id that is not a non-empty string, or is longer than `maxLength` characters.
 *
 * @throws InvalidArgumentError for a non-string or empty id
 * @throws TaskLimitError (limit `maxTaskIdLength`) for an id over the length limit
 * @example
 * ```ts
 * checkTaskId(params.taskId, 128); // params.taskId is a string from here on
 * ```
 */
export function checkTaskId(taskId: unknown, maxLength: number | null): asserts taskId is string {
  if (typeof taskId !== 'string' || taskId.length === 0) throw new InvalidArgumentError('taskId must be a non-empty string');
  if (maxLength !== null && taskId.length > maxLength) {
    throw new TaskLimitError('maxTaskIdLength', `task ids of at most ${maxLength} characters`, null, { when: 'a retry will not pass: use a shorter task id' });
  }
}

/**
 * Refuses a result whose JSON is larger than `maxBytes`: the task then fails saying so.
 *
 * @throws TaskLimitError (limit `maxResultBytes`)
 * @example
 * ```ts
 * checkResultSize(result, 921_600);
 * ```
 */
export function checkResultSize(result: unknown, maxBytes: number | null): void {
  if (maxBytes === null) return;
  // Counting UTF-8 bytes only when the characters alone could be over (each is 1 to 3 bytes).
  const json = JSON.stringify(result) ?? '';
  if (json.length * 3 <= maxBytes || Buffer.byteLength(json) <= maxBytes) return;
  throw new TaskLimitError('maxResultBytes', `results of at most ${maxBytes} bytes of JSON`, null, { when: 'the task failed: ask for a smaller result' });
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
