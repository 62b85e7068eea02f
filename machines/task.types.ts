/**
 * Types of the task lifecycle machine: statuses, context, input and handler output.
 *
 * @module
 */

/**
 * Every status of SEP-1686 §6 ("Task Status"), as a const object so it can be iterated.
 *
 * @example
 * ```ts
 * import { TaskStatus } from 'mcp-task-actors/machines';
 * const done = status === TaskStatus.completed;
 * ```
 */
export const TaskStatus = {
  submitted: 'submitted',
  working: 'working',
  input_required: 'input_required',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
  unknown: 'unknown',
} as const;
/** One of the seven task statuses. */
export type TaskStatus = (typeof TaskStatus)[keyof typeof TaskStatus];

/**
 * The statuses a task never leaves (SEP-1686 §4.3.2.4).
 *
 * @example
 * ```ts
 * if (TERMINAL_STATUSES.includes(view.status)) console.log('done');
 * ```
 */
export const TERMINAL_STATUSES: readonly TaskStatus[] = ['completed', 'failed', 'cancelled', 'unknown'];

/**
 * True when `status` is terminal.
 *
 * @param status - a task status
 * @example
 * ```ts
 * isTerminalStatus('working'); // false
 * ```
 */
export function isTerminalStatus(status: TaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled' || status === 'unknown';
}

/**
 * Who created a task: the transport session and, when the transport authenticates, the principal.
 * Both are `null` when unknown (stdio has a single session per process).
 */
export interface TaskOwner {
  readonly session: string | null;
  readonly principal: string | null;
  /**
   * The network address of the requester, when neither session nor principal tells requesters
   * apart (anonymous 2026-07-28 callers over HTTP): what its limits and suspicion are counted
   * against. Not part of whose the task is: a task is found by session and principal alone, and
   * the address is never stored with it.
   */
  readonly peer?: string;
}

/** What the runtime gives the machine when a task is created. */
export interface TaskInput {
  readonly taskId: string;
  readonly owner: TaskOwner;
  /** Wire dialect the task was created in, e.g. `sep-1686`; it is rendered in it ever after. */
  readonly dialect: string;
  /** Originating request method, e.g. `tools/call`. */
  readonly method: string;
  /** Short label of what runs, e.g. the tool name; shown in listings and the inspector. */
  readonly label: string | null;
  /**
   * Retention after reaching a terminal state, in ms; `null` means unlimited. Also used for the
   * 2025-11-25 `ttl`, which the spec counts from creation: keeping a task longer is allowed
   * ("MAY delete"), and counting from the end means a running task is never evicted and a poller
   * that sees `completed` always finds the result.
   */
  readonly keepAlive: number | null;
  /**
   * The configured polling interval, in ms: what the task suggests once it is older than this, or
   * terminal. A younger task suggests less (the runtime's poll pacing adapts it to the age).
   */
  readonly pollFrequency: number;
  /** Creation time, epoch ms (supplied from outside so the machine stays pure). */
  readonly createdAt: number;
  /** The task whose work started this one (a subtask, same owner); absent for a top-level task. */
  readonly parentId?: string | null;
  /** 0 for a top-level task, its parent's depth + 1 for a subtask. Absent means 0. */
  readonly depth?: number;
}

/**
 * A subtask as its parent last saw it.
 *
 * @example
 * ```ts
 * const running = (context.children ?? []).filter((c) => !isTerminalStatus(c.status));
 * ```
 */
export interface ChildTask {
  readonly taskId: string;
  readonly status: TaskStatus;
}

/**
 * One piece of output a task's work published before it ended (an intermediate result).
 *
 * @example
 * ```ts
 * for (const p of context.partials ?? []) console.log(p.seq, p.content);
 * ```
 */
export interface PartialResult {
  /** 1 for the task's first partial result, counting on. */
  readonly seq: number;
  /** When it was published, epoch ms. */
  readonly at: number;
  /** What the work published (JSON: usually MCP content blocks). */
  readonly content: unknown;
}

/**
 * How far a task's work says it is (MCP's `notifications/progress` fields): `progress` only ever
 * increases (a report that does not is refused); `total` when the work knows it.
 *
 * @example
 * ```ts
 * const p = context.progress; // { progress: 4, total: 10, message: 'step 4/10' }
 * ```
 */
export interface TaskProgress {
  /** How much is done, in any unit: more than the last report's. */
  readonly progress: number;
  /** How much there is to do, when the work knows it. */
  readonly total?: number;
  /** What is happening now, for people. */
  readonly message?: string;
}

/**
 * Where the task's handler machine is, for a handler written as an XState machine
 * (`machineHandler`): reported by the run at every state the machine enters, so any node's
 * inspector draws the machine with its current states, after a lost worker too.
 *
 * @example
 * ```ts
 * const at: HandlerPosition = { machine: 'long_job', graph: 'x1y2…', states: ['long_job.working'], status: 'active', step: 3, checkpoint: true };
 * ```
 */
export interface HandlerPosition {
  /** The machine's id (`long_job`). */
  readonly machine: string;
  /** The key its graph (boxes and arrows) is shared under: `observer.machine(graph)` reads it on any node. */
  readonly graph: string;
  /** Active state ids, parents included (`long_job.working`): the boxes to highlight. */
  readonly states: readonly string[];
  /** XState's snapshot status. */
  readonly status: 'active' | 'done' | 'error' | 'stopped';
  /** The step: 1 for the first state, one more for each event the machine took (see `stepKey`). */
  readonly step: number;
  /** Whether this state is a checkpoint (kept with the task, where a resumed run starts). */
  readonly checkpoint: boolean;
}

/** The machine's context: the input plus what changes as the task moves. JSON-safe by design. */
export interface TaskContext extends TaskInput {
  updatedAt: number;
  statusMessage: string | null;
  error: string | null;
  /** Ids of input requests (elicitation, sampling) sent for this task and not yet answered. */
  pendingInputs: string[];
  /** Key of the stored result, set when the task completed; the result itself lives outside. */
  resultRef: string | null;
  /** The subtasks its work started, in the order started; absent until the first. */
  children?: ChildTask[];
  /** What its work published so far (intermediate results), oldest first; absent until the first. */
  partials?: PartialResult[];
  /** The work's last progress report; absent until the first. */
  progress?: TaskProgress;
  /** Where its handler machine is (machine handlers only); absent until its first state. */
  handler?: HandlerPosition;
}

