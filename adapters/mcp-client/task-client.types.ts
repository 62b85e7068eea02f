/**
 * Public types of the task client: its options, the per-call options and the handle of a task in
 * flight.
 *
 * @module
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { RequesterDialect, RequesterTask } from '../../machines/index.js';

/**
 * Options of a `TaskClient`.
 *
 * @example
 * ```ts
 * const tasks = new TaskClient(client, { dialect: '2025-11-25', pollFrequency: 250 });
 * ```
 */
export interface TaskClientOptions {
  /**
   * The wire dialect to ask for tasks in.
   * @default 'sep-1686'
   */
  readonly dialect?: RequesterDialect;
  /**
   * ms between polls until the receiver suggests its own (`pollFrequency` / `pollInterval`).
   * @default 1000
   */
  readonly pollFrequency?: number;
  /**
   * Polls after a cancel before giving up on seeing `cancelled`.
   * @default 10
   */
  readonly maxCancelPolls?: number;
}

/** `TaskClientOptions` with every default applied. */
export interface ResolvedTaskClientOptions {
  readonly dialect: RequesterDialect;
  readonly pollFrequency: number;
  readonly maxCancelPolls: number;
}

/**
 * The tool call to run as a task.
 *
 * @example
 * ```ts
 * const params: CallToolParams = { name: 'sleep', arguments: { ms: 500 } };
 * ```
 */
export interface CallToolParams {
  readonly name: string;
  readonly arguments?: Record<string, unknown>;
}

/**
 * Options of one task-augmented call.
 *
 * @example
 * ```ts
 * tasks.beginCallTool({ name: 'long_job', arguments: { seconds: 5 } }, { keepAlive: 60_000 });
 * ```
 */
export interface BeginCallOptions {
  /** SEP-1686: requested retention after the task ends, in ms (`keepAlive`). */
  readonly keepAlive?: number;
  /** 2025-11-25: requested lifetime from creation, in ms (`ttl`). */
  readonly ttl?: number;
  /**
   * SEP-1686: the task id to use.
   * @default crypto.randomUUID()
   */
  readonly taskId?: string;
}

/**
 * Options of `TaskClient.resume`.
 *
 * @example
 * ```ts
 * tasks.resume(taskId, { dialect: '2025-11-25' });
 * ```
 */
export interface ResumeOptions {
  /**
   * The dialect the task was created in.
   * @default the client's dialect
   */
  readonly dialect?: RequesterDialect;
}

/**
 * Options of `PendingTask.result`.
 *
 * @example
 * ```ts
 * await pending.result({ onTaskStatus: (t) => console.log(t.status), signal: AbortSignal.timeout(10_000) });
 * ```
 */
export interface ResultOptions {
  /**
   * Called with the task whenever its status or status message changes (and once at once with the
   * latest state, if one is known). Throwing from it rejects the returned promise.
   */
  readonly onTaskStatus?: (task: RequesterTask) => void;
  /** Stops waiting (rejecting with code `aborted`); the task itself goes on. */
  readonly signal?: AbortSignal;
}

/**
 * A task-augmented request in flight, driven by a requester actor.
 *
 * @example
 * ```ts
 * const pending = tasks.beginCallTool({ name: 'sleep', arguments: { ms: 1000 } });
 * console.log(await pending.taskId);
 * const result = await pending.result({ onTaskStatus: (t) => console.log(t.status) });
 * ```
 */
export interface PendingTask {
  readonly dialect: RequesterDialect;
  /**
   * Resolves with the task id once known: at once for SEP-1686 (the requester makes it), on
   * `CreateTaskResult` for 2025-11-25 (rejects with code `no_task` if none was created).
   */
  readonly taskId: Promise<string>;
  /** The latest task state seen, or `null` before the first. */
  readonly task: RequesterTask | null;
  /**
   * Waits for the outcome.
   * @throws TaskFailedError, TaskCancelledError, TaskProtocolError, or TaskClientError (`aborted`, `disposed`)
   */
  result(options?: ResultOptions): Promise<CallToolResult>;
  /**
   * Asks for cancellation (SEP-1686: `notifications/cancelled` for the original request, then
   * polling until `cancelled`; 2025-11-25: `tasks/cancel`). No-op once the task has ended.
   * @throws TaskClientError with code `cancel_unsupported` for a resumed SEP-1686 task
   */
  cancel(reason?: string): void;
}
