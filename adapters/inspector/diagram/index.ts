/**
 * Diagrams of XState machines, derived from the machine definition itself: a change to a machine
 * changes its picture. `machineGraph()` reads any XState v5 machine into boxes and arrows;
 * `toMermaid()` writes Mermaid `stateDiagram-v2` text; `toSvg()` lays the graph out with dagre
 * and writes a standalone SVG whose `g.state[data-state]` groups a page can highlight live.
 *
 * @example
 * ```ts
 * import { taskMachine } from '../../../machines/index.js';
 * import { activeStateIds, machineGraph, toMermaid, toSvg } from './index.js';
 *
 * const graph = machineGraph(taskMachine);
 * console.log(toMermaid(graph));
 * const svg = toSvg(graph, { highlight: activeStateIds(graph.id, 'working') });
 * ```
 *
 * @module
 */
export { machineGraph } from '../../../runtime/handlers/machine-graph.js';
export { activeStateIds } from '../../../runtime/handlers/active-states.js';
export { toMermaid } from './mermaid.js';
export { toSvg } from './svg.js';
export type { SvgOptions } from './svg.js';
export { StateKind } from './diagram.types.js';
export type { DiagramOptions, GraphEdge, GraphNode, MachineGraph } from './diagram.types.js';
export { eventLabel, guardLabel } from '../../../runtime/handlers/machine-labels.js';
