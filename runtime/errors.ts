/**
 * Typed errors of the task runtime. Local errors stay apart from wire errors: only adapters map
 * these to MCP JSON-RPC errors.
 *
 * @module
 */
import type { TaskView } from './task-runtime.types.js';

/**
 * Every error code the runtime raises.
 *
 * @example
 * ```ts
 * if (error.code === TaskErrorCode.notFound) return null;
 * ```
 */
export const TaskErrorCode = {
  notFound: 'TASK_NOT_FOUND',
  expired: 'TASK_EXPIRED',
  notCompleted: 'TASK_NOT_COMPLETED',
  duplicateId: 'TASK_DUPLICATE_ID',
  invalidCursor: 'INVALID_CURSOR',
  invalidArgument: 'INVALID_ARGUMENT',
  terminal: 'TASK_TERMINAL',
  timeout: 'TIMEOUT',
  disposed: 'RUNTIME_DISPOSED',
  failed: 'TASK_FAILED',
  limited: 'LIMIT_EXCEEDED',
  draining: 'RUNTIME_DRAINING',
  storeUnavailable: 'STORE_UNAVAILABLE',
  inputUnsupported: 'INPUT_UNSUPPORTED',
} as const;
/** One runtime error code. */
export type TaskErrorCode = (typeof TaskErrorCode)[keyof typeof TaskErrorCode];

/**
 * Base class of every runtime error.
 *
 * @example
 * ```ts
 * try { runtime.get(id, owner); } catch (e) { if (e instanceof TaskRuntimeError) console.log(e.code); }
 * ```
 */
export class TaskRuntimeError extends Error {
  readonly code: TaskErrorCode;
  constructor(code: TaskErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'TaskRuntimeError';
    this.code = code;
  }
}

/**
 * No task with that id exists for this requester (or it was deleted).
 *
 * @example
 * ```ts
 * await runtime.get('nope', owner); // throws TaskNotFoundError
 * ```
 */
export class TaskNotFoundError extends TaskRuntimeError {
  readonly taskId: string;
  constructor(taskId: string, options?: ErrorOptions) {
    super(TaskErrorCode.notFound, 'Task not found', options);
    this.name = 'TaskNotFoundError';
    this.taskId = taskId;
  }
}

/**
 * The task existed but its keepAlive elapsed and it was removed.
 *
 * @example
 * ```ts
 * if (e instanceof TaskExpiredError) console.log('gone after keepAlive');
 * ```
 */
export class TaskExpiredError extends TaskRuntimeError {
  readonly taskId: string;
  constructor(taskId: string, options?: ErrorOptions) {
    super(TaskErrorCode.expired, 'Task has expired', options);
    this.name = 'TaskExpiredError';
    this.taskId = taskId;
  }
}

/**
 * A result was asked for a task that is not `completed`.
 *
 * @example
 * ```ts
 * await runtime.result(id, owner); // throws while the task is working
 * ```
 */
export class TaskNotCompletedError extends TaskRuntimeError {
  readonly taskId: string;
  readonly status: string;
  constructor(taskId: string, status: string, options?: ErrorOptions) {
    super(TaskErrorCode.notCompleted, `Task status is '${status}', not 'completed'`, options);
    this.name = 'TaskNotCompletedError';
    this.taskId = taskId;
    this.status = status;
  }
}

/**
 * The requester reused a task id it already has.
 *
 * @example
 * ```ts
 * await runtime.create({ ...sameIdAgain }); // throws DuplicateTaskIdError
 * ```
 */
export class DuplicateTaskIdError extends TaskRuntimeError {
  readonly taskId: string;
  constructor(taskId: string, options?: ErrorOptions) {
    super(TaskErrorCode.duplicateId, `Task ID already exists: ${taskId}`, options);
    this.name = 'DuplicateTaskIdError';
    this.taskId = taskId;
  }
}

/**
 * A list cursor that this runtime did not issue.
 *
 * @example
 * ```ts
 * await runtime.list(owner, { cursor: 'forged' }); // throws InvalidCursorError
 * ```
 */
export class InvalidCursorError extends TaskRuntimeError {
  constructor(detail: string, options?: ErrorOptions) {
    super(TaskErrorCode.invalidCursor, `Invalid cursor: ${detail}`, options);
    this.name = 'InvalidCursorError';
  }
}

/**
 * An argument that is malformed (wrong type, empty id, negative duration).
 *
 * @example
 * ```ts
 * throw new InvalidArgumentError('taskId must be a non-empty string');
 * ```
 */
export class InvalidArgumentError extends TaskRuntimeError {
  constructor(message: string, options?: ErrorOptions) {
    super(TaskErrorCode.invalidArgument, message, options);
    this.name = 'InvalidArgumentError';
  }
}

/**
 * An operation that needs a running task hit a terminal one (e.g. cancel after completion).
 *
 * @example
 * ```ts
 * await runtime.cancel(doneId, owner); // throws TaskTerminalError
 * ```
 */
