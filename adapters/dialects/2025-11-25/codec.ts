/**
 * The 2025-11-25 wire dialect (what `@modelcontextprotocol/sdk` 1.x speaks): a task is asked for
 * with `params.task = { ttl? }`, the receiver makes the id and answers at once with
 * `CreateTaskResult { task }`, and tasks render with ISO timestamps, `ttl` and `pollInterval`.
 *
 * @module
 */
import { suggestedPollInterval, type TaskView } from '../../../runtime/index.js';
import { isoTime } from './iso-time.js';
import { withNestingMeta } from '../extension-meta.js';

/** Name of this dialect, stored with each task created in it. */
export const SPEC_2025_11_25 = '2025-11-25';
/** `_meta` key that ties a message to its task in this dialect. */
export const RELATED_TASK_META_KEY_2025 = 'io.modelcontextprotocol/related-task';

/** A parsed 2025-11-25 task request. */
export interface TaskParams2025 {
  /** Requested ttl in ms; `null` asks for unlimited, `undefined` for the default. */
  readonly ttl: number | null | undefined;
}

/** `params.task` was present but malformed; the message says what was wrong. */
export class TaskParamsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TaskParamsError';
  }
}

/**
 * Reads `params.task`, if any.
 *
 * @param params - the request's params
 * @returns the task request, or `undefined` when the request is not task-augmented in this dialect
 * @throws TaskParamsError when `task` is present but malformed
 * @example
 * ```ts
 * parseTaskParams({ name: 'sleep', task: { ttl: 60000 } }); // { ttl: 60000 }
 * ```
 */
export function parseTaskParams(params: unknown): TaskParams2025 | undefined {
  if (typeof params !== 'object' || params === null || !('task' in params)) return undefined;
  const task = (params).task;
  if (task === undefined) return undefined;
  if (typeof task !== 'object' || task === null || Array.isArray(task)) {
    throw new TaskParamsError('Invalid params: task must be an object, e.g. { "ttl": 60000 }');
  }
  const { ttl } = task as { ttl?: unknown };
  if (ttl !== undefined && ttl !== null && (typeof ttl !== 'number' || !Number.isFinite(ttl) || ttl < 0)) {
    throw new TaskParamsError('Invalid params: task.ttl must be a non-negative number of milliseconds');
  }
  return { ttl: ttl === null ? null : typeof ttl === 'number' ? ttl : undefined };
}

/**
 * A task's status in the five statuses of 2025-11-25 (also those of the tasks extension):
 * `submitted` → `working`, `unknown` → `failed` with a status message saying the outcome is unknown.
 *
 * @example
 * ```ts
 * statusOf2025(view); // { status: 'working', statusMessage: null }
 * ```
 */
export function statusOf2025(task: TaskView): { status: string; statusMessage: string | null } {
  if (task.status === 'submitted') return { status: 'working', statusMessage: task.statusMessage };
  if (task.status === 'unknown') return { status: 'failed', statusMessage: `The outcome of this task is unknown${task.error ? `: ${task.error}` : ''}` };
  return { status: task.status, statusMessage: task.statusMessage };
}

/**
 * Renders a task as the 2025-11-25 `Task`. Statuses this dialect lacks are mapped: `submitted` →
 * `working`, `unknown` → `failed` with a status message saying the outcome is unknown.
 * `pollInterval` is what the task suggests at `now` (see `suggestedPollInterval`).
 *
 * @param task - the runtime's view of the task
 * @param now - the time of the read, on the runtime's clock (`runtime.options.now()`)
 * @example
 * ```ts
 * renderTask2025(view, runtime.options.now()); // { taskId, status: 'working', createdAt: '2025-…Z', lastUpdatedAt, ttl, pollInterval }
 * ```
 */
export function renderTask2025(task: TaskView, now: number): Record<string, unknown> {
  const { status, statusMessage } = statusOf2025(task);
  const out: Record<string, unknown> = {
    taskId: task.taskId,
    status,
    createdAt: isoTime(task.createdAt),
    lastUpdatedAt: isoTime(task.updatedAt),
    ttl: task.keepAlive,
    pollInterval: suggestedPollInterval(task, now),
  };
  if (statusMessage !== null) out['statusMessage'] = statusMessage;
  return withNestingMeta(out, task);
}

/**
 * Adds this dialect's related-task key to a result's `_meta`.
 *
 * @example
 * ```ts
 * withRelatedMeta2025({ content: [] }, 't1');
 * ```
 */
export function withRelatedMeta2025(result: unknown, taskId: string): Record<string, unknown> {
  const base = typeof result === 'object' && result !== null ? (result as Record<string, unknown>) : {};
  const meta = typeof base['_meta'] === 'object' && base['_meta'] !== null ? (base['_meta'] as Record<string, unknown>) : {};
  return Object.assign({}, base, { _meta: Object.assign({}, meta, { [RELATED_TASK_META_KEY_2025]: { taskId } }) });
}
