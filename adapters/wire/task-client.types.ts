/**
 * Public types of the task client: its options, the per-call options and the handle of a task in
 * flight.
 *
 * @module
 */
import type { CallToolResult } from './mcp-shapes.js';
import type { RequesterDialect, RequesterInputRequest, RequesterTask } from '../../machines/index.js';
import type { RawDispatch } from './task-client.ext-peer.js';
import type { DialectChoice } from './task-call.types.js';

/**
 * Answers one input request of a 2026-07-28 task (an embedded `elicitation/create`,
 * `sampling/createMessage` or `roots/list`) with the result the standalone request would get.
 * It is asked once per request key; throwing ends the requester with code `input_failed`
 * (the task itself goes on). It also answers what a server asks before it decides on a task
 * (SEP-2322 `input_required` on `tools/call`; `context.taskId` is then `null`).
 *
 * @experimental the 2026-07-28 protocol is a draft.
 * @example
 * ```ts
 * const onInputRequest: InputRequestHandler = async ({ method, params }) =>
 *   method === 'elicitation/create' ? { action: 'accept', content: await ask(params) } : { action: 'decline' };
 * ```
 */
export type InputRequestHandler = (
  request: RequesterInputRequest,
  context: { readonly taskId: string | null; readonly key: string; readonly signal: AbortSignal },
) => Promise<Record<string, unknown>>;

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
   * The wire dialect to ask for tasks in: `'auto'` negotiates per call (see `DialectChoice`).
   * `beginCallTool` and `resume` (the handles before `callTool`) take `'auto'` as SEP-1686.
   * @default 'auto'
   */
  readonly dialect?: DialectChoice;
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
  /**
   * How many times a request refused with -32029 (a limit) or -32030 (the node is shutting down)
   * that names a `retryAfterMs` is sent again after that wait (0: never). Both are refused before
   * anything is decided, so a retry creates no second task; a refusal with no wait to take
   * (`maxConcurrentTasks`) or a wait over 30 s is the caller's at once.
   * @default 5
   */
  readonly pacedRetries?: number;
  /**
   * 2026-07-28 (required for that dialect): sends one raw JSON-RPC request, since SDK clients
   * refuse `resultType: "task"`; `createRawDispatch(url)` from `adapters/mcp-client-v2` is one.
   */
  readonly rawDispatch?: RawDispatch;
  /**
   * Answers what servers ask this client's calls (see {@link InputRequestHandler}): the input requests
   * of a 2026-07-28 `input_required` task, and in the session dialects the `elicitation/create` and
   * `sampling/createMessage` requests no call's own `onInputRequest` takes (when the SDK client had no
   * handler for them; it must declare the `elicitation` / `sampling` capability).
   */
  readonly onInputRequest?: InputRequestHandler;
  /**
   * 2026-07-28: the client info sent in each request's `_meta`.
   * @default { name: 'mcp-task-actors', version: '0.1.0' }
   */
  readonly clientInfo?: { readonly name: string; readonly version: string };
  /**
   * 2026-07-28: the capabilities declared on each request (the tasks extension is always added).
   * @default `{ elicitation: {}, sampling: {} }` with `onInputRequest`, else `{}`
   */
  readonly clientCapabilities?: Record<string, unknown>;
}

/** `TaskClientOptions` with every default applied. */
export interface ResolvedTaskClientOptions {
  readonly dialect: DialectChoice;
  readonly pollFrequency: number;
  readonly maxCancelPolls: number;
  readonly pacedRetries: number;
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
