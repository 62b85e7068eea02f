/**
 * Errors of the task client, under one base class carrying a `code`. A task that fails or is
 * cancelled is reported by the receiver as data; these classes are how `PendingTask.result()`
 * turns that data into a rejection the caller can branch on.
 *
 * @module
 */
import type { RequesterTask } from '../../machines/index.js';

/**
 * Every error code of the task client.
 *
 * @example
 * ```ts
 * if (isTaskClientError(e) && e.code === TaskClientErrorCode.taskCancelled) console.log('cancelled');
 * ```
 */
export const TaskClientErrorCode = {
  /** The task ended `failed` (or `unknown`). */
  taskFailed: 'task_failed',
  /** The task ended `cancelled`. */
  taskCancelled: 'task_cancelled',
  /** The original request failed before a task was known. */
  requestFailed: 'request_failed',
  /** `tasks/get` failed or answered something that is not a task. */
  pollFailed: 'poll_failed',
  /** `tasks/result` failed. */
  resultFailed: 'result_failed',
  /** After a cancel the task never showed `cancelled` (SEP-1686 §4.8.6). */
  cancelUnconfirmed: 'cancel_unconfirmed',
  /** 2026-07-28: the task's input requests could not be answered (no `onInputRequest`, it threw, or `tasks/update` failed). */
  inputFailed: 'input_failed',
  /** A 2025-11-25 receiver answered without creating a task, so there is no task id. */
  noTask: 'no_task',
  /** The caller's `AbortSignal` stopped the waiting (the task itself goes on). */
  aborted: 'aborted',
  /** The task cannot be cancelled from here (a resumed SEP-1686 task has no original request id). */
  cancelUnsupported: 'cancel_unsupported',
  /** `TaskClient.dispose()` stopped following the task. */
  disposed: 'disposed',
  /** The call asked for a retention (`ttl`, `keepAlive`) its dialect cannot carry. */
  retentionUnsupported: 'retention_unsupported',
} as const;
/** One of the task client's error codes. */
export type TaskClientErrorCode = (typeof TaskClientErrorCode)[keyof typeof TaskClientErrorCode];

/**
 * Base class of every task client error.
 *
 * @example
 * ```ts
 * try { await pending.result(); } catch (e) { if (e instanceof TaskClientError) console.log(e.code); }
 * ```
 */
export class TaskClientError extends Error {
  readonly code: TaskClientErrorCode;
  constructor(code: TaskClientErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'TaskClientError';
    this.code = code;
  }
}

/**
 * The task ended `failed` or `unknown`; `task` is the last state seen, with its status message.
 *
 * @example
 * ```ts
 * catch (e) { if (e instanceof TaskFailedError) console.log(e.task?.statusMessage); }
 * ```
 */
export class TaskFailedError extends TaskClientError {
  readonly task: RequesterTask | null;
  constructor(task: RequesterTask | null, options?: ErrorOptions) {
    const detail = task?.error ?? task?.statusMessage;
    super(TaskClientErrorCode.taskFailed, `Task ${task?.taskId ?? ''} ended ${task?.status ?? 'failed'}${detail ? `: ${detail}` : ''}`, options);
    this.name = 'TaskFailedError';
    this.task = task;
  }
}

/**
 * The task ended `cancelled` (by this requester or by the receiver).
 *
 * @example
 * ```ts
 * catch (e) { if (e instanceof TaskCancelledError) console.log('cancelled', e.task?.taskId); }
 * ```
 */
export class TaskCancelledError extends TaskClientError {
  readonly task: RequesterTask | null;
  constructor(task: RequesterTask | null, options?: ErrorOptions) {
    super(TaskClientErrorCode.taskCancelled, task === null ? 'The call was cancelled before a task was known' : `Task ${task.taskId} was cancelled`, options);
    this.name = 'TaskCancelledError';
    this.task = task;
  }
}

/**
 * A request of the protocol failed (the original request, `tasks/get`, `tasks/result`), or a
 * cancel went unconfirmed; `rpcCode` is the JSON-RPC error code when there was one.
 *
 * @example
 * ```ts
 * catch (e) { if (e instanceof TaskProtocolError && e.rpcCode === -32602) console.log('task not found'); }
 * ```
 */
export class TaskProtocolError extends TaskClientError {
  readonly rpcCode: number | null;
  constructor(code: TaskClientErrorCode, message: string, rpcCode: number | null, options?: ErrorOptions) {
    super(code, message, options);
    this.name = 'TaskProtocolError';
    this.rpcCode = rpcCode;
  }
}

/**
 * True when `error` is one of the task client's errors.
 *
 * @example
 * ```ts
 * if (isTaskClientError(e)) console.log(e.code);
 * ```
 */
export function isTaskClientError(error: unknown): error is TaskClientError {
  return error instanceof TaskClientError;
}

/**
 * The error classes in one namespace object.
 *
 * @example
 * ```ts
 * import { errors } from 'mcp-task-actors/adapters/mcp-client';
 * if (e instanceof errors.TaskFailedError) retry();
 * ```
 */
export const errors = { TaskClientError, TaskFailedError, TaskCancelledError, TaskProtocolError } as const;
