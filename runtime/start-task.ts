/**
 * Starting a task from the same process, without a wire: no request id, no dialect, no session.
 * A standalone function over the {@link TaskRuntime} interface rather than one more runtime
 * method, so it holds for every backend (memory, a NATS front whose workers run the work) with
 * nothing for a backend to implement.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { TaskOwner } from '../machines/index.js';
import { TaskNotCompletedError, TaskTerminalError } from './errors.js';
import type { Subtask, TaskOutcome, TaskRuntime, WaitOptions } from './task-runtime.types.js';

/**
 * The requester of tasks started in process when {@link StartTaskOptions.owner} is not given.
 * Tasks are scoped to their owner: read them back (`runtime.get`, `list`) with this one.
 *
 * @example
 * ```ts
 * const page = await runtime.list(IN_PROCESS_OWNER);
 * ```
 */
export const IN_PROCESS_OWNER: TaskOwner = Object.freeze({ session: 'in-process', principal: null });

/**
 * The dialect an in-process task is recorded with: none of the wire dialects, so a tool result
 * with `isError: true` completes the task (as in SEP-1686) and the caller reads the flag.
 */
const IN_PROCESS_DIALECT = 'in-process';

/**
 * How {@link startTask} starts a task.
 *
 * @example
 * ```ts
 * const options: StartTaskOptions = { keepAlive: 60_000, label: 'nightly report' };
 * ```
 */
export interface StartTaskOptions {
  /**
   * The requester the task belongs to (its limits apply; only it can read the task).
   * @default {@link IN_PROCESS_OWNER}
   */
  readonly owner?: TaskOwner;
  /** How long the ended task is kept, ms; `null` asks for as long as allowed. @default the runtime's keepAlive */
  readonly keepAlive?: number | null;
  /** The id; unique per owner. @default a random UUID */
  readonly taskId?: string;
  /** The request method it stands for (what the inspector and audit show). @default the part of `handler` before `:`, else 'tools/call' */
  readonly method?: string;
  /** A short label (the tool name). @default the part of `handler` after `:` */
  readonly label?: string | null;
}

/**
 * A task started in process: its id and owner, its end, and a cancel.
 *
 * @example
 * ```ts
 * const task = await startTask(runtime, 'tools/call:sleep', { ms: 100 });
 * const result = await task.result({ timeout: 5_000 });
 * ```
 */
export interface StartedTask extends Subtask {
  /** The requester it belongs to: what `runtime.get` and `list` need to read it. */
  readonly owner: TaskOwner;
  /** What the task produced once it ended, whatever its status. @throws TaskTimeoutError */
  outcome(options?: WaitOptions): Promise<TaskOutcome>;
  /**
   * The result once the task completed (a tool's `CallToolResult`, `isError` included).
   * @throws TaskNotCompletedError when it ended otherwise (its `cause` says why); TaskTimeoutError
   */
  result(options?: WaitOptions): Promise<unknown>;
}

/**
 * Starts a task running a registered handler (`tools/call:<tool>` for a definition registered by
 * `registerTaskWork` or served by a seam, or any name given to `registerHandler`) and returns at
 * once, the task created and pollable. On a NATS front, any worker that serves the handler runs it.
 *
 * @param runtime - any task runtime (memory or NATS)
 * @param handler - the handler name
 * @param params - what the handler gets (a tool's arguments; not checked against its schema here)
 * @param options - owner, keepAlive, id, label
 * @throws TaskLimitError over the owner's limits; DuplicateTaskIdError for a taken `taskId`
 * @example
 * ```ts
 * import { createTaskRuntime, registerTaskWork, startTask } from 'mcp-task-actors';
 * const runtime = createTaskRuntime();
 * registerTaskWork(runtime, { tools: [countWords] });
 * const task = await startTask(runtime, 'tools/call:count_words', { text: 'one two three' });
 * console.log(await task.result());
 * ```
 */
export async function startTask(runtime: TaskRuntime, handler: string, params: unknown, options: StartTaskOptions = {}): Promise<StartedTask> {
  const owner = options.owner ?? IN_PROCESS_OWNER;
  const colon = handler.indexOf(':');
  const view = await runtime.create({
    taskId: options.taskId ?? randomUUID(),
    owner,
    dialect: IN_PROCESS_DIALECT,
    method: options.method ?? (colon > 0 ? handler.slice(0, colon) : 'tools/call'),
    label: options.label !== undefined ? options.label : handler.slice(colon + 1),
    keepAlive: options.keepAlive,
    handler,
    params,
  });
  const { taskId } = view;
  // The caller's own wait, not a requester's poll: never charged against its poll rate.
  const outcome = (wait: WaitOptions = {}): Promise<TaskOutcome> => runtime.waitForOutcome(taskId, owner, { countsAsPoll: false, ...wait });
  return {
    taskId,
    owner,
    outcome,
    result: async (wait) => {
      const ended = await outcome(wait);
      if (ended.task.status === 'completed') return ended.result;
      const why = ended.task.error ?? ended.task.statusMessage;
      throw new TaskNotCompletedError(taskId, ended.task.status, why ? { cause: new Error(why) } : undefined);
    },
    cancel: async (reason) => {
      try {
        await runtime.cancel(taskId, owner, reason ?? null);
      } catch (error) {
        // Already ended: nothing to cancel (as for a subtask).
        if (!(error instanceof TaskTerminalError)) throw error;
      }
    },
  };
}
