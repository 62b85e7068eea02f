/**
 * The renderer-neutral picture of an XState machine: boxes (states) and arrows (transitions).
 * `machineGraph()` builds it from a machine definition; `toMermaid()` and `toSvg()` draw it. Plain
 * JSON: a worker that runs a handler machine shares its graph through the cluster (the inspector
 * of any node draws it without the machine).
 *
 * @module
 */

/**
 * What kind of state a box is: XState's own `StateNode.type`, so a reader of the machine and a
 * reader of the picture use the same words.
 *
 * @example
 * ```ts
 * const finals = graph.nodes.filter((n) => n.type === StateKind.final);
 * ```
 */
export const StateKind = {
  atomic: 'atomic',
  compound: 'compound',
  parallel: 'parallel',
  final: 'final',
  history: 'history',
} as const;
/**
 * One of {@link StateKind}'s values.
 *
 * @example
 * ```ts
 * const kind: StateKind = 'final';
 * ```
 */
export type StateKind = (typeof StateKind)[keyof typeof StateKind];

/**
 * One state of the machine.
 *
 * @example
 * ```ts
 * const working: GraphNode = { id: 'task.working', key: 'working', label: 'working', type: 'atomic' };
 * ```
 */
export interface GraphNode {
  /**
   * The machine id and the state's path joined with dots (`task.working`, `requester.polling.fetching`).
   * Built from the path rather than taken from XState's `StateNode.id`, which a custom `id:` on a
   * state replaces: a path can be computed from any snapshot's `value`, in a browser, with no machine.
   */
  readonly id: string;
  /** The state's key in its parent (`working`). */
  readonly key: string;
  /** Text shown in the box. */
  readonly label: string;
  readonly type: StateKind;
  /** Id of the enclosing state; absent for top-level states (the machine itself is not a box). */
  readonly parent?: string;
  /** Id of the child entered first, for compound states. */
  readonly initial?: string;
}

/**
 * One transition, from the state where it can be taken to the state it leads to.
 *
 * @example
 * ```ts
 * const edge: GraphEdge = {
 *   id: 'e0', source: 'task.submitted', target: 'task.working', event: 'task.start',
 *   label: 'task.start', internal: false, declaredOn: 'task.submitted',
 * };
 * ```
 */
export interface GraphEdge {
  /** Unique within the graph, in definition order (`e0`, `e1`, …). */
  readonly id: string;
  readonly source: string;
  /** Equal to `source` for a targetless transition (and for an explicit self-transition). */
  readonly target: string;
  /**
   * XState's event descriptor, exactly: `task.start`, `xstate.done.actor.handler`,
   * `xstate.after.1000.m.a`; `''` for an eventless `always` transition (XState's own convention).
   */
  readonly event: string;
  /** Readable event plus ` [guard]` when guarded: `done: handler [guarded]`, `after 1000ms`, `always`. */
  readonly label: string;
  /** The guard as text (`isNewInput`, `!cancelRequested`, `guarded` for inline code). */
  readonly guard?: string;
  /** True for a targetless transition: it runs actions but neither exits nor enters a state. */
  readonly internal: boolean;
  /** Id of the state whose definition declares the transition (differs from `source` when spread). */
  readonly declaredOn: string;
}

/**
 * A whole machine as boxes and arrows.
 *
 * @example
 * ```ts
 * const graph: MachineGraph = machineGraph(taskMachine);
 * graph.initial; // 'task.submitted'
 * ```
 */
export interface MachineGraph {
  /** The machine's id (`task`). */
  readonly id: string;
  /** The root's kind: `parallel` roots enter all top-level states at once; `atomic` ones are one box. */
  readonly type: 'atomic' | 'compound' | 'parallel';
  /** The top-level state entered first (the root's own id for a machine without states). */
  readonly initial?: string;
  /** Every state, parents before children, in definition order. */
  readonly nodes: readonly GraphNode[];
  readonly edges: readonly GraphEdge[];
}
