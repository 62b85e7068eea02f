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
import { EXT_TASKS, renderTaskExt } from './ext/index.js';
import { relatedMeta, renderTask, withRelatedMeta } from './sep-1686/index.js';

/**
 * A task in its own dialect's `Task` shape, plus (SEP-1686 only, §4.7) the related-task `_meta`;
 * 2025-11-25 results carry no related-task key, the `taskId` being in the body.
 *
 * @param now - the time of the read, on the runtime's clock: the suggested poll interval depends on it
 * @example
 * ```ts
 * renderInOwnDialect(task, { withMeta: true }, runtime.options.now()); // SEP-1686 or 2025-11-25 shape depending on task.dialect
 * ```
 */
export function renderInOwnDialect(task: TaskView, options: { withMeta: boolean }, now: number): Record<string, unknown> {
  if (task.dialect === SPEC_2025_11_25) return renderTask2025(task, now);
  // The extension has no related-task key.
  if (task.dialect === EXT_TASKS) return renderTaskExt(task, now);
  const rendered = renderTask(task, now);
  if (!options.withMeta) return rendered;
  // Merged into the nesting keys a subtask or parent carries.
  const meta = rendered['_meta'] as Record<string, unknown> | undefined;
  return Object.assign({}, rendered, { _meta: meta === undefined ? relatedMeta(task.taskId) : { ...meta, ...relatedMeta(task.taskId) } });
}

/**
 * A result with the related-task key of the task's own dialect.
 *
 * @example
 * ```ts
 * withRelatedMetaFor(task, result);
 * ```
 */
export function withRelatedMetaFor(task: Pick<TaskView, 'dialect' | 'taskId'>, result: unknown): Record<string, unknown> {
  return task.dialect === SPEC_2025_11_25 ? withRelatedMeta2025(result, task.taskId) : withRelatedMeta(result, task.taskId);
}
