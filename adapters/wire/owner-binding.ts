/**
 * Whom a task of the session-based dialects belongs to, when the requester is authenticated.
 * The 2025-11-25 spec binds tasks to the authorization context, so an authenticated requester's
 * 2025-11-25 tasks belong to its principal alone: a serialized task reference works from any of
 * its connections (the official ext-tasks requester's recovery). SEP-1686 binds tasks to the
 * session that made them, so its tasks keep the session too. A request names only a task id:
 * this finds which of the two the requester's task is bound to, once per task and connection.
 *
 * @module
 */
import type { TaskOwner } from '../../machines/index.js';
import { TaskExpiredError, TaskNotFoundError, type TaskRuntime } from '../../runtime/index.js';
import { ownerOf, type RequestInfo } from './request-info.js';

/** Tasks of other connections looked up here, remembered at most (oldest forgotten first). */
const REMEMBERED = 10_000;

/**
 * The owner a new 2025-11-25 task gets: the principal alone when there is one, else the session.
 *
 * @example
 * ```ts
 * ownerOf2025(extra); // { session: null, principal: 'alice' }
 * ```
 */
export function ownerOf2025(extra: Pick<RequestInfo, 'sessionId' | 'authInfo'>): TaskOwner {
  const owner = ownerOf(extra);
  return owner.principal === null ? owner : { session: null, principal: owner.principal };
}

/**
 * One connection's view of which owner each task id it names is bound to.
 *
 * @example
 * ```ts
 * const binding = new OwnerBinding(runtime);
 * const owner = await binding.ownerFor(taskId, extra);
 * ```
 */
export class OwnerBinding {
  readonly #known = new Map<string, TaskOwner>();

  constructor(private readonly runtime: TaskRuntime) {}

  /** A task this connection created, and whom it belongs to. */
  remember(taskId: string, owner: TaskOwner): void {
    if (this.#known.size >= REMEMBERED) this.#known.delete(this.#known.keys().next().value!);
    this.#known.set(taskId, owner);
  }

  /**
   * The owner to look `taskId` up under: the session-and-principal one, unless the task is the
   * principal's alone. Only an authenticated requester on a session has two to choose from; a
   * task not created on this connection is looked for under the principal's key first, by the
   * server's own read (neither a poll nor a refused look-up if it is not there).
   */
  async ownerFor(taskId: string, extra: Pick<RequestInfo, 'sessionId' | 'authInfo'>): Promise<TaskOwner> {
    const owner = ownerOf(extra);
    if (owner.principal === null || owner.session === null) return owner;
    const known = this.#known.get(taskId);
    if (known && known.principal === owner.principal) return known;
    const principalOnly: TaskOwner = { session: null, principal: owner.principal };
    // Only "not there" sends the look-up to the session key; any other failure (a store outage) is the requester's answer.
    let found = true;
    try {
      await this.runtime.get(taskId, principalOnly, { countsAsPoll: false });
    } catch (error) {
      if (!(error instanceof TaskNotFoundError || error instanceof TaskExpiredError)) throw error;
      found = false;
    }
    if (found) this.remember(taskId, principalOnly);
    return found ? principalOnly : owner;
  }

  /** The owners whose tasks `tasks/list` shows the requester: its session's, and its principal's. */
  listOwners(extra: Pick<RequestInfo, 'sessionId' | 'authInfo'>): readonly TaskOwner[] {
    const owner = ownerOf(extra);
    if (owner.principal === null || owner.session === null) return [owner];
    return [owner, { session: null, principal: owner.principal }];
  }
}
