/**
 * The `io.modelcontextprotocol/tasks` extension of protocol 2026-07-28 (SEP-2663): the client
 * declares the extension per request, the receiver decides whether to answer with a task, and a
 * task renders flat (`Result & Task`) with `ttlMs` and `pollIntervalMs`.
 *
 * @experimental the 2026-07-28 protocol is a draft.
 * @module
 */
import { suggestedPollInterval, type TaskView } from '../../../runtime/index.js';
import { isoTime } from '../2025-11-25/iso-time.js';
import { statusOf2025 } from '../2025-11-25/codec.js';
import { withNestingMeta } from '../extension-meta.js';
import { progressText } from '../progress-text.js';
import { isTerminalStatus } from '../../../machines/index.js';

/** Name of this dialect, stored with each task created in it (kept in NATS records: never rename). */
export const EXT_TASKS = 'ext';
/** The extension's identifier, under `capabilities.extensions`. */
export const TASKS_EXTENSION_ID = 'io.modelcontextprotocol/tasks';

/** What a `tasks/get` adds to a task: the inline outcome or the pending input requests. */
export interface TaskDetail {
  /** Pending input requests by id, listed when the task is `input_required`. */
  readonly inputRequests?: Readonly<Record<string, { readonly method: string; readonly params: unknown }>>;
  /** The request's result, for a `completed` task. */
  readonly result?: unknown;
  /** The JSON-RPC error the request would have answered with, for a `failed` task. */
  readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown };
}

/**
 * `ttlMs` counts from creation in this dialect, but our keepAlive counts from the end: a terminal
 * task renders its real expiry, a running one a lower bound (it is never evicted while it runs,
 * and the extension allows the value to change).
 */
function ttlMs(task: TaskView, now: number): number | null {
  if (task.keepAlive === null) return null;
  const until = task.expiresAt ?? now + task.keepAlive;
  return Math.max(1, Math.ceil(until - task.createdAt));
}

/**
 * Renders a task as the extension's flat `Task`. Statuses the extension lacks are mapped:
 * `submitted` → `working`, `unknown` → `failed` with a status message saying so. A running task
 * that reported progress shows it in its status message (`4/10 — step 4/10`, see `progressText`):
 * the extension has no progress notifications.
 *
 * `pollIntervalMs` is what the task suggests at `now` (see `suggestedPollInterval`), in whole ms.
 *
 * @param task - the runtime's view of the task
 * @param now - the time of the read, on the runtime's clock (`runtime.options.now()`): for the
 *   `ttlMs` of a running task and the suggested interval
 * @example
 * ```ts
 * renderTaskExt(view, runtime.options.now()); // { taskId, status: 'working', createdAt, lastUpdatedAt, ttlMs: 300000, pollIntervalMs: 25 }
 * ```
 */
export function renderTaskExt(task: TaskView, now: number): Record<string, unknown> {
  const { status, statusMessage } = statusOf2025(task);
  const out: Record<string, unknown> = {
    taskId: task.taskId,
    status,
    createdAt: isoTime(task.createdAt),
    lastUpdatedAt: isoTime(task.updatedAt),
    ttlMs: ttlMs(task, now),
    pollIntervalMs: Math.max(1, Math.ceil(suggestedPollInterval(task, now))),
  };
  // No progress notifications on this wire: a running task's progress is in its status message.
  const shown = task.progress !== undefined && !isTerminalStatus(task.status) ? progressText(task.progress, statusMessage) : statusMessage;
  if (shown !== null) out['statusMessage'] = shown;
  return withNestingMeta(out, task);
}

/**
 * Renders the `DetailedTask` of a `tasks/get`: the task plus what its status carries.
 *
 * @example
 * ```ts
 * renderDetailedTask(view, { result: { content: [] } }, runtime.options.now()); // { taskId, status: 'completed', …, result }
 * ```
 */
export function renderDetailedTask(task: TaskView, detail: TaskDetail, now: number): Record<string, unknown> {
  const out = renderTaskExt(task, now);
  if (out['status'] === 'input_required' && detail.inputRequests !== undefined) out['inputRequests'] = detail.inputRequests;
  if (out['status'] === 'completed' && detail.result !== undefined) out['result'] = detail.result;
  if (out['status'] === 'failed' && detail.error !== undefined) out['error'] = detail.error;
  return out;
}

/**
 * Whether the request's own client capabilities declare the extension (never inferred from earlier
 * requests: the wire is stateless).
 *
 * @param capabilities - `_meta["io.modelcontextprotocol/clientCapabilities"]` of the request
 * @example
 * ```ts
 * declaresTasks({ extensions: { 'io.modelcontextprotocol/tasks': {} } }); // true
 * ```
 */
export function declaresTasks(capabilities: unknown): boolean {
  const extensions = (capabilities as { extensions?: unknown } | null | undefined)?.extensions;
  return typeof extensions === 'object' && extensions !== null && TASKS_EXTENSION_ID in extensions;
}
