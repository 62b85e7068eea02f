/**
 * What one run of a handler measures on its node: which of the node's live-run gauges it counts in
 * (working, or waiting for input) as its task moves, and, for a task's first run, how long the task
 * waited to start. Kept beside the run rather than in it: the run only says what happened.
 *
 * @module
 */
import { isTerminalStatus, type TaskStatus } from '../../machines/index.js';
import type { TaskMetrics } from './metrics.js';

type Counted = 'working' | 'input_required' | null;

/**
 * The measurements of one run.
 *
 * @example
 * ```ts
 * const meter = new RunMeter(metrics);
 * meter.moved('working');
 * meter.began({ method: 'tools/call', createdAt }, 1, Date.now());
 * meter.end();
 * ```
 */
export class RunMeter {
  readonly #metrics: TaskMetrics;
  #counted: Counted = null;

  constructor(metrics: TaskMetrics) {
    this.#metrics = metrics;
  }

  /** The run's task is in `status` now (a submitted task counts as working: its run is live here). */
  moved(status: TaskStatus): void {
    const now: Counted = isTerminalStatus(status) ? null : status === 'input_required' ? 'input_required' : 'working';
    if (now === this.#counted) return;
    if (this.#counted !== null) this.#metrics.run(this.#counted, -1);
    if (now !== null) this.#metrics.run(now, 1);
    this.#counted = now;
  }

  /** The work begins: a first run measures the task's wait since its creation (a later run's would count its lost runs too). */
  began(task: { readonly method: string; readonly createdAt: number }, attempt: number, at: number): void {
    if (attempt === 1) this.#metrics.queued(task.method, at - task.createdAt);
  }

  /** The run is over (ended, or stopped on this node): it leaves the gauges. */
  end(): void {
    if (this.#counted !== null) this.#metrics.run(this.#counted, -1);
    this.#counted = null;
  }
}
