/**
 * What a run of a task (`TaskRun`) is given: the port through which a backend keeps what
 * the work does, where its actor starts, and its options.
 *
 * @module
 */
import type { SnapshotFrom } from 'xstate';
import type { TaskContext, TaskEvent, TaskInput, TaskStatus, taskMachine } from '../../machines/index.js';
import type { InputRequest, TaskCheckpoint, TaskHandler } from '../task-runtime.types.js';
import type { TaskMetrics } from '../telemetry/metrics.js';
import type { TraceCarrier } from '../telemetry/tracing.js';
import type { HandlerReportPort } from './handler-reports.js';
import type { AskedBefore } from './input-ids.js';
import type { Settled } from './outcome.js';
import type { SubtaskPort } from './subtasks.js';

/** What a backend does for a run (and, as a {@link HandlerReportPort}, with its handler machine's graph). */
export interface RunPort extends HandlerReportPort {
  /**
   * A move the work makes itself (a status message). The memory backend sends it to the actor;
   * the NATS backend writes it to the record, whose event brings it to the actor.
   */
  move(event: TaskEvent): void;
  /**
   * Makes an input request of the work known: written with the task so that the requester can
   * see it. Resolves `false` when the task can no longer take it (ended, or not this run's).
   */
  requestInput(request: InputRequest): boolean | Promise<boolean>;
  /** Keeps the decided outcome with the task and moves it to its terminal status. */
  end(outcome: Settled, at: number): void | Promise<void>;
  /** Every snapshot of the actor, the first one included (the memory backend's record). */
  observe?(snapshot: SnapshotFrom<typeof taskMachine>): void;
  /** Told once, when the actor is terminal or the run was stopped. */
  ended?(): void;
  /**
   * Keeps a checkpoint of the work with the task, for a run that resumes it elsewhere. Resolves
   * `false` when the task can no longer take it. Without it, nothing is kept (one process).
   */
  checkpoint?(checkpoint: TaskCheckpoint): boolean | Promise<boolean>;
  /** The work waits for a person: it holds nothing it does not need meanwhile (a worker slot). */
  waiting?(): void;
  /** An answer arrived: resolves when the work may go on with it (a worker slot is free again). */
  resuming?(): Promise<void>;
}

/** Where the actor starts: a new task's input, or the state a record is in. */
export type RunStart = { readonly input: TaskInput } | { readonly status: TaskStatus; readonly context: TaskContext };

/** What a run needs besides its port. */
export interface RunOptions {
  readonly handler: TaskHandler | null;
  readonly params: unknown;
  readonly maxResultBytes: number | null;
  readonly now: () => number;
  /** Which run of the task this is. @default 1 */
  readonly attempt?: number;
  /** The checkpoint an earlier run kept, for a run that resumes the task. @default null */
  readonly resumeFrom?: TaskCheckpoint | null;
  /** The node running it, named in its checkpoints. @default null */
  readonly node?: string | null;
  /**
   * The input requests earlier runs of the task made (NATS keeps them with the task). A request
   * of this run takes the id of the first one not taken yet with the same method and params (its
   * answer, if given, is replayed); any other gets an id after them all. @default none
   */
  readonly asked?: readonly AskedBefore[];
  /** What the runtime gives every run of its handlers (subtasks, bounds of partial results). */
  readonly extras?: RunExtras | undefined;
  /** The node's task metrics; `null` when none are taken. @default null */
  readonly metrics?: TaskMetrics | null;
  /** The trace context kept with the task when it was created: its run's span joins that trace. */
  readonly trace?: TraceCarrier | undefined;
  /**
   * The capabilities the task's requester declared that input requests need (see
   * `CreateTaskOptions.requesterCapabilities`): the work's request for input that needs another
   * fails at once. `undefined`: not known, every request is made. @default undefined
   */
  readonly requesterCapabilities?: readonly string[] | undefined;
}

/** What a runtime gives the runs of its handlers. */
export interface RunExtras {
  /** How the work starts subtasks; without it `spawnTask` is refused. */
  readonly subtasks: SubtaskPort;
  /** Bounds of the work's intermediate results (`ctx.partial`). */
  readonly partials: { readonly maxCount: number; readonly maxBytes: number };
}
