/**
 * Public types of the operator's view of a runtime (`runtime.observe()`): every task of every
 * requester, each task's timeline, and live updates. The inspector page reads these; requesters
 * never do (a requester sees only its own tasks, through the scoped calls of `TaskRuntime`).
 *
 * @module
 */
import type { ChildTask, HandlerPosition, PartialResult, TaskProgress, TaskStatus } from '../machines/index.js';
import type { MachineGraph } from './handlers/machine-graph.types.js';

/**
 * What a timeline entry records: the lifecycle event that made the change, or the creation.
 * The names are the lifecycle machine's event types, the same on every backend (a handler's
 * outcome is `task.complete` / `task.fail` whether the machine saw it as its invoked actor's
 * done event, on the memory backend, or as the worker's write, on NATS).
 *
 * @example
 * ```ts
 * const ended = timeline.some((e) => e.event === TimelineEvent.cancel);
 * ```
 */
export const TimelineEvent = {
  created: 'task.created',
  start: 'task.start',
  inputRequest: 'task.input.request',
  inputResponse: 'task.input.response',
  message: 'task.message',
  complete: 'task.complete',
  fail: 'task.fail',
  cancel: 'task.cancel',
  /** The outcome was lost (a worker died, the machine crashed): the task ended `unknown`. */
  lose: 'task.lose',
  /** A subtask of the task started or moved (its parent's record of it). */
  child: 'task.child',
  /** The work published an intermediate result. */
  partial: 'task.partial',
  /** The work reported progress. */
  progress: 'task.progress',
  /** The task's handler machine entered a state (machine handlers only). */
  handler: 'task.handler',
} as const;
/** One timeline event name. */
export type TimelineEvent = (typeof TimelineEvent)[keyof typeof TimelineEvent];

/**
 * One task as an operator sees it, whoever owns it.
 *
 * @example
 * ```ts
 * const tasks = await observer.list();
 * for (const t of tasks) console.log(t.key, t.status, t.label, t.owner.session, t.node, t.parentId);
 * // A subtask has its parent's owner: the task id alone is unique only per owner.
 * const top = tasks.filter((t) => t.parentId === null);
 * ```
 */
export interface ObservedTask {
  /** Unique across owners (it names the owner and the task id); opaque and URL-safe: the page's id for the task. */
  readonly key: string;
  readonly taskId: string;
  readonly status: TaskStatus;
  /** The originating request method, e.g. `tools/call`. */
  readonly method: string;
  /** Tool, prompt or resource name, when the creator gave one. */
  readonly label: string | null;
  /** The wire dialect the task was created in. */
  readonly dialect: string;
  readonly owner: { readonly session: string | null; readonly principal: string | null };
  /**
   * NATS: the worker that runs (or last ran) the task, else the node that last wrote it. Memory:
   * the runtime's node name (`audit.node`, else `'local'`).
   */
  readonly node: string | null;
  /** Epoch ms. */
  readonly createdAt: number;
  /** Epoch ms of the last change. */
  readonly updatedAt: number;
  readonly statusMessage: string | null;
  /** The work's last progress report (`ctx.progress`), `null` before the first. */
  readonly progress: TaskProgress | null;
  /** Where its handler machine is (machine handlers), `null` for any other handler or before its first state. */
  readonly handler: HandlerPosition | null;
  readonly error: string | null;
  /** Ids of the input requests the task waits on. */
  readonly pendingInputs: readonly string[];
  /** When the (terminal) task will be removed, epoch ms; `null` while running or kept forever. */
  readonly expiresAt: number | null;
  /** A result is stored (completed tasks, and failed ones whose handler kept one). */
  readonly hasResult: boolean;
  /** NATS: runs of the task started so far (2 or more: resumed or re-run after a lost worker). */
  readonly attempt?: number;
  /** NATS: the last checkpoint its handler kept (see durable handlers), as last read. */
  readonly checkpoint?: { readonly seq: number; readonly label: string | null; readonly at: number } | null;
  /** The task whose work started this one (a subtask, same owner); `null` for a top-level task. */
  readonly parentId: string | null;
  /** 0 for a top-level task, its parent's depth + 1 for a subtask. */
  readonly depth: number;
  /** The subtasks its work started, in the order started, with their statuses as the task last saw them. */
  readonly children: readonly ChildTask[];
  /** The intermediate results its work published, oldest first (`content` is usually MCP content blocks). */
  readonly partials: readonly PartialResult[];
}