export class TaskTerminalError extends TaskRuntimeError {
  readonly taskId: string;
  readonly status: string;
  constructor(taskId: string, status: string, options?: ErrorOptions) {
    super(TaskErrorCode.terminal, `Task is already terminal (status '${status}')`, options);
    this.name = 'TaskTerminalError';
    this.taskId = taskId;
    this.status = status;
  }
}

/**
 * The `mcp-tasks serve` flag of each limit, named in the limit's error so that a requester can tell
 * its operator what to raise (an embedding program sets the limit of the same name in its options).
 */
export const LIMIT_FLAGS: Readonly<Record<string, string>> = {
  maxConcurrentTasks: '--max-running-tasks',
  createsPerSecond: '--max-creates-per-second',
  pollsPerSecond: '--max-polls-per-second',
  listsPerSecond: '--max-lists-per-second',
  maxTaskIdLength: '--max-task-id-length',
  maxResultBytes: '--max-result-bytes',
  maxRequestBytes: '--max-request-bytes',
  maxRetainedTasks: '--max-retained-tasks',
  maxRetainedBytes: '--max-retained-bytes',
  maxRetainedBytesPerRequester: '--max-retained-bytes-per-requester',
};

/**
 * A requester went over one of its limits (see `RequesterLimits`); nothing was done.
 *
 * @example
 * ```ts
 * try { await runtime.get(id, owner); } catch (e) { if (e instanceof TaskLimitError) await sleep(e.retryAfterMs ?? 1000); }
 * ```
 */
export class TaskLimitError extends TaskRuntimeError {
  /** The limit's name, e.g. `pollsPerSecond`. */
  readonly limit: string;
  /** When a retry may succeed, in ms; `null` when that depends on tasks ending. */
  readonly retryAfterMs: number | null;
  /**
   * @param when - what to do instead of retrying, for a limit a retry cannot pass (an id too long)
   */
  constructor(limit: string, value: string, retryAfterMs: number | null, options?: ErrorOptions & { when?: string }) {
    const when = options?.when ?? (retryAfterMs === null ? 'retry once one of your tasks has ended' : `retry after ${retryAfterMs} ms`);
    const flag = LIMIT_FLAGS[limit];
    super(TaskErrorCode.limited, `Limit exceeded: ${limit} (${value}); ${when}${flag === undefined ? '' : ` (the server sets it: ${flag})`}`, options);
    this.name = 'TaskLimitError';
    this.limit = limit;
    this.retryAfterMs = retryAfterMs;
  }
}

/**
 * A wait ran past its timeout.
 *
 * @example
 * ```ts
 * await runtime.waitForTerminal(id, owner, { timeout: 10 }); // may throw TaskTimeoutError
 * ```
 */
export class TaskTimeoutError extends TaskRuntimeError {
  /** The task as last read, still running, when the wait was for a task (`waitForOutcome`). */
  readonly task: TaskView | undefined;

  /** @param options - `task`: the task as the wait last read it */
  constructor(ms: number, options?: ErrorOptions & { readonly task?: TaskView }) {
    super(TaskErrorCode.timeout, `Timed out after ${ms} ms`, options);
    this.name = 'TaskTimeoutError';
    this.task = options?.task;
  }
}

/**
 * The runtime was disposed.
 *
 * @example
 * ```ts
 * await runtime.dispose(); await runtime.get(id, owner); // throws RuntimeDisposedError
 * ```
 */
export class RuntimeDisposedError extends TaskRuntimeError {
  constructor(options?: ErrorOptions) {
    super(TaskErrorCode.disposed, 'The task runtime has been disposed', options);
    this.name = 'RuntimeDisposedError';
  }
}

/**
 * The node is shutting down (`runtime.close`, `serve` on SIGTERM): it takes no new task, while
 * the tasks it has keep answering. Retryable: another node (or this service once restarted)
 * takes the task; `retryAfterMs` says when to try again. A wait still open at the drain's
 * deadline (a blocked `tasks/result`, a SEP-1686 call) ends with it too, its message saying
 * whether another node holds the task or the shutdown ended it.
 *
 * @example
 * ```ts
 * try { await runtime.create(o); } catch (e) { if (e instanceof RuntimeDrainingError) await sleep(e.retryAfterMs); }
 * ```
 */
export class RuntimeDrainingError extends TaskRuntimeError {
  /** When a retry (through a load balancer, on another node) may succeed, in ms. */
  readonly retryAfterMs: number;
  /**
   * @param options - `message`: what the shutdown did to the call it ends (a call still open at the
   *   drain's deadline); by default a new task's refusal
   */
  constructor(retryAfterMs: number, options?: ErrorOptions & { readonly message?: string }) {
    super(TaskErrorCode.draining, options?.message ?? `The server is shutting down and takes no new task; retry after ${retryAfterMs} ms (another node may take it)`, options);
    this.name = 'RuntimeDrainingError';
    this.retryAfterMs = retryAfterMs;
  }
}

