/**
 * What a handler reports of its machine (`ctx.handlerState`): the report checked and bounded, the
 * machine's graph shared once per run (when small enough to share), and the position made a move
 * of the task. Every backend's runs report through here.
 *
 * @module
 */
import { taskEvents, type HandlerPosition, type TaskEvent } from '../../machines/index.js';
import type { MachineGraph } from '../handlers/machine-graph.types.js';
import { InvalidArgumentError } from '../errors.js';
import { graphShare, MAX_SHARED_GRAPH_BYTES } from './machine-graphs.js';

/** What a handler says of its machine besides its graph. */
export type HandlerState = Omit<HandlerPosition, 'machine' | 'graph'>;

/**
 * The most state ids one report names (the active states of a machine, parallel regions and
 * their parents included). Each is kept with the task and sent to every observer on each move.
 */
export const MAX_HANDLER_STATES = 256;

/** The longest id a report or its graph may carry (a state id, the machine's id, a node's id). */
export const MAX_HANDLER_ID_CHARS = 1_024;

const HANDLER_STATUSES: ReadonlySet<unknown> = new Set(['active', 'done', 'error', 'stopped']);

/** Graphs whose ids were checked: a handler reports the same graph object at every state. */
const checked = new WeakSet<MachineGraph>();

/**
 * A handler's report of its machine's state, checked: a graph with an id, nodes and edges (ids of
 * at most {@link MAX_HANDLER_ID_CHARS} characters), and a position of at most
 * {@link MAX_HANDLER_STATES} state ids (each as long at most), a known status, a non-negative
 * safe integer step and a checkpoint flag.
 *
 * @throws InvalidArgumentError naming the field that is wrong
 * @example
 * ```ts
 * handlerReport(graph, { states: ['job.working'], status: 'active', step: 2, checkpoint: true });
 * ```
 */
export function handlerReport(graph: MachineGraph, state: HandlerState): [MachineGraph, HandlerState] {
  const bad = (what: string): never => {
    throw new InvalidArgumentError(`ctx.handlerState: ${what}`);
  };
  const id = (value: unknown, field: string): void => {
    if (typeof value !== 'string') bad(`${field} must be a string`);
    else if (value.length > MAX_HANDLER_ID_CHARS) bad(`${field} must be at most ${MAX_HANDLER_ID_CHARS} characters (MAX_HANDLER_ID_CHARS), got ${value.length}`);
  };
  if (typeof graph !== 'object' || graph === null || typeof graph.id !== 'string' || !Array.isArray(graph.nodes) || !Array.isArray(graph.edges)) bad('graph must be a machine graph (machineGraph(machine))');
  if (!checked.has(graph)) {
    id(graph.id, 'graph.id');
    graph.nodes.forEach((node, i) => id((node as { id?: unknown } | null)?.id, `graph.nodes[${i}].id`));
    checked.add(graph);
  }
  if (typeof state !== 'object' || state === null) bad('the state must be an object');
  if (!Array.isArray(state.states)) bad('states must be an array of state ids');
  if (state.states.length > MAX_HANDLER_STATES) bad(`states must name at most ${MAX_HANDLER_STATES} state ids (MAX_HANDLER_STATES), got ${state.states.length}`);
  state.states.forEach((s, i) => id(s, `states[${i}]`));
  if (!HANDLER_STATUSES.has(state.status)) bad(`status must be active, done, error or stopped, got ${String(state.status)}`);
  if (!Number.isSafeInteger(state.step) || state.step < 0) bad(`step must be a non-negative safe integer, got ${String(state.step)}`);
  if (typeof state.checkpoint !== 'boolean') bad('checkpoint must be a boolean');
  return [graph, state];
}

/** Where a run's handler reports go (see `RunPort`). */
export interface HandlerReportPort {
  /**
   * Shares the graph of the work's handler machine under `key` (its content hash), for observers
   * of any node (`observer.machine(key)`): once per key is enough, repeats are ignored. Without
   * it, graphs are shared nowhere. Only a graph of at most {@link MAX_SHARED_GRAPH_BYTES}.
   */
  shareMachine?(key: string, graph: MachineGraph): void;
  /**
   * Told, instead, of a graph too large to share (`bytes` of JSON over
   * {@link MAX_SHARED_GRAPH_BYTES}): once per key for a run, so a backend that says so remembers it.
   */
  unsharedMachine?(key: string, bytes: number): void;
}

/**
 * A run's reports of its handler machine: each graph shared (or refused as too large) once per
 * run whatever the number of reports, and each position made a `task.handler` move.
 *
 * @example
 * ```ts
 * const reports = new HandlerReports(port);
 * port.move(reports.move(graph, { states: ['job.working'], status: 'active', step: 1, checkpoint: false }, Date.now()));
 * ```
 */
export class HandlerReports {
  /** The key of the graph this run shared (or refused) last. */
  #graph: string | undefined;

  constructor(private readonly port: HandlerReportPort) {}

  /** The move of the task to `state` of `graph`, its graph shared first (once per key for this run). */
  move(graph: MachineGraph, state: HandlerState, at: number): TaskEvent {
    const { key, bytes } = graphShare(graph);
    if (this.#graph !== key) {
      this.#graph = key;
      // Too large: not shared; the position still moves, and observers show it without the picture.
      if (bytes > MAX_SHARED_GRAPH_BYTES) this.port.unsharedMachine?.(key, bytes);
      else this.port.shareMachine?.(key, graph);
    }
    // Field by field: one shape, and nothing the caller added beside the position.
    const position: HandlerPosition = { machine: graph.id, graph: key, states: state.states, status: state.status, step: state.step, checkpoint: state.checkpoint };
    return taskEvents.handler(position, at);
  }
}
