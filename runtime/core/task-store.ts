/**
 * The port between the task core and a backend: what a backend stores and carries, and nothing of
 * the lifecycle. The core ({@link createCoreRuntime}) owns every rule (ids, limits, retention,
 * which change a task in which state takes, outcomes and waits); a store keeps task states,
 * results and listings, moves a stored task by one lifecycle event, and runs the work (here, on
 * the memory backend; through a work queue on a worker, on NATS).
 *
 * @module
 */
import type { TaskContext, TaskEvent, TaskInput, TaskStatus } from '../../machines/index.js';
import type { HandlerOptions, InputAnswer, InputRequest, TaskChange, TaskHandler, TaskView } from '../task-runtime.types.js';
import type { TaskObserver } from '../observer.types.js';
import type { RunExtras } from './task-run.types.js';
import type { TraceCarrier } from '../telemetry/tracing.js';
import type { SecurityReport } from '../audit/index.js';

/** What the core reads of a stored task: the memory backend's entry and the NATS record both are one. */
export interface TaskState {
  readonly status: TaskStatus;
  readonly context: TaskContext;
  /** When a terminal task is removed (epoch ms); `null` while live or kept forever. */
  readonly expiresAt: number | null;
  readonly hasResult: boolean;
  /** The `detail` of a handler's `TaskFailure`, or `null`/`undefined`. */
  readonly failure: unknown;
}

/** A task to store: its machine input, and the work to run (`null`: driven from outside). */
export interface NewTask {
  readonly key: string;
  readonly ownerKey: string;
  readonly input: TaskInput;
  readonly work: {
    readonly name: string;
    readonly handler: TaskHandler;
    readonly options: HandlerOptions;
    readonly params: unknown;
    /** What its run gets from the runtime (subtasks, bounds of partial results). */
    readonly runOptions?: RunExtras;
    /** The creating request's trace context, kept with the task so its run joins that trace. */
    readonly trace?: TraceCarrier;
    /** What its requester can be asked (see `CreateTaskOptions.requesterCapabilities`); absent: not known. */
    readonly requesterCapabilities?: readonly string[];
  } | null;
}

/** A watch from {@link TaskStore.watch}. */
export interface TaskWatch<S extends TaskState> {
  /** The watcher read the task in this state: changes after it are what it waits for. */
  seen(state: S): void;
  stop(): void;
}

/** A stored task after a move, and whether this call moved it. */
export interface Moved<S extends TaskState> {
  readonly state: S;
  readonly changed: boolean;
}

/**
 * A backend, as the core sees it.
 *
 * @example
 * ```ts
 * const runtime = createCoreRuntime(opts, new MemoryStore(opts), { limiter, audit });
 * ```
 */
