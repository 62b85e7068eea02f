/**
 * How a task travels to the page: in the list and the live stream, its partial results by number
 * and time only (see {@link ListedTask}); in the detail, with their content when results are shown.
 *
 * @module
 */
import type { ObservedTask } from '../../runtime/index.js';
import type { ListedTask } from './inspector.types.js';
import { withoutCredentials } from './redaction.js';

/**
 * A task as `/api/tasks` and the event stream carry it.
 *
 * @param task - the task as observed
 * @param reveal - whether the page proved to be an operator's (a token is required): else no
 *   credential-equivalent value is shown in full (see `redaction.ts`)
 * @example
 * ```ts
 * hub.broadcast('upsert', { task: listedTask(update.task, access.token !== null), entry: update.entry });
 * ```
 */
export function listedTask(task: ObservedTask, reveal: boolean): ListedTask {
  const shown = reveal ? task : withoutCredentials(task);
  // Most tasks have none: the task is sent as it is, with no copy made.
  if (shown.partials.length === 0) return shown;
  return { ...shown, partials: shown.partials.map((p) => ({ seq: p.seq, at: p.at })) };
}

/**
 * A task as its detail (`/api/tasks/:key`) carries it: partial results with their content only
 * when the inspector shows results (they are what the task produced, as its result is).
 *
 * @param task - the task as observed
 * @param showResults - whether the inspector shows results
 * @param reveal - whether the page proved to be an operator's (see {@link listedTask})
 * @example
 * ```ts
 * return { task: detailedTask(task, options.showResults, options.reveal), timeline, outcome, handler };
 * ```
 */
export function detailedTask(task: ObservedTask, showResults: boolean, reveal: boolean): ObservedTask | ListedTask {
  if (!showResults) return listedTask(task, reveal);
  return reveal ? task : withoutCredentials(task);
}