/**
 * One change in a task's life.
 *
 * @example
 * ```ts
 * for (const e of await observer.timeline(key)) console.log(new Date(e.at), e.previous, '→', e.status, e.event, e.node);
 * ```
 */
export interface TimelineEntry {
  /** Epoch ms: the task's `updatedAt` after the change. */
  readonly at: number;
  /** The status after the change. */
  readonly status: TaskStatus;
  /** The status before it; `null` for the creation. */
  readonly previous: TaskStatus | null;
  readonly event: TimelineEvent;
  /** The node that made the change (memory: the runtime's node name); `null` when not known. */
  readonly node: string | null;
  /** The status message after the change. */
  readonly message: string | null;
  /** The run that made the change (NATS: 2 or more after a lost worker); absent when not known. */
  readonly attempt?: number;
  /** Where the handler machine was after the change; present on `task.handler` entries. */
  readonly handler?: HandlerPosition;
}

/**
 * A live change seen by {@link TaskObserver.watch}: a task created or changed (`upsert`, with the
 * timeline entry it added when one is known: a change of fields alone, such as a result flag
 * arriving, has none), or a task gone (`removed`: deleted, or expired after its keepAlive).
 *
 * @example
 * ```ts
 * observer.watch((u) => (u.kind === 'removed' ? rows.delete(u.key) : rows.set(u.task.key, u.task)));
 * ```
 */
export type ObserverUpdate =
  | { readonly kind: 'upsert'; readonly task: ObservedTask; readonly entry: TimelineEntry | null }
  | { readonly kind: 'removed'; readonly key: string };

/**
 * What {@link TaskObserver.result} returns.
 *
 * @example
 * ```ts
 * const { hasResult, result, error } = await observer.result(key);
 * ```
 */
export interface ObservedResult {
  readonly hasResult: boolean;
  /** Present when `hasResult`. */
  readonly result?: unknown;
  /** The task's error (failed, unknown), else `null`; `undefined` for a task that does not exist. */
  readonly error?: string | null;
}

/**
 * The operator's view of a runtime: every task of every owner (on NATS, of the whole cluster),
 * their timelines, and live updates. Made by `runtime.observe()`. It bypasses the per-requester
 * scoping, limits and audit of the other calls: hand it to an operator's tool, never to a
 * requester.
 *
 * @example
 * ```ts
 * const observer = runtime.observe();
 * const tasks = await observer.list();
 * const stop = observer.watch((update) => render(update));
 * const history = await observer.timeline(tasks[0]!.key);
 * stop();
 * await observer.close();
 * ```
 */
export interface TaskObserver {
  /** Every live or retained task, oldest first. */
  list(): Promise<ObservedTask[]>;
  /**
   * A task's timeline, oldest first: its creation, then its changes (at most
   * {@link MAX_TIMELINE_ENTRIES} entries: past that, the oldest reports go first, progress,
   * messages and handler states, so the steps the task took stay). `[]` for an unknown key.
   */
  timeline(key: string): Promise<TimelineEntry[]>;
  /** What a task produced, read on demand (results may be large): for an opt-in results view. */
  result(key: string): Promise<ObservedResult>;
  /**
   * The graph of a handler machine, by the key a task's `handler.graph` names (on NATS, shared
   * by whichever node ran the handler); `null` when no node published it.
   */
  machine(graph: string): Promise<MachineGraph | null>;
  /**
   * Calls `listener` on every creation, status change, status-message change, input request or
   * answer, and removal, as they happen. What happened before the observer began is in `list()`
   * (on NATS, changes made while it loads the cluster's tasks are delivered once it has).
   * Returns the unsubscribe.
   */
  watch(listener: (update: ObserverUpdate) => void): () => void;
  /** Stops watching and frees what the observer holds; the runtime goes on. */
  close(): Promise<void>;
}

/**
 * Most entries a timeline holds (a task reporting progress in many status messages would
 * otherwise grow without bound): the creation, the steps the task took, and the latest reports.
 *
 * @example
 * ```ts
 * expect((await observer.timeline(key)).length).toBeLessThanOrEqual(MAX_TIMELINE_ENTRIES);
 * ```
 */
export const MAX_TIMELINE_ENTRIES = 50;
