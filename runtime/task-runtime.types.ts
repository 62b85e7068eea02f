/**
 * Public types of the task runtime: task views, handlers, create/list/wait options.
 *
 * @module
 */
import type { HandlerPosition, TaskContext, TaskOwner, TaskStatus } from '../machines/index.js';
import type { MachineGraph } from './handlers/machine-graph.types.js';
import type { ResolvedTaskRuntimeOptions } from './options.js';
import type { SecurityReport } from './audit/audit.types.js';
import type { TaskObserver } from './observer.types.js';
import type { PushRequest } from './push/push-request.js';
import type { DeliveryAttempt } from './push/push.types.js';
import type { CloseOptions, Readiness } from './drain.types.js';
import type { TraceCarrier } from './telemetry/tracing.js';

/** A task as the runtime reports it: the machine's context plus its status and expiry. */
export interface TaskView extends Readonly<Omit<TaskContext, 'pendingInputs'>> {
  /**
   * The configured polling interval, ms (the create's `pollFrequency`, else the runtime's): the
   * most the task ever suggests. It is not what a requester is told: that is
   * `suggestedPollInterval(view, now)`, which every dialect renders at the time of the read
   * (shorter while the task is young, this once it is older than this or terminal).
   */
  readonly pollFrequency: number;
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
   * Reports how far the work is (MCP progress): kept with the task (`view.progress`), sent as
   * `notifications/progress` to a requester whose request carried a `progressToken` (SEP-1686 and
   * 2025-11-25, for the task's whole life), shown in the status message on the 2026-07-28 wire,
   * in the inspector and by `mcp-tasks call`. A `message` is also the task's status message.
   *
   * MCP wants progress to increase with each notification, so a report whose `progress` is not
   * more than the task's last one (this run's, or an earlier run's before a resume) is dropped:
   * it returns `false`, as it does once the task has ended. Nothing is throttled: each report is
   * one change of the task (on NATS, one record write).
   *
   * @param progress - how much is done (any unit; only ever increasing)
   * @param total - how much there is to do, when known
   * @param message - what is happening now, for people
   * @returns whether the report was kept
   * @throws InvalidArgumentError when `progress` or `total` is not a finite number, or `message` not a string
   * @example
   * ```ts
   * for (let i = 1; i <= 10; i++) {
   *   await step(i);
   *   ctx.progress(i, 10, `step ${i}/10`);
   * }
   * ```
   */
  progress(progress: number, total?: number, message?: string): boolean;
  /**
   * Tells where the work's own state machine is, for operators: `machineHandler` calls this at
   * every state its machine enters; other handlers need not. The graph is shared once (under a
   * hash of its content, readable on any node with `observer.machine(key)`), and the task keeps
   * the position (`ObservedTask.handler`, a `task.handler` timeline entry). Requesters never see
   * it. A report after the task ended is dropped. A graph whose JSON is over 256 KiB is not
   * shared (the position still moves; observers show it without the picture).
   *
   * @param graph - the machine's graph (`machineGraph(machine)`; the same object each time is cheapest)
   * @param state - the states it is in (ids, parents included: at most 256, each of at most 1,024
   *   characters), its status, its step (a non-negative integer), and whether this state is a kept checkpoint
   * @throws InvalidArgumentError naming the field when the graph or the state is malformed or over a bound
   *   (a graph's id and node ids are at most 1,024 characters too)
   * @example
   * ```ts
   * ctx.handlerState?.(graph, { states: ['job.working'], status: 'active', step: 2, checkpoint: true });
   * ```
   */
  handlerState?(graph: MachineGraph, state: Omit<HandlerPosition, 'machine' | 'graph'>): void;
  /**
   * Asks the requester for something (an `elicitation/create`, a `sampling/createMessage`): the
   * task is `input_required` until every such request is answered (SEP-1686 §4.4). Resolves with
   * the requester's answer; rejects when the request failed or the task ended meanwhile. Waiting
   * costs memory only: delivery is up to whoever serves the requester (see `onInputRequest`).
   */
  requestInput(method: string, params: unknown): Promise<unknown>;
  /** Which run of the task this is: 1 for the first, more after a lost worker (`retry`). */
  readonly attempt: number;
  /**
   * The last checkpoint an earlier run of this task kept (see {@link TaskHandlerContext.checkpoint}),
   * when this run resumes the task after its worker was lost (`retry: 'resume'`); else `null`.
   */
  readonly resumeFrom: TaskCheckpoint | null;
  /**
   * Keeps `state` (JSON) with the task, so that a run resuming the task after its worker was lost
   * starts from it (`ctx.resumeFrom`). On NATS it is written into the task's record (one
   * compare-and-swap: a run that lost the task writes nothing); in memory nothing is kept, since
   * no other node can resume the task. Effects between two checkpoints may run again after a
   * resume (at-least-once per step): key them with {@link TaskHandlerContext.stepKey}.
   *
   * @returns whether it was kept (false once the task ended or is no longer this run's)
   */
  checkpoint(state: unknown, label?: string): Promise<boolean>;
  /**
   * Whether checkpoints are kept anywhere (NATS) or not (memory: no other node could resume the
   * task), so that work can skip building them when they would go nowhere.
   */
  readonly durable: boolean;
  /**
   * An idempotency key for an effect made now: this task's own prefix (owner, id and creation
   * time, hashed) and the number of the last checkpoint (`:0` before the first), or `step` when
   * given (a `machineHandler` numbers its steps itself). A run that resumes from checkpoint N
   * repeats what came after it under the same key, so a receiver that remembers keys does it once.
   */
  stepKey(step?: number): string;
  /**
   * Starts a subtask: a task of the same requester running handler `handler` with `params` (on
   * any worker, on NATS), listed and readable like any other, naming this task as its parent.
   * This task records it (its children and their statuses), surfaces its input requests as its
   * own (answerable through either task), and cancels it when it ends first. Counted against the
   * requester's limits like any task; refused past the runtime's `maxTaskDepth`.
   *
   * @example
   * ```ts
   * const kids = await Promise.all([1, 2, 3].map((n) => ctx.spawnTask('tools/call:sleep', { ms: n * 100 })));
   * const outcomes = await ctx.waitForSubtasks(kids, 'all');
   * ```
   */
  spawnTask(handler: string, params: unknown, options?: SpawnOptions): Promise<Subtask>;
  /**
   * Waits for subtasks: `'all'` (every one ended; the outcomes in order), `'any'` (the first to
   * end; that one outcome), `'first-error'` (every one completed, or rejects with a
   * `SubtaskFailedError` at the first that ended otherwise). Holds no worker slot meanwhile.
   */
  waitForSubtasks(subtasks: readonly Subtask[], mode?: 'all' | 'any' | 'first-error'): Promise<TaskOutcome[]>;
  /**
   * Publishes an intermediate result (JSON, usually MCP content blocks): kept with the task until
   * it expires, read by the requester with a cursor, pushed where the wire can. Resolves `false`
   * when it was not kept: over the runtime's `maxPartials` / `maxPartialBytes`, or the task ended.
   */
  partial(content: unknown): Promise<boolean>;
}

/**
 * How a subtask is started (see {@link TaskHandlerContext.spawnTask}).
 *
 * @example
 * ```ts
 * await ctx.spawnTask('tools/call:sleep', { ms: 10 }, { label: 'sleep', keepAlive: 60_000 });
 * ```
 */
export interface SpawnOptions {
  /** The request method it stands for. @default 'tools/call' */
  readonly method?: string;
  /** Its label (tool name). @default the handler name after its method */
  readonly label?: string | null;
  /** Its retention once ended, ms. @default the parent's */
  readonly keepAlive?: number | null;
}

/**
 * A subtask its parent started.
 *
 * @example
 * ```ts
 * const child = await ctx.spawnTask('tools/call:sleep', { ms: 10 });
 * const { task, result } = await child.outcome();
 * ```
 */
export interface Subtask {
  readonly taskId: string;
  /** Resolves with what the subtask produced once it ended (whatever its status). */
  outcome(): Promise<TaskOutcome>;
  /** Cancels it (and its own subtasks); nothing happens when it already ended. */
  cancel(reason?: string): Promise<void>;
}

/**
 * What a task's handler kept to resume from (see {@link TaskHandlerContext.checkpoint}).
 *
 * @example
 * ```ts
 * const step = (ctx.resumeFrom?.state as { step: number } | undefined)?.step ?? 0;
 * ```
 */
export interface TaskCheckpoint {
  /** 1 for the task's first checkpoint, counting on across runs. */
  readonly seq: number;
  /** What the handler kept (JSON). */
  readonly state: unknown;
  /** A name for operators (a machine handler's state), or `null`. */
  readonly label: string | null;
  /** When it was kept, epoch ms. */
  readonly at: number;
  /** The node whose run kept it, or `null` in memory. */
  readonly node: string | null;
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

/**
 * How a handler may be treated when the node running it dies (NATS backend; the memory backend
 * has no other node and ignores it).
 *
 * @example
 * ```ts
 * runtime.registerHandler('tools/call:sleep', sleep, { retry: 'restart', maxAttempts: 3 });
 * ```
 */
export interface HandlerOptions {
  /**
   * `'restart'`: the handler is safe to run again from the start (idempotent), so a task whose
   * worker was lost is re-run on another node. `'never'`: such a task ends `unknown` (SEP-1686) /
   * `failed` (2025-11-25) with an error saying the worker was lost. `'resume'`: the task runs
   * again on another node from the last checkpoint its handler kept (`ctx.checkpoint`, which
   * `machineHandler` keeps at every state it enters), or from the start when it kept none; a task
   * waiting for input stays `input_required` meanwhile, its requests still answerable.
   * @default 'never'
   */
  readonly retry?: 'never' | 'restart' | 'resume';
  /** Runs at most this many times in all (first run included). @default the runtime's `maxAttempts` (3) */
  readonly maxAttempts?: number;
}

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
  /** The configured polling interval of this task (see `TaskRuntimeOptions.pollFrequency`); defaults to the runtime's. */
  readonly pollFrequency?: number | undefined;
  /**
   * Name of a handler registered with `registerHandler`. Without one the task is driven from
   * outside through `update` (as the SDK's own task handlers do through a `TaskStore`).
   */
  readonly handler?: string;
  /** Params given to the handler, usually the original request's params. */
  readonly params?: unknown;
  /**
   * The task (same owner, still running) whose work starts this one as its subtask: it is
   * recorded as the parent's child and cancelled with it. Refused past `maxTaskDepth`.
   */
  readonly parentId?: string;
  /**
   * A webhook for this task (or, `scope: 'requester'`, for it and every later task of its
   * requester): signed events on `input_required` and every end, or every change. Refused unless
   * the runtime's `push.allow` lists the URL.
   */
  readonly push?: PushRequest;
  /**
   * The trace context the task's run joins (W3C `traceparent`/`tracestate`, as SEP-414 carries
   * them in `_meta`). Defaults to the active OpenTelemetry context when the task is created; kept
   * with the task, so a run on another node joins the same trace.
   */
  readonly traceContext?: TraceCarrier;
  /**
   * The client capabilities its requester declared, among those input requests need
   * (`elicitation`, `sampling`, `roots`; `declaredInputCapabilities(clientCapabilities)` makes the
   * list): on 2026-07-28 those of the creating request, elsewhere those of `initialize`. The work's
   * request for input that needs one not listed fails at once with `InputUnsupportedError`: the
   * task never shows `input_required` for it and nothing is sent. Kept with the task, so a run on
   * any worker (a resumed one too) decides the same; a subtask inherits its parent's.
   * @default not known: every input request is sent (a task started in process)
   */
  readonly requesterCapabilities?: readonly string[];
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

/**
 * Options of a read (`get`, `outcome`).
 *
 * @example
 * ```ts
 * // A push the server sends on its own, not a requester's poll: never charged nor refused.
 * await runtime.get(taskId, owner, { countsAsPoll: false });
 * ```
 */
export interface ReadOptions {
  /**
   * Whether the read is the requester's poll: charged against its `pollsPerSecond` (and refused
   * over it) unless it kept to the interval the task suggested at its previous poll, and counted
   * by the audit's poll-interval check. Reads the server makes on its own behalf (a status push
   * on a subscription stream) pass `false`.
   * @default true
   */
  readonly countsAsPoll?: boolean;
}

/** Options of anything that waits. */
export interface WaitOptions {
  /** Give up after this many ms with `TaskTimeoutError`. */
  readonly timeout?: number;
  /** Give up when this signal aborts (rejects with its reason). */
  readonly signal?: AbortSignal;
  /**
   * Whether the wait counts against the requester's `pollsPerSecond` (a `tasks/result` does, as a
   * poll: free when it kept to the suggested interval). The server's own wait for the reply to
   * the request that created the task does not.
   * @default true
   */
  readonly countsAsPoll?: boolean;
}

/** Names one task of one requester, to listen to it alone. */
export interface TaskSelector {
  readonly taskId: string;
  readonly owner: TaskOwner;
}

/** A status change, as delivered to `subscribe` listeners. */
export interface TaskChange {
  readonly task: TaskView;
  /** The status before this change; `null` when the task was just created. */
  readonly previous: TaskStatus | null;
}

/**
 * One runtime, whatever the backend. Every read and write names the requester (`owner`): tasks are
 * scoped to the owner that created them, and another owner gets "not found".
 */
export interface TaskRuntime {
  /** The options in force, defaults applied. */
  readonly options: ResolvedTaskRuntimeOptions;
  /**
   * Registers the work that `create({ handler: name })` runs. Replaces a handler of the same name.
   * `options.retry` says what a distributed backend may do when the node running it is lost.
   */
  registerHandler(name: string, handler: TaskHandler, options?: HandlerOptions): void;
  /** Creates a task and starts its work; resolves once the task exists and can be polled. */
  create(options: CreateTaskOptions): Promise<TaskView>;
  /** The task's current state. @throws TaskNotFoundError, TaskExpiredError */
  get(taskId: string, owner: TaskOwner, options?: ReadOptions): Promise<TaskView>;
  /** One page of the owner's tasks, oldest first. @throws InvalidCursorError */
  list(owner: TaskOwner, options?: { cursor?: string | undefined; limit?: number }): Promise<TaskPage>;
  /** The result of a completed task. @throws TaskNotCompletedError when it is not `completed` */
  result(taskId: string, owner: TaskOwner, options?: ReadOptions): Promise<{ task: TaskView; result: unknown }>;
  /** What a terminal task produced (result, or none). @throws TaskNotCompletedError while it runs */
  outcome(taskId: string, owner: TaskOwner, options?: ReadOptions): Promise<TaskOutcome>;
  /**
   * One look at a task, no wait: what it produced when it has ended, else the task as it runs
   * (a requester's poll unless `countsAsPoll: false`; the server's own read also finds an ended
   * task past its keepAlive while it is stored, as the original request's answer does).
   * @example
   * ```ts
   * const now = await runtime.peek(taskId, owner);
   * if ('ended' in now) console.log(now.ended.result); else console.log(now.running.status);
   * ```
   */
  peek(taskId: string, owner: TaskOwner, options?: ReadOptions): Promise<{ readonly ended: TaskOutcome } | { readonly running: TaskView }>;
  /**
   * Moves a task that has no handler (driven from outside, e.g. through the SDK `TaskStore`).
   * @throws TaskTerminalError when the task already ended; InvalidArgumentError for a move the lifecycle forbids
   */
  update(taskId: string, owner: TaskOwner, change: TaskUpdate): Promise<TaskView>;
  /**
   * Resolves with what the task produced once it is terminal, read at the moment it ended (so a
   * delete right after cannot take it away). @throws TaskTimeoutError
   */
  waitForOutcome(taskId: string, owner: TaskOwner, options?: WaitOptions): Promise<TaskOutcome>;
  /** Resolves when the task is terminal. @throws TaskTimeoutError */
  waitForTerminal(taskId: string, owner: TaskOwner, options?: WaitOptions): Promise<TaskView>;
  /** Cancels a running task. @throws TaskTerminalError when it already ended */
  cancel(taskId: string, owner: TaskOwner, reason?: string | null): Promise<TaskView>;
  /** Deletes a task and its result; a running task is cancelled first. */
  delete(taskId: string, owner: TaskOwner): Promise<void>;
  /** The input requests a task is waiting on, oldest first. */
  pendingInputRequests(taskId: string, owner: TaskOwner): Promise<InputRequest[]>;
  /** Calls `listener` for every new input request (of one task, with `only`). Returns the unsubscribe. */
  onInputRequest(listener: (request: InputRequest) => void, only?: TaskSelector): () => void;
  /**
   * Delivers the requester's answer to a pending input request; when it was the last one, the
   * task returns to `working`. @throws InvalidArgumentError when that request is not pending
   * (already answered, or discarded because the task ended)
   */
  answerInput(taskId: string, owner: TaskOwner, inputId: string, answer: InputAnswer): Promise<TaskView>;
  /**
   * Calls `listener` on every status or status-message change, every new intermediate result,
   * and every input request asked or answered (of one task, with `only`).
   * Returns the unsubscribe.
   */
  subscribe(listener: (change: TaskChange) => void, only?: TaskSelector): () => void;
  /**
   * How many tasks are held: `live` run as actors, `retained` are terminal records awaiting
   * expiry. On NATS, `live` counts this worker's runs and `retained` the cluster's ended tasks
   * this node has seen end (on the event feed) since it started and not seen removed.
   */
  stats(): { live: number; retained: number };
  /**
   * This node's counters of suspicious requesters (failed look-ups, polls faster than suggested,
   * limit refusals) and the worst offenders; all zero with `enabled: false` without `audit`.
   */
  security(): SecurityReport;
  /**
   * The operator's view: every task of every owner (on NATS, of the whole cluster), each task's
   * timeline, and live updates. Not scoped, limited nor audited: for an operator's tool (the
   * inspector), never for a requester. Close it when done.
   * @throws RuntimeDisposedError after `dispose`
   */
  observe(): TaskObserver;
  /**
   * The operator's view of webhook deliveries (of one task id, or all): every attempt, its HTTP
   * status or error. Empty when push notifications are off. Not scoped: for an operator's tool.
   */
  pushDeliveries(taskId?: string): Promise<DeliveryAttempt[]>;
  /**
   * Whether this node can take new work: not while it drains, nor (NATS) while its connection is
   * down or the task space's streams are missing. For a readiness probe.
   */
  readiness(): Promise<Readiness>;
  /**
   * Closes gracefully: at once, new tasks are refused with `RuntimeDrainingError` (subtasks of
   * tasks already running are still started, so that running work can finish) while every other
   * call keeps answering; running tasks get `drainMs` to finish (a NATS worker stops taking
   * queued work at once); what still runs then is handed over or ended (see `CloseOptions`);
   * then the runtime is disposed. Resolves once it is.
   */
  close(options?: CloseOptions): Promise<void>;
  /** Stops every actor and timer at once (running work is aborted; on NATS, handed over). */
  dispose(): Promise<void>;
}
