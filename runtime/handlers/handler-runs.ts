/**
 * Where handlers written as XState machines (see `machineHandler`) report their position, so that
 * an inspector in the same process can draw each task's handler machine with its current state.
 *
 * Process-wide on purpose: a handler runs wherever the runtime calls it and knows nothing of any
 * inspector, and the inspector knows tasks only by id and owner. The only way for the two to meet
 * without threading an object through the runtime is one shared table. It therefore sees only the
 * handlers running in this process (memory backend, or a NATS node with role `both`/`worker` that
 * also serves the inspector); a handler on another node is not in it.
 *
 * @module
 */
import type { AnyStateMachine } from 'xstate';
import type { TaskOwner } from '../../machines/index.js';

/** Where a handler machine is in its life: XState's own snapshot `status`. */
export type HandlerRunStatus = 'active' | 'done' | 'error' | 'stopped';

/**
 * One handler machine run for one task, as last reported.
 *
 * @example
 * ```ts
 * const run = handlerRuns.get('t1', { session: 's1', principal: null });
 * if (run) console.log(run.machine.id, run.states, run.status);
 * ```
 */
export interface HandlerRun {
  readonly taskId: string;
  readonly owner: TaskOwner;
  /** The machine the handler runs (drawn with `toSvg(machineGraph(machine))`). */
  readonly machine: AnyStateMachine;
  /** Active state ids, parents included, as the diagram names them (`long_job.working`). */
  readonly states: readonly string[];
  readonly status: HandlerRunStatus;
  /** Epoch ms of the report. */
  readonly updatedAt: number;
}

/**
 * Most finished runs kept. A finished run stays so that the page can still show where the machine
 * ended; this bounds what a long-lived server keeps (running ones are never dropped: they are few,
 * each belongs to a live task).
 */
export const MAX_FINISHED_HANDLER_RUNS = 1000;

/**
 * The identity of a task across owners: the same task id may belong to two requesters.
 *
 * @example
 * ```ts
 * handlerRunKey('t1', { session: 's1', principal: null }); // '["s1",null,"t1"]'
 * ```
 */
export function handlerRunKey(taskId: string, owner: TaskOwner): string {
  return JSON.stringify([owner.session, owner.principal, taskId]);
}

/**
 * The table of handler runs. Use the process-wide {@link handlerRuns}; a separate instance is for
 * tests.
 *
 * @example
 * ```ts
 * const stop = handlerRuns.watch((run) => console.log(run.taskId, run.states));
 * stop();
 * ```
 */
export class HandlerRuns {
  readonly #runs = new Map<string, HandlerRun>();
  readonly #listeners = new Set<(run: HandlerRun) => void>();
  #finished = 0;

  /** Records where a run is now and tells the watchers. */
  report(run: HandlerRun): void {
    const key = handlerRunKey(run.taskId, run.owner);
    const before = this.#runs.get(key);
    if (before && before.status !== 'active') this.#finished--;
    // Re-inserted so that the map's order is the order of last reports: the oldest finished go first.
    this.#runs.delete(key);
    this.#runs.set(key, run);
    if (run.status !== 'active') {
      this.#finished++;
      this.#evict();
    }
    for (const listener of [...this.#listeners]) {
      try {
        listener(run);
      } catch {
        // A watcher's failure is its own: the handler and the other watchers go on.
      }
    }
  }

  /** The last report of a task's handler machine, if it ran here. */
  get(taskId: string, owner: TaskOwner): HandlerRun | undefined {
    return this.#runs.get(handlerRunKey(taskId, owner));
  }

  /** Calls `listener` on every report. Returns the unsubscribe. */
  watch(listener: (run: HandlerRun) => void): () => void {
    const wrapped = (run: HandlerRun): void => listener(run);
    this.#listeners.add(wrapped);
    return () => void this.#listeners.delete(wrapped);
  }

  /** How many runs are held (for tests and diagnostics). */
  get size(): number {
    return this.#runs.size;
  }

  #evict(): void {
    if (this.#finished <= MAX_FINISHED_HANDLER_RUNS) return;
    for (const [key, run] of this.#runs) {
      if (run.status === 'active') continue;
      this.#runs.delete(key);
      if (--this.#finished <= MAX_FINISHED_HANDLER_RUNS) return;
    }
  }
}

// Kept on globalThis under a registered symbol: two copies of this module (a bundle and a
// dependency, say) must still share one table, or the inspector would see no handler at all.
const GLOBAL_KEY = Symbol.for('mcp-task-actors.handler-runs');
const holder = globalThis as { [GLOBAL_KEY]?: HandlerRuns };

/**
 * The process-wide table that `machineHandler` reports to and `attachInspector` reads.
 *
 * @example
 * ```ts
 * import { handlerRuns } from './handler-runs.js';
 * handlerRuns.get(task.taskId, task.owner)?.states;
 * ```
 */
export const handlerRuns: HandlerRuns = (holder[GLOBAL_KEY] ??= new HandlerRuns());
