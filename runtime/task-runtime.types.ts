/**
 * Public types of the task runtime: task views, handlers, create/list/wait options.
 *
 * @module
 */
import type { TaskContext, TaskOwner, TaskStatus } from '../machines/index.js';

/** A task as the runtime reports it: the machine's context plus its status and expiry. */
export interface TaskView extends Readonly<Omit<TaskContext, 'pendingInputs'>> {
  readonly status: TaskStatus;
  readonly pendingInputs: readonly string[];
  /** When a terminal task will be removed, epoch ms; `null` while running or when kept forever. */
  readonly expiresAt: number | null;
}

/** What a handler can do while it runs. */
export interface TaskHandlerContext {
  readonly taskId: string;
  readonly owner: TaskOwner;
  /** The wire dialect the task was created in (a handler may shape its outcome by it). */
  readonly dialect: string;
  /** Aborted when the task is cancelled (or otherwise ends) before the handler returns. */
  readonly signal: AbortSignal;
  /** Sets the task's human-readable status message (e.g. "step 3/10"). */
  setStatusMessage(message: string): void;
  /**
   * Asks the requester for something (an `elicitation/create`, a `sampling/createMessage`): the
   * task is `input_required` until every such request is answered (SEP-1686 §4.4). Resolves with
   * the requester's answer; rejects when the request failed or the task ended meanwhile. Waiting
   * costs memory only: delivery is up to whoever serves the requester (see `onInputRequest`).
   */
  requestInput(method: string, params: unknown): Promise<unknown>;
}

/** An input request a running task is waiting on. */
export interface InputRequest {
  readonly taskId: string;
  readonly owner: TaskOwner;
  readonly dialect: string;
  /** Unique within its task. */
  readonly inputId: string;
  readonly method: string;
  readonly params: unknown;
}

/** How a requester answered an input request. */
export type InputAnswer = { readonly result: unknown } | { readonly error: Error };

/**
 * The work behind a task: takes the original request's params and returns the original request's
 * result. A thrown error ends the task `failed` with the error's message.
 *
 * @example
 * ```ts
 * const sleep: TaskHandler = async (params, ctx) => {
 *   await setTimeout(1000, undefined, { signal: ctx.signal });
 *   return { content: [{ type: 'text', text: 'slept' }] };
 * };
 * ```
 */
export type TaskHandler = (params: unknown, ctx: TaskHandlerContext) => Promise<unknown>;

/** What `create` needs. */
export interface CreateTaskOptions {
  /** Requester-chosen (SEP-1686) or receiver-made id; unique per owner. */
  readonly taskId: string;
  readonly owner: TaskOwner;
  readonly dialect: string;
  readonly method: string;
  /** Short label of the work (tool name, prompt name, resource uri). */
  readonly label?: string | null;
  /**
   * Requested keepAlive in ms; `undefined` takes the default; `null` asks for as long as allowed.
   * Capped by the receiver maximum.
   */
  readonly keepAlive?: number | null | undefined;
  /** Suggested polling interval for this task; defaults to the runtime's. */
  readonly pollFrequency?: number | undefined;
  /**
   * Name of a handler registered with `registerHandler`. Without one the task is driven from
   * outside through `update` (as the SDK's own task handlers do through a `TaskStore`).
   */
  readonly handler?: string;
  /** Params given to the handler, usually the original request's params. */
  readonly params?: unknown;
}

/** A change applied from outside to a task without a handler (see `TaskRuntime.update`). */
export type TaskUpdate =
  | { readonly status: 'working' | 'input_required'; readonly statusMessage?: string | undefined }
  | { readonly status: 'completed'; readonly result: unknown }
  | { readonly status: 'failed'; readonly error: string; readonly result?: unknown }
  | { readonly status: 'cancelled'; readonly statusMessage?: string | undefined }
  | { readonly status?: undefined; readonly statusMessage: string };

/** A terminal task with what it produced. */
export interface TaskOutcome {
  readonly task: TaskView;
  /** The result; present for completed tasks and for failed ones whose handler kept a result. */
  readonly result: unknown;
  readonly hasResult: boolean;
  /** For failed tasks, the `detail` of the handler's `TaskFailure`, if any. */
  readonly failure: unknown;
}

/** One page of `list`. */
export interface TaskPage {
  readonly tasks: TaskView[];
  /** Present when more tasks follow; pass it back to get the next page. */
  readonly nextCursor?: string;
}

/** Options of anything that waits. */
export interface WaitOptions {
  /** Give up after this many ms with `TaskTimeoutError`. */
  readonly timeout?: number;
  /** Give up when this signal aborts (rejects with its reason). */
  readonly signal?: AbortSignal;
}

/** A status change, as delivered to `subscribe` listeners. */
export interface TaskChange {
  readonly task: TaskView;
  /** The status before this change; `null` when the task was just created. */
  readonly previous: TaskStatus | null;
}
