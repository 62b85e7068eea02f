/**
 * Limit refusals as a decorator of a runtime's requester-facing calls: a refusal is a
 * `TaskLimitError` thrown by one of them, whichever rule threw it (a rate, the running tasks, the
 * kept tasks or bytes, an id or a request too large, the NATS backend's cluster-wide claim), so
 * it is counted once, here, rather than at each rule. Installed only when metrics are taken: a
 * runtime without an SDK registered is the runtime itself.
 *
 * @module
 */
import { TaskLimitError } from '../errors.js';
import type { TaskRuntime } from '../task-runtime.types.js';
import type { TaskMetrics } from './metrics.js';

/** The calls a requester makes (each may be refused over a limit). */
const CALLS = ['create', 'get', 'list', 'result', 'outcome', 'update', 'waitForOutcome', 'waitForTerminal', 'cancel', 'delete', 'pendingInputRequests', 'answerInput'] as const satisfies readonly (keyof TaskRuntime)[];

/**
 * Wraps `runtime` so that every call refused over a limit is counted (by the limit's name); the
 * other members are the runtime's own.
 *
 * @param runtime - the runtime (memory or NATS, with its extra members)
 * @param metrics - the node's metrics; `null`: `runtime` is returned as is
 * @example
 * ```ts
 * return meterRefusals(runtime, openTaskMetrics());
 * ```
 */
export function meterRefusals<R extends TaskRuntime>(runtime: R, metrics: TaskMetrics | null): R {
  if (metrics === null) return runtime;
  const metered: Partial<Record<(typeof CALLS)[number], unknown>> = {};
  for (const name of CALLS) {
    metered[name] = async (...args: unknown[]): Promise<unknown> => {
      try {
        return await (runtime[name] as (this: R, ...a: unknown[]) => Promise<unknown>).apply(runtime, args);
      } catch (error) {
        if (error instanceof TaskLimitError) metrics.refused(error.limit);
        throw error;
      }
    };
  }
  return { ...runtime, ...metered };
}
