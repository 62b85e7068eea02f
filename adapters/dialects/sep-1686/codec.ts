/**
 * The SEP-1686 wire dialect: how a task is asked for (`_meta["modelcontextprotocol.io/task"]`),
 * how a task is rendered, and the related-task key every task message carries (§4.7).
 *
 * @module
 */
import { suggestedPollInterval, type TaskView } from '../../../runtime/index.js';
import { withNestingMeta } from '../extension-meta.js';

/** Name of this dialect, stored with each task created in it. */
export const SEP_1686 = 'sep-1686';
/** `_meta` key that asks for a task (§3.1). */
export const TASK_META_KEY = 'modelcontextprotocol.io/task';
/** `_meta` key that ties a message to its task (§4.7). */
export const RELATED_TASK_META_KEY = 'modelcontextprotocol.io/related-task';

/** A parsed SEP-1686 task request. */
export interface Sep1686TaskRequest {
  readonly taskId: string;
  /** Requested keepAlive in ms; `null` asks for as long as allowed; `undefined` for the default. */
  readonly keepAlive: number | null | undefined;
}

/** Largest task id accepted; longer ones are refused rather than stored. */
export const MAX_TASK_ID_LENGTH = 256;

/** The task metadata was present but malformed; the message says what was wrong. */
export class Sep1686MetaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'Sep1686MetaError';
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Reads the task request from a request's `_meta`, if any.
 *
 * @param meta - `params._meta` of the incoming request
 * @returns the task request, or `undefined` when the request is not task-augmented
 * @throws Sep1686MetaError when the key is present but malformed
 * @example
 * ```ts
 * parseTaskMeta({ 'modelcontextprotocol.io/task': { taskId: 't1', keepAlive: 60000 } });
 * // { taskId: 't1', keepAlive: 60000 }
 * ```
 */
export function parseTaskMeta(meta: unknown): Sep1686TaskRequest | undefined {
  if (!isRecord(meta) || !(TASK_META_KEY in meta)) return undefined;
  const task = meta[TASK_META_KEY];
  if (!isRecord(task)) throw new Sep1686MetaError(`Invalid task metadata: _meta["${TASK_META_KEY}"] must be an object`);
  const { taskId, keepAlive } = task;
  if (typeof taskId !== 'string' || taskId.length === 0) {
    throw new Sep1686MetaError('Invalid task metadata: taskId must be a non-empty string');
  }
  if (taskId.length > MAX_TASK_ID_LENGTH) {
    throw new Sep1686MetaError(`Invalid task metadata: taskId is longer than ${MAX_TASK_ID_LENGTH} characters`);
  }
  // null is read as "as long as the receiver allows", mirroring the null (unlimited) keepAlive it reports.
  if (keepAlive !== undefined && keepAlive !== null && (typeof keepAlive !== 'number' || !Number.isFinite(keepAlive) || keepAlive < 0)) {
    throw new Sep1686MetaError('Invalid task metadata: keepAlive must be a non-negative number of milliseconds');
  }
  return { taskId, keepAlive: keepAlive === null ? null : keepAlive };
}

/**
 * The related-task `_meta` for a task id.
 *
 * @example
 * ```ts
 * relatedMeta('t1'); // { 'modelcontextprotocol.io/related-task': { taskId: 't1' } }
 * ```
 */
export function relatedMeta(taskId: string): Record<string, { taskId: string }> {
  return { [RELATED_TASK_META_KEY]: { taskId } };
}

/**
 * Adds the related-task key to a result's `_meta`, keeping whatever `_meta` it had.
 *
 * @example
 * ```ts
 * withRelatedMeta({ content: [] }, 't1');
 * ```
 */
export function withRelatedMeta(result: unknown, taskId: string): Record<string, unknown> {
  const base = isRecord(result) ? result : {};
  const meta = isRecord(base['_meta']) ? base['_meta'] : {};
  return Object.assign({}, base, { _meta: Object.assign({}, meta, relatedMeta(taskId)) });
}

/**
 * Renders a task as SEP-1686's Task (§6): `taskId`, `status`, `keepAlive` (actual, `null` for
 * unlimited), `pollFrequency` (what the task suggests at `now`, see `suggestedPollInterval`),
 * `error` when failed, and the status message as an extra field.
 *
 * @param task - the runtime's view of the task
 * @param now - the time of the read, on the runtime's clock (`runtime.options.now()`)
 * @example
 * ```ts
 * renderTask(view, runtime.options.now()); // { taskId: 't1', status: 'working', keepAlive: 60000, pollFrequency: 25 }
 * ```
 */
export function renderTask(task: TaskView, now: number): Record<string, unknown> {
  const out: Record<string, unknown> = {
    taskId: task.taskId,
    status: task.status,
    keepAlive: task.keepAlive,
    pollFrequency: suggestedPollInterval(task, now),
  };
  if (task.statusMessage !== null) out['statusMessage'] = task.statusMessage;
  if (task.error !== null && (task.status === 'failed' || task.status === 'unknown')) out['error'] = task.error;
  return withNestingMeta(out, task);
}
