/**
 * The context a task's handler gets (`TaskHandlerContext`), over its run.
 *
 * @module
 */
import type { TaskContext, TaskOwner, TaskProgress } from '../../machines/index.js';
import type { MachineGraph } from '../handlers/machine-graph.types.js';
import { InvalidArgumentError } from '../errors.js';
import { handlerReport, type HandlerState } from './handler-reports.js';
import type { SpawnOptions, Subtask, TaskCheckpoint, TaskHandlerContext, TaskOutcome } from '../task-runtime.types.js';
import type { TaskRun } from './task-run.js';

/**
 * The context a handler gets: an object of one fixed shape with its signal getter on the
 * prototype (a literal with a getter is built slowly, once per task); its functions stay bound
 * fields, so a handler may take them out of the context.
 *
 * @example
 * ```ts
 * await handler(params, new WorkContext(run, run.actor.getSnapshot().context));
 * ```
 */
export class WorkContext implements TaskHandlerContext {
  readonly taskId: string;
  readonly owner: TaskOwner;
  readonly dialect: string;
  readonly #run: TaskRun;

  constructor(run: TaskRun, context: TaskContext) {
    this.#run = run;
    this.taskId = context.taskId;
    this.owner = context.owner;
    this.dialect = context.dialect;
  }

  /** Made on first read (see `TaskRun.#abort`). */
  get signal(): AbortSignal {
    return this.#run.workSignal;
  }

  readonly setStatusMessage = (message: string): void => this.#run.setStatusMessage(message);

  readonly progress = (progress: number, total?: number, message?: string): boolean => this.#run.progress(progressReport(progress, total, message));

  readonly handlerState = (graph: MachineGraph, state: HandlerState): void => this.#run.handlerState(...handlerReport(graph, state));

  readonly requestInput = (method: string, params: unknown): Promise<unknown> => this.#run.requestInput(method, params);

  get attempt(): number {
    return this.#run.attempt;
  }

  get resumeFrom(): TaskCheckpoint | null {
    return this.#run.resumeFrom;
  }

  readonly checkpoint = (state: unknown, label?: string): Promise<boolean> => this.#run.checkpoint(state, label);

  get durable(): boolean {
    return this.#run.durable;
  }

  readonly stepKey = (step?: number): string => `${this.#run.incarnation}:${step ?? this.#run.checkpointSeq}`;

  readonly spawnTask = (handler: string, params: unknown, options?: SpawnOptions): Promise<Subtask> => this.#run.family.spawnTask(handler, params, options);

  readonly waitForSubtasks = (subtasks: readonly Subtask[], mode?: 'all' | 'any' | 'first-error'): Promise<TaskOutcome[]> =>
    this.#run.family.waitForSubtasks(subtasks, mode);

  readonly partial = (content: unknown): Promise<boolean> => this.#run.family.partial(content);
}

const isFinite = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n);

/**
 * A handler's progress report, checked: `progress` and `total` finite numbers, `message` a string.
 *
 * @throws InvalidArgumentError naming what is wrong
 * @example
 * ```ts
 * progressReport(4, 10, 'step 4/10'); // { progress: 4, total: 10, message: 'step 4/10' }
 * ```
 */
export function progressReport(progress: number, total?: number, message?: string): TaskProgress {
  if (!isFinite(progress)) throw new InvalidArgumentError(`ctx.progress: progress must be a finite number, got ${String(progress)}`);
  if (total !== undefined && !isFinite(total)) throw new InvalidArgumentError(`ctx.progress: total must be a finite number when given, got ${String(total)}`);
  if (message !== undefined && typeof message !== 'string') throw new InvalidArgumentError(`ctx.progress: message must be a string when given, got ${typeof message}`);
  return { progress, ...(total !== undefined && { total }), ...(message !== undefined && { message }) };
}
