/**
 * What the inspector's detail view shows of one task (`GET /api/tasks/:key`): its metadata (with
 * its parent, subtasks and partial results), its timeline, how it ended, its handler machine where
 * it is (from the task's own position, whichever node runs it), the questions it waits on, what
 * the asking operator may do, and its push deliveries when the inspector has a source of them.
 *
 * @module
 */
import type { AnyStateMachine } from 'xstate';
import { isTerminalStatus } from '../../machines/index.js';
import type { ObservedTask, TaskObserver } from '../../runtime/index.js';
import { machineGraph, toSvg } from './diagram/index.js';
import type { HandlerView, PushDeliverySource, TaskDetail, TaskOutcomeView } from './inspector.types.js';
import { detailedTask } from './listed-task.js';
import { pendingInputs, type PendingInputSource } from './pending-inputs.js';
import { redactedUrl } from '../../runtime/secrets.js';
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

/** Handler machines drawn at most, per inspector (the least recently used is drawn again when needed). */
export const MAX_HANDLER_DRAWINGS = 64;

/**
 * The drawings of handler machines by graph key (a graph never changes under its key), read from
 * the observer (on NATS, the graph the running node shared) and drawn on first use.
 *
 * @example
 * ```ts
 * const drawings = new HandlerDrawings(observer);
 * const svg = await drawings.svg(task.handler.graph); // null until a node shared it
 * ```
 */
export class HandlerDrawings {
  readonly #observer: Pick<TaskObserver, 'machine'>;
  readonly #drawn = new Map<string, string>();

  constructor(observer: Pick<TaskObserver, 'machine'>) {
    this.#observer = observer;
  }

  /** The SVG of the graph under `key`, or `null` when no node shared it (yet: not remembered). */
  async svg(key: string): Promise<string | null> {
    const known = this.#drawn.get(key);
    if (known !== undefined) {
      // Moved to the end: the first key of the map is the least recently used.
      this.#drawn.delete(key);
      this.#drawn.set(key, known);
      return known;
    }
    const graph = await this.#observer.machine(key);
    if (graph === null) return null;
    const svg = toSvg(graph);
    this.#drawn.set(key, svg);
    if (this.#drawn.size > MAX_HANDLER_DRAWINGS) this.#drawn.delete(this.#drawn.keys().next().value!);
    return svg;
  }
}

/** What the detail is read with. */
export interface TaskDetailOptions {
  readonly showResults: boolean;
  /** Whether this request sees credential-equivalent values in full. */
  readonly reveal: boolean;
  /** Whether the request carries an operator's token (and actions are possible). */
  readonly operator: boolean;
  readonly drawings: HandlerDrawings;
  readonly inputs?: PendingInputSource | undefined;
  readonly deliveries?: PushDeliverySource | undefined;
}

async function handlerOf(task: ObservedTask, drawings: HandlerDrawings): Promise<(HandlerView & { readonly svg: string | null }) | null> {
  if (task.handler === null) return null;
  // Ended (cancelled, say) while its machine was active: the machine stopped where it was, as no
  // report is taken once a task has ended.
  const status = isTerminalStatus(task.status) && task.handler.status === 'active' ? 'stopped' : task.handler.status;
  return { key: task.key, ...task.handler, status, svg: await drawings.svg(task.handler.graph) };
}

/**
 * The detail of `task`.
 *
 * @param observer - the runtime's observer
 * @param task - the task, as the observer lists it
 * @param options - see {@link TaskDetailOptions}
 * @example
 * ```ts
 * const detail = await taskDetail(observer, task, { showResults: false, reveal: false, operator: false, drawings });
 * ```
 */
export async function taskDetail(observer: TaskObserver, task: ObservedTask, options: TaskDetailOptions): Promise<TaskDetail> {
  const [timeline, outcome, handler, inputs] = await Promise.all([
    observer.timeline(task.key),
    outcomeOf(observer, task, options.showResults),
    handlerOf(task, options.drawings),
    pendingInputs(task, options.inputs, options.showResults, options.reveal),
  ]);
  const actions = options.operator && !isTerminalStatus(task.status) ? (['cancel'] as const) : [];
  const detail: TaskDetail = { task: detailedTask(task, options.showResults, options.reveal), timeline, outcome, handler, inputs, actions };
  if (!options.deliveries) return detail;
  const deliveries = await options.deliveries({ taskId: task.taskId, owner: task.owner });
  // Even an operator sees no webhook's query string: a receiver's secret often rides there.
  return { ...detail, deliveries: options.reveal ? deliveries.map((d) => ({ ...d, url: redactedUrl(d.url) })) : deliveriesWithoutCredentials(task, deliveries) };
}

async function outcomeOf(observer: TaskObserver, task: ObservedTask, showResults: boolean): Promise<TaskOutcomeView> {
  const terminal = isTerminalStatus(task.status);
  const base = { terminal, status: task.status, error: task.error, statusMessage: task.statusMessage, hasResult: task.hasResult };
  // Read on demand only when shown: results may be large, and are the requesters' data.
  if (!showResults || !terminal || !task.hasResult) return { ...base, resultShown: false };
  const read = await observer.result(task.key);
  return read.hasResult ? { ...base, resultShown: true, result: read.result } : { ...base, resultShown: false };
}
