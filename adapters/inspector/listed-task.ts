/**
 * How a task travels to the page: in the list and the live stream, its partial results by number
 * and time only (see {@link ListedTask}); in the detail, with their content when results are shown.
 *
 * @module
 */
import type { ObservedTask } from '../../runtime/index.js';
import type { ListedTask } from './inspector.types.js';
import { withoutCredentials } from './redaction.js';
import { progressText } from '../dialects/progress-text.js';

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
  // The numbers only: the status message (which a report's message is too) has a column of its own.
  const text = shown.progress === null ? null : progressText(shown.progress, null);
  return { ...shown, partials: shown.partials.length === 0 ? shown.partials : shown.partials.map((p) => ({ seq: p.seq, at: p.at })), progressText: text };
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
export function detailedTask(task: ObservedTask, showResults: boolean, reveal: boolean): ListedTask | (ObservedTask & Pick<ListedTask, 'progressText'>) {
  const listed = listedTask(task, reveal);
  if (!showResults) return listed;
  return { ...(reveal ? task : withoutCredentials(task)), progressText: listed.progressText };
}
