/**
 * Public types of the requester handle (`TaskClient.callTool`, `TaskClient.task`): one meaning on
 * every dialect.
 *
 * @module
 */
import type { RequesterDialect, RequesterTask, TaskStatus } from '../../machines/index.js';
import type { CallToolResult } from './mcp-shapes.js';
import type { InputRequestHandler } from './task-client.types.js';

/**
 * What a call is spoken in: a task dialect, or `'plain'` (an ordinary `tools/call`: the server
 * declares no tasks, or lists the tool as not runnable as a task).
 *
 * @example
 * ```ts
 * const spoken: CallDialect = call.dialect ?? 'plain';
 * ```
 */
export type CallDialect = RequesterDialect | 'plain';

/**
 * The dialect a client asks for: `'auto'` negotiates per call (the 2026-07-28 extension when the
 * server declares it and the client has a raw dispatch, else 2025-11-25 when the server declares
 * task-augmented `tools/call` and lists the tool as runnable as a task, else SEP-1686 when the
 * server declares a `tasks` capability, else a plain call).
 *
 * @example
 * ```ts
 * const wanted: DialectChoice = 'auto';
 * ```
 */
export type DialectChoice = RequesterDialect | 'auto';

/**
 * One thing that happened to a call, as `TaskCall.updates()` yields it.
 * - `status`: the task's status or status message changed (the task as last read);
 * - `progress`: an MCP progress notification of the call (on 2026-07-28, which has none, read off
 *   the status message where the server wrote it as `4/10 — message`, as this project's servers do);
 * - `partial`: a partial result the work published (its sequence number and content);
 * - `subtask`: a subtask appeared or changed status;
 * - `input`: the server asks the requester something (elicitation, sampling) for this call.
 *
 * @example
 * ```ts
 * for await (const update of call.updates()) {
 *   if (update.type === 'partial') console.log(update.seq, update.content);
 * }
 * ```
 */
export type TaskUpdate =
  | { readonly type: 'status'; readonly task: RequesterTask }
  | { readonly type: 'progress'; readonly progress: number; readonly total?: number; readonly message?: string }
  | { readonly type: 'partial'; readonly seq: number; readonly content: unknown }
  | { readonly type: 'subtask'; readonly taskId: string; readonly status: TaskStatus }
  | { readonly type: 'input'; readonly method: string; readonly params?: Record<string, unknown> };

/**
 * How a call started: as a task (with its id), or answered at once without one.
 *
 * @example
 * ```ts
 * const start: CallStart = await call.started;
 * if (start.kind === 'task') console.log('fetch it later with', start.taskId);
 * ```
 */
export type CallStart = { readonly kind: 'task'; readonly taskId: string } | { readonly kind: 'direct' };

/**
 * Options of `TaskClient.callTool`.
 *
 * @example
 * ```ts
 * const options: CallOptions = { ttl: 600_000, signal: AbortSignal.timeout(60_000) };
 * ```
 */
export interface CallOptions {
  /**
   * Retention after the task ends, in ms. Only SEP-1686 can ask for it (`keepAlive`); another
   * dialect rejects the call with code `retention_unsupported` rather than ignore it.
   */
  readonly keepAlive?: number;
  /**
   * Lifetime from creation, in ms. Only 2025-11-25 can ask for it (`ttl`); another dialect rejects
   * the call with code `retention_unsupported`.
   */
  readonly ttl?: number;
  /** Cancels the task on the server when aborted (not only the wait); a plain call is abandoned. */
  readonly signal?: AbortSignal;
  /**
   * Answers what the server asks for this call (elicitation, sampling); the client's own
   * `onInputRequest` (or the SDK handler installed before) answers everything else.
   */
  readonly onInputRequest?: InputRequestHandler;
  /**
   * The dialect for this call.
   * @default the client's `dialect`, else `'auto'`
   */
  readonly dialect?: DialectChoice;
  /**
   * SEP-1686: the task id to use.
   * @default crypto.randomUUID()
   */
  readonly taskId?: string;
}

/**
 * Options of `TaskClient.task`.
 *
 * @example
 * ```ts
 * const later = tasks.task(taskId, { dialect: '2025-11-25' });
 * ```
 */
export interface TaskRefOptions {
  /**
   * The dialect the task was created in.
   * @default the client's `dialect`; with `'auto'`, what the server declares (2026-07-28, else 2025-11-25, else SEP-1686)
   */
  readonly dialect?: DialectChoice;
  /** Answers what the server asks for this task. */
  readonly onInputRequest?: InputRequestHandler;
  /** Cancels the task on the server when aborted. */
  readonly signal?: AbortSignal;
}

/**
 * A call in flight, handed out at once by `TaskClient.callTool` (or `TaskClient.task` for a task
 * made earlier, even by another process).
 *
 * The outcome has one shape on every dialect: `result()` resolves with the `CallToolResult`,
 * `isError: true` when the tool or the task failed (the server's own error result when it kept
 * one, else the task's error message as text); it rejects with `TaskCancelledError` when the task
 * was cancelled and with `TaskProtocolError` when the exchange itself failed.
 *
 * @example
 * ```ts
 * const call = tasks.callTool({ name: 'long_job', arguments: { seconds: 5 } });
 * const start = await call.started;
 * if (start.kind === 'task') console.log('task', call.taskId);
 * for await (const update of call.updates()) if (update.type === 'status') console.log(update.task.status);
 * const result = await call.result();
 * ```
 */
export interface TaskCall {
  /** The task id once known (at once for SEP-1686, on creation otherwise); `undefined` before, and for a plain call. */
  readonly taskId: string | undefined;
  /** The dialect the call went out in, once chosen. */
  readonly dialect: CallDialect | undefined;
  /** Resolves once the server made a task or answered directly; rejects when the call failed first. */
  readonly started: Promise<CallStart>;
  /** The latest task state seen, or `null` before the first (and for a plain call). */
  readonly task: RequesterTask | null;
  /**
   * Waits for the outcome (see the interface). `signal` stops waiting only; cancel with `cancel()`
   * or the call's own `signal`.
   * @throws TaskCancelledError, TaskProtocolError, or TaskClientError (`aborted`, `disposed`, `retention_unsupported`)
   */
  result(options?: { readonly signal?: AbortSignal }): Promise<CallToolResult>;
  /** Every update of the call, from its start (the last 1,000 kept), until it ends. */
  updates(): AsyncIterableIterator<TaskUpdate>;
  /** Asks the server to cancel the task; resolves once asked. No-op once the call has ended. */
  cancel(reason?: string): Promise<void>;
}