/**
 * The task store (NATS) did not answer: the server is away, restarting or electing a leader. The
 * call did nothing the requester can rely on; the task and its result, if any, are still kept,
 * so the same call is worth retrying after `retryAfterMs`. Raised only for failures the backend
 * declares transient (see `TaskStore.isTransient`): a fault of the program is not one.
 *
 * @example
 * ```ts
 * try { await runtime.get(id, owner); } catch (e) { if (e instanceof StoreUnavailableError) await sleep(e.retryAfterMs); }
 * ```
 */
export class StoreUnavailableError extends TaskRuntimeError {
  /** When a retry may succeed, in ms. */
  readonly retryAfterMs: number;
  constructor(retryAfterMs: number, options?: ErrorOptions) {
    super(TaskErrorCode.storeUnavailable, `The task store is unavailable (${causeOf(options?.cause)}); retry after ${retryAfterMs} ms`, options);
    this.name = 'StoreUnavailableError';
    this.retryAfterMs = retryAfterMs;
  }
}

/**
 * What the store threw, by its class only: the message goes to requesters, and a backend's own
 * message may name servers and addresses that are the operator's business (the log has them).
 */
function causeOf(cause: unknown): string {
  return cause instanceof Error ? `it did not answer: ${cause.name}` : 'it did not answer';
}

/**
 * Thrown by a handler to end its task `failed` while keeping a result, e.g. a tool result with
 * `isError: true` in a dialect where that means failure. `tasks/result` can still return it.
 *
 * @example
 * ```ts
 * throw new TaskFailure('Tool reported an error', { result: toolResult });
 * ```
 */
export class TaskFailure extends TaskRuntimeError {
  readonly result: unknown;
  readonly hasResult: boolean;
  /** Opaque, JSON-safe detail kept with the failed task (adapters keep the wire error here). */
  readonly detail: unknown;
  constructor(message: string, options?: ErrorOptions & { result?: unknown; detail?: unknown }) {
    super(TaskErrorCode.failed, message, options);
    this.name = 'TaskFailure';
    this.hasResult = options !== undefined && 'result' in options;
    this.result = options?.result;
    this.detail = options?.detail;
  }
}

/**
 * A subtask ended other than `completed` while its parent waited with `'first-error'`.
 *
 * @example
 * ```ts
 * try { await ctx.waitForSubtasks(kids, 'first-error'); } catch (e) { if (e instanceof SubtaskFailedError) console.log(e.subtaskId, e.status); }
 * ```
 */
export class SubtaskFailedError extends TaskRuntimeError {
  readonly subtaskId: string;
  readonly status: string;
  constructor(subtaskId: string, status: string, detail: string | null) {
    super(TaskErrorCode.failed, `Subtask ${subtaskId} ended ${status}${detail ? `: ${detail}` : ''}`);
    this.name = 'SubtaskFailedError';
    this.subtaskId = subtaskId;
    this.status = status;
  }
}

/**
 * The work asked its requester for input (`ctx.requestInput`, `elicit`, `sample`) that the
 * requester cannot answer: it did not declare the client capability the request needs (on
 * 2026-07-28 in the request that created the task, elsewhere at `initialize`). Thrown at once,
 * before the task shows `input_required`; nothing is sent. The work decides what follows (a
 * handler that lets it through fails its task with this message).
 *
 * @example
 * ```ts
 * try { await ctx.requestInput('elicitation/create', form); } catch (e) { if (e instanceof InputUnsupportedError) return fallback(e.capability); }
 * ```
 */
export class InputUnsupportedError extends TaskRuntimeError {
  /** The client capability the request needs and the requester did not declare (`elicitation`). */
  readonly capability: string;
  /** The input request's method (`elicitation/create`). */
  readonly method: string;
  constructor(capability: string, method: string, options?: ErrorOptions) {
    super(TaskErrorCode.inputUnsupported, `The requester did not declare the '${capability}' capability, so this task cannot ask it (${method})`, options);
    this.name = 'InputUnsupportedError';
    this.capability = capability;
    this.method = method;
  }
}

/**
 * All runtime error classes in one namespace object.
 *
 * @example
 * ```ts
 * if (e instanceof errors.TaskNotFoundError) reply404();
 * ```
 */
export const errors = {
  TaskRuntimeError,
  SubtaskFailedError,
  TaskNotFoundError,
  TaskExpiredError,
  TaskNotCompletedError,
  DuplicateTaskIdError,
  InvalidCursorError,
  InvalidArgumentError,
  TaskTerminalError,
  TaskTimeoutError,
  TaskLimitError,
  RuntimeDisposedError,
  RuntimeDrainingError,
  StoreUnavailableError,
  TaskFailure,
  InputUnsupportedError,
} as const;

/**
 * True when `value` is a runtime error, optionally of one code.
 *
 * @param value - anything caught
 * @param code - narrow to this code
 * @example
 * ```ts
 * if (isTaskRuntimeError(e, 'TASK_NOT_FOUND')) …
 * ```
 */
export function isTaskRuntimeError(value: unknown, code?: TaskErrorCode): value is TaskRuntimeError {
  return value instanceof TaskRuntimeError && (code === undefined || value.code === code);
}