export interface TaskStore<S extends TaskState = TaskState> {
  /** Names a task: tasks are scoped to their owner, so two owners may use the same id. */
  keyOf(ownerKey: string, taskId: string): string;
  /**
   * The stored task, `'expired'` when it was removed at the end of its retention, or `null`.
   * `watched`: the caller watches the task (placed before this read) and will see every later
   * change, so a store may answer with what its own writes and its watch say, without a round
   * trip (NATS: a task this node created a moment ago); never for a plain `get`.
   */
  read(key: string, o?: { readonly watched?: boolean }): S | 'expired' | null | Promise<S | 'expired' | null>;
  /**
   * Stores a new task and starts its work; throws `DuplicateTaskIdError` when the key is taken.
   * Returns the task's view as it was created, taken before its work can move it.
   */
  create(task: NewTask): TaskView | Promise<TaskView>;
  /** Moves a stored task by one event; `null` when it is gone. `withResult`: its result was kept first. */
  apply(key: string, event: TaskEvent, options?: { readonly withResult?: boolean }): Moved<S> | null | Promise<Moved<S> | null>;
  /** Keeps a result given from outside (`update`), before the event that makes it readable. */
  putResult(key: string, value: unknown): void | Promise<void>;
  /** A stored task's result (asked only when `state.hasResult`), `null` when none is kept. */
  result(key: string, state: S): { readonly value: unknown } | null | Promise<{ readonly value: unknown } | null>;
  /** One page of an owner's tasks, oldest first, after the position `after` (0: from the start). */
  page(ownerKey: string, after: number, limit: number): Promise<{ readonly states: readonly S[]; readonly more: boolean; readonly last: number }>;
  /** The largest position a cursor may name now. */
  readonly maxPosition: number;
  /** Removes a task (its result and listing entry too). */
  remove(key: string, state: S): Promise<void>;
  /** Whether the task's work waits for an answer to `inputId`, and if so gives it; returns the task after. */
  answer(key: string, inputId: string, answer: InputAnswer): Moved<S> | null | Promise<Moved<S> | null>;
  /** The input requests the task still waits on, oldest first. */
  pending(key: string, state: S): InputRequest[] | Promise<InputRequest[]>;
  /**
   * Calls `wake` when the task ends or is removed, until stopped: `ended` is its terminal view
   * (kept for a waiter that then finds it deleted), and `state` the terminal state itself when the
   * change carried it whole (NATS: the record as written, so the waiter need not read it). The
   * watcher tells `seen` each state it read, so a store that delivers changes by sequence starts
   * after it without a read of its own.
   */
  watch(key: string, wake: (ended: TaskView | null, state?: S) => void): TaskWatch<S>;
  /**
   * Whether a watch delivers changes by sequence from the state its watcher says it read
   * (`seen`), holding back what arrives before: then a waiter watches before its first read and
   * needs no second one (NATS). Otherwise it reads again once watching (memory).
   */
  readonly watchesBySequence: boolean;
  /** How often a waiter reads the task again in case a change was not seen (NATS), or `null`. */
  readonly rereadMs: number | null;
  /**
   * Whether a failure of this store passes by itself (NATS: a timeout, a lost connection, no
   * JetStream leader yet): a positive list, each backend its own. The core rides such a failure
   * out in a server's own wait and answers a requester's call with `StoreUnavailableError`;
   * anything else (a plain `Error` is a fault of the program) surfaces at once. A store in the
   * process (memory) declares none.
   */
  isTransient(error: unknown): boolean;
  subscribe(listener: (change: TaskChange) => void, key?: string): () => void;
  onInputRequest(listener: (request: InputRequest) => void, key?: string): () => void;
  stats(): { live: number; retained: number };
  /**
   * What is kept now, for the retention limits: how many tasks `ownerKey` has stored (running or
   * ended, until removed), and how many bytes of results and messages the backend holds (memory:
   * this process's ended tasks; NATS: the task space's buckets), and `ownerBytes`: how many bytes
   * `ownerKey`'s ended tasks keep (see `kept-bytes.ts`; on NATS, across the cluster). May be a
   * reading up to a second old. Only what `what` asks for is read (`ownerBytes` costs no read).
   */
  kept(ownerKey: string, what: { readonly tasks: boolean; readonly bytes: boolean }): KeptNow | Promise<KeptNow>;
  security(): SecurityReport;
  observe(): TaskObserver;
  /**
   * The node drains: it takes no more work from elsewhere (NATS: its worker stops pulling queued
   * runs; memory: nothing comes from elsewhere). Its runs go on. Resolves once what it was taking
   * when told has settled (NATS: a take under way started its run or gave it back). Idempotent.
   */
  stopTaking(): void | Promise<void>;
  /**
   * A drain's time is up: what still runs on this node is handed to another by the lost-run rule
   * (NATS), or, with no other node (memory), ends `failed` saying the server shut down
   * (`shutDownMessage`), parents before their subtasks. Resolves once each is settled.
   */
  endRuns(): Promise<void>;
  /** True when `endRuns` hands runs to other nodes (NATS), false when it ends them (memory): what a call cut short by a drain is told. */
  readonly handsOver: boolean;
  /** Why the backend cannot take work now, one line each (empty: it can). */
  unready(): readonly string[] | Promise<readonly string[]>;
  dispose(): Promise<void>;
}

/** What {@link TaskStore.kept} reads. */
export interface KeptNow {
  readonly tasks: number;
  readonly bytes: number;
  readonly ownerBytes: number;
}
