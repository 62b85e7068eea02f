/**
 * How a task travels to the page: in the list and the live stream, its partial results by number
 * and time only (see {@link ListedTask}); in the detail, with their content when results are shown.
 *
 * @module
 */
import type { ObservedTask } from '../../runtime/index.js';
import type { ListedTask } from './inspector.types.js';

/**
 * A task as `/api/tasks` and the event stream carry it.
 *
 * @param task - the task as observed
 * @example
 * ```ts
 * hub.broadcast('upsert', { task: listedTask(update.task), entry: update.entry });
 * ```
 */
export function listedTask(task: ObservedTask): ListedTask {
  // Most tasks have none: the task is sent as it is, with no copy made.
  if (task.partials.length === 0) return task;
  return { ...task, partials: task.partials.map((p) => ({ seq: p.seq, at: p.at })) };
}

/**
 * A task as its detail (`/api/tasks/:key`) carries it: partial results with their content only
 * when the inspector shows results (they are what the task produced, as its result is).
 *
 * @param task - the task as observed
 * @param showResults - whether the inspector shows results
 * @example
 * ```ts
 * return { task: detailedTask(task, options.showResults), timeline, outcome, handler };
 * ```
 */
export function detailedTask(task: ObservedTask, showResults: boolean): ObservedTask | ListedTask {
  return showResults ? task : listedTask(task);
}
