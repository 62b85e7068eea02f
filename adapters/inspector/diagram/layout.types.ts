/**
 * What `layoutGraph()` returns: every box, arrow and start dot of a diagram with its position.
 *
 * @module
 */
import type { GraphEdge, GraphNode } from './diagram.types.js';
import type { Box, Point } from './geometry.js';

/**
 * A state's box and the self-transitions written inside it.
 *
 * @example
 * ```ts
 * const working = layoutGraph(graph, 'TB').states.find((s) => s.node.id === 'task.working');
 * ```
 */
export interface PlacedState {
  readonly node: GraphNode;
  readonly box: Box;
  /** The band holding the title and the self-transitions: the whole box, or a compound's first rank. */
  readonly header: Box;
  readonly selfEdges: readonly GraphEdge[];
}

/**
 * One arrow between two states, carrying every transition between them (in definition order).
 *
 * @example
 * ```ts
 * const toFailed = layoutGraph(graph, 'TB').arrows.filter((a) => a.target === 'task.failed');
 * ```
 */
export interface PlacedArrow {
  readonly source: string;
  readonly target: string;
  readonly edges: readonly GraphEdge[];
  readonly points: readonly Point[];
  /** Centre of the stacked labels. */
  readonly label: Point;
}

/**
 * The start dot of the machine or of a compound state, and its arrow to the initial state.
 *
 * @example
 * ```ts
 * layoutGraph(graph, 'TB').initials[0]?.target; // 'task.submitted'
 * ```
 */
export interface PlacedInitial {
  readonly target: string;
  readonly dot: Point;
  readonly points: readonly Point[];
}

/**
 * Everything positioned, in SVG user units, origin top-left.
 *
 * @example
 * ```ts
 * const { width, height } = layoutGraph(graph, 'LR');
 * ```
 */
export interface DiagramLayout {
  readonly width: number;
  readonly height: number;
  readonly states: readonly PlacedState[];
  readonly arrows: readonly PlacedArrow[];
  readonly initials: readonly PlacedInitial[];
}
