/**
 * The renderer-neutral picture of an XState machine: boxes (states) and arrows (transitions).
 * `machineGraph()` builds it from a machine definition; `toMermaid()` and `toSvg()` draw it.
 *
 * @module
 */

export { StateKind } from '../../../runtime/handlers/machine-graph.types.js';
export type { GraphEdge, GraphNode, MachineGraph } from '../../../runtime/handlers/machine-graph.types.js';

/**
 * Options shared by the renderers.
 *
 * @example
 * ```ts
 * const options: DiagramOptions = { highlight: ['task.working'] };
 * ```
 */
export interface DiagramOptions {
  /**
   * State ids drawn as current (class `current`), e.g. from `activeStateIds(graph.id, snapshot.value)`.
   * @default []
   */
  readonly highlight?: readonly string[];
}
