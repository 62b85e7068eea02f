/**
 * The wire dialects, and rendering a task in the dialect it was created in.
 *
 * @example
 * ```ts
 * import { renderInOwnDialect } from '../dialects/index.js';
 * return renderInOwnDialect(task, { withMeta: true }, runtime.options.now());
 * ```
 *
 * @module
 */
import type { TaskView } from '../../runtime/index.js';
import { renderTask2025, SPEC_2025_11_25, withRelatedMeta2025 } from './2025-11-25/index.js';
import { EXT_TASKS } from './ext/index.js';
import { relatedMeta, renderTask, withRelatedMeta } from './sep-1686/index.js';

/**
 * Whether a session wire (SEP-1686 and 2025-11-25 share its method names) treats the task as a
 * 2025-11-25 one: a 2025-11-25 task, or an extension task of the same principal (created on the
 * 2026-07-28 wire, which has no session); a session reader gets the session era's shapes and rules.
 *
 * @example
 * ```ts
 * if (isSession2025(task)) return outcomeReply(ended); // 2025-11-25 answers every terminal status
 * ```
 */
export function isSession2025(task: Pick<TaskView, 'dialect'>): boolean {
  return task.dialect === SPEC_2025_11_25 || task.dialect === EXT_TASKS;
}

/**
 * A task as a session wire shows it: in its own dialect's `Task` shape (an extension task in the
 * 2025-11-25 one, see {@link isSession2025}), plus (SEP-1686 only, §4.7) the related-task
 * `_meta`; 2025-11-25 results carry no related-task key, the `taskId` being in the body.
 *
 * @param now - the time of the read, on the runtime's clock: the suggested poll interval depends on it
 * @example
 * ```ts
 * renderInOwnDialect(task, { withMeta: true }, runtime.options.now()); // SEP-1686 or 2025-11-25 shape depending on task.dialect
 * ```
 */
export function renderInOwnDialect(task: TaskView, options: { withMeta: boolean }, now: number): Record<string, unknown> {
  if (isSession2025(task)) return renderTask2025(task, now);
  const rendered = renderTask(task, now);
  if (!options.withMeta) return rendered;
  // Merged into the nesting keys a subtask or parent carries.
  const meta = rendered['_meta'] as Record<string, unknown> | undefined;
  return Object.assign({}, rendered, { _meta: meta === undefined ? relatedMeta(task.taskId) : { ...meta, ...relatedMeta(task.taskId) } });
}

/**
 * A result with the related-task key of the task's own dialect (on a session wire: see
 * {@link isSession2025}).
 *
 * @example
 * ```ts
 * withRelatedMetaFor(task, result);
 * ```
 */
export function withRelatedMetaFor(task: Pick<TaskView, 'dialect' | 'taskId'>, result: unknown): Record<string, unknown> {
  return isSession2025(task) ? withRelatedMeta2025(result, task.taskId) : withRelatedMeta(result, task.taskId);
}
