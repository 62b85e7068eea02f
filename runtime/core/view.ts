/**
 * The runtime's view of a task, built one way for every backend.
 *
 * @module
 */
import type { TaskView } from '../task-runtime.types.js';
import type { TaskState } from './task-store.js';

/**
 * The view of a stored task.
 *
 * @param state - the memory backend's entry or the NATS record
 * @example
 * ```ts
 * const view = viewOf(record); // { taskId, status, statusMessage, expiresAt, … }
 * ```
 */
export function viewOf(state: TaskState): TaskView {
  const c = state.context;
  // Written out field by field: one fixed object shape is several times cheaper to build than a
  // spread of the machine's context, and `list` builds one per task of every page.
  const view: TaskView = {
    taskId: c.taskId,
    owner: c.owner,
    dialect: c.dialect,
    method: c.method,
    label: c.label,
    keepAlive: c.keepAlive,
    pollFrequency: c.pollFrequency,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
    statusMessage: c.statusMessage,
    error: c.error,
    pendingInputs: c.pendingInputs,
    resultRef: c.resultRef,
    status: state.status,
    expiresAt: state.expiresAt,
  };
  // Only a subtask, a parent, a task with partial results, progress or a handler machine's
  // position carries more: the common view keeps its one shape.
  if (c.parentId === undefined && c.children === undefined && c.partials === undefined && c.progress === undefined && c.handler === undefined) return view;
  return {
    ...view,
    ...(c.parentId !== undefined && { parentId: c.parentId, depth: c.depth ?? 1 }),
    ...(c.children !== undefined && { children: c.children }),
    ...(c.partials !== undefined && { partials: c.partials }),
    ...(c.progress !== undefined && { progress: c.progress }),
    ...(c.handler !== undefined && { handler: c.handler }),
  };
}
