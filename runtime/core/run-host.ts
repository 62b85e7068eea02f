/**
 * Where a node's live runs are kept: one host per store, which starts a `TaskRun` (with the
 * options every backend gives it the same way), feeds it events and answers, and stops it. A
 * backend keeps records and tells its host what happened; which run is live for a task, and how
 * it is started and stopped, is decided here once.
 *
 * @module
 */
import { taskEvents, type TaskEvent } from '../../machines/index.js';
import type { InputAnswer, TaskCheckpoint, TaskHandler } from '../task-runtime.types.js';
import type { TraceCarrier } from '../telemetry/tracing.js';
import { TaskRun } from './task-run.js';
import type { RunExtras, RunPort, RunStart } from './task-run.types.js';
import type { TaskMetrics } from '../telemetry/metrics.js';

/** What a run does: the registered handler and the task's params (none: the task has no work here). */
export interface RunWork {
  readonly handler: TaskHandler | null;
  readonly params: unknown;
  readonly runOptions?: RunExtras | undefined;
  /** The trace context kept with the task when it was created (see `RunOptions.trace`). */
  readonly trace?: TraceCarrier | undefined;
  /** What the task's requester can be asked (see `RunOptions.requesterCapabilities`). */
  readonly requesterCapabilities?: readonly string[] | undefined;
}

/** A run of a task that ran before (on NATS, after its worker was lost, or on another node). */
export interface RunResume {
  /** Which run of the task this is (1 for the first). */
  readonly attempt: number;
  /** The checkpoint the work starts from (resumable handlers), or `null`. */
  readonly resumeFrom: TaskCheckpoint | null;
  /** What earlier runs asked: asked again, the same question gets its id (and its answer). */
  readonly asked?: readonly { readonly inputId: string; readonly method: string; readonly params: unknown }[];
}

/** What every run of a host shares. */
export interface RunHostOptions {
  readonly now: () => number;
  readonly maxResultBytes: number | null;
  /** The node the runs run on (NATS), named in their work context. */
  readonly node?: string;
  /** The node's task metrics (see `openTaskMetrics`); `null` when none are taken. */
  readonly metrics?: TaskMetrics | null;
}

/**
 * The live runs of one store, by task key.
 *
 * @example
 * ```ts
 * const host = new RunHost({ now: Date.now, maxResultBytes: null });
 * const run = host.start(key, { input }, { handler, params }, port);
 * host.feed(key, taskEvents.start(Date.now()));
 * run.begin();
 * ```
 */
export class RunHost {
  readonly #runs = new Map<string, TaskRun>();
  readonly #o: RunHostOptions;

  constructor(options: RunHostOptions) {
    this.#o = options;
  }

  /**
   * Starts the run of task `key` from `start` (a new task's input, or a stored state to resume
   * in); the work begins when the caller calls `begin()`, once it has placed the run.
   */
  start(key: string, start: RunStart, work: RunWork, port: RunPort, resume?: RunResume): TaskRun {
    const run = new TaskRun(
      start,
      {
        handler: work.handler,
        params: work.params,
        maxResultBytes: this.#o.maxResultBytes,
        now: this.#o.now,
        extras: work.runOptions,
        trace: work.trace,
        requesterCapabilities: work.requesterCapabilities,
        ...(resume && { attempt: resume.attempt, resumeFrom: resume.resumeFrom, asked: resume.asked }),
        ...(this.#o.node !== undefined && { node: this.#o.node }),
        ...(this.#o.metrics && { metrics: this.#o.metrics }),
      },
      port,
    );
    this.#runs.set(key, run);
    return run;
  }

  /** The live run of `key`, if this host has one. */
  get(key: string): TaskRun | undefined {
    return this.#runs.get(key);
  }

  /** Sends `event` to the live run of `key`; `false` when there is none. */
  feed(key: string, event: TaskEvent): boolean {
    const run = this.#runs.get(key);
    if (!run) return false;
    run.send(event);
    return true;
  }

  /**
   * Gives the answer to input request `inputId` of the live run of `key`: the machine learns it
   * was answered, then the work gets it. `false` when no live run waits for it.
   */
  answer(key: string, inputId: string, answer: InputAnswer): boolean {
    const run = this.#runs.get(key);
    if (!run?.waitsFor(inputId)) return false;
    run.send(taskEvents.inputResponse(inputId, this.#o.now()));
    run.answer(inputId, answer);
    return true;
  }

  /** Forgets the run of `key` (it ended: its actor is terminal); `run`, when given, must be the one held. */
  release(key: string, run?: TaskRun): void {
    if (run === undefined || this.#runs.get(key) === run) this.#runs.delete(key);
  }

  /** Stops the run of `key` (its work is aborted, nothing more is written) and forgets it. */
  stop(key: string, run?: TaskRun): void {
    const held = this.#runs.get(key);
    const target = run ?? held;
    if (target && !target.over) target.stop();
    if (held !== undefined && held === target) this.#runs.delete(key);
  }

  /** Stops every live run (the node shuts down). */
  stopAll(): void {
    for (const run of this.#runs.values()) if (!run.over) run.stop();
    this.#runs.clear();
  }

  /** How many runs are live. */
  get size(): number {
    return this.#runs.size;
  }
}
