/**
 * What the inspector's detail view shows of one task (`GET /api/tasks/:key`): its metadata (with
 * its parent, subtasks and partial results), its timeline, how it ended, its handler machine when
 * one runs in this process, and its push deliveries when the inspector has a source of them.
 *
 * @module
 */
import type { AnyStateMachine } from 'xstate';
import { isTerminalStatus } from '../../machines/index.js';
import type { ObservedTask, TaskObserver } from '../../runtime/index.js';
import { machineGraph, toSvg } from './diagram/index.js';
import type { HandlerRun, HandlerRuns } from '../../runtime/handlers/handler-runs.js';
import type { HandlerView, PushDeliverySource, TaskDetail, TaskOutcomeView } from './inspector.types.js';
import { detailedTask } from './listed-task.js';
import { deliveriesWithoutCredentials } from './redaction.js';

/** Each machine is drawn once: a layout takes milliseconds and the picture never changes. */
const drawings = new WeakMap<AnyStateMachine, string>();

/**
 * The SVG of a machine, drawn on first use.
 *
 * @example
 * ```ts
 * res.end(machineSvg(taskMachine));
 * ```
 */
export function machineSvg(machine: AnyStateMachine): string {
  let svg = drawings.get(machine);
  if (svg === undefined) {
    svg = toSvg(machineGraph(machine));
    drawings.set(machine, svg);
  }
  return svg;
}

/**
 * The `handler` event of a run, for the task with observer key `key`.
 *
 * @example
 * ```ts
 * hub.broadcast('handler', handlerView(key, run));
 * ```
 */
export function handlerView(key: string, run: HandlerRun): HandlerView {
  return { key, machine: run.machine.id, graph: '', states: run.states, status: run.status, step: 0, checkpoint: false };
}

/**
 * The detail of the task with observer key `key`, or `null` when there is none.
 *
 * @param observer - the runtime's observer
 * @param key - the task's observer key
 * @param options - `showResults`: include the result JSON and the partial results' content;
 *   `runs`: where handler machines report; `deliveries`: where its push deliveries are read
 * @example
 * ```ts
 * const detail = await taskDetail(observer, key, { showResults: false, reveal: false, runs: handlerRuns });
 * if (detail === null) return notFound(res);
 * ```
 */
export async function taskDetail(
  observer: TaskObserver,
  key: string,
  options: { readonly showResults: boolean; readonly reveal: boolean; readonly runs: HandlerRuns; readonly deliveries?: PushDeliverySource | undefined },
): Promise<TaskDetail | null> {
  const task = (await observer.list()).find((t) => t.key === key);
  if (!task) return null;
  const timeline = await observer.timeline(key);
  const run = options.runs.get(task.taskId, task.owner);
  const handler = run ? { ...handlerView(key, run), svg: machineSvg(run.machine) } : null;
  const outcome = await outcomeOf(observer, task, options.showResults);
  const detail: TaskDetail = { task: detailedTask(task, options.showResults, options.reveal), timeline, outcome, handler, inputs: [], actions: [] };
  if (!options.deliveries) return detail;
  const deliveries = await options.deliveries({ taskId: task.taskId, owner: task.owner });
  return { ...detail, deliveries: options.reveal ? deliveries : deliveriesWithoutCredentials(task, deliveries) };
}

async function outcomeOf(observer: TaskObserver, task: ObservedTask, showResults: boolean): Promise<TaskOutcomeView> {
  const terminal = isTerminalStatus(task.status);
  const base = { terminal, status: task.status, error: task.error, statusMessage: task.statusMessage, hasResult: task.hasResult };
  // Read on demand only when shown: results may be large, and are the requesters' data.
  if (!showResults || !terminal || !task.hasResult) return { ...base, resultShown: false };
  const read = await observer.result(task.key);
  return read.hasResult ? { ...base, resultShown: true, result: read.result } : { ...base, resultShown: false };
}
