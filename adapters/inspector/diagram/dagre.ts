/**
 * The layered graph layout of `@dagrejs/dagre` (pure JavaScript, no DOM), typed for this folder.
 *
 * @module
 */
import dagre from '@dagrejs/dagre';
import type { Point } from './geometry.js';

// dagre 3 ships .d.ts files whose relative imports have no extension, which `NodeNext` cannot
// resolve, so its types arrive unresolved. These are the few calls used here, typed by hand, and
// exercised by the diagram tests.

/**
 * A node as dagre reads (size) and writes (centre) it.
 *
 * @example
 * ```ts
 * g.setNode('task.working', { width: 96, height: 28 });
 * ```
 */
export interface DagreNode {
  x?: number;
  y?: number;
  width: number;
  height: number;
}

/**
 * An edge as dagre writes it: its route and its label's centre.
 *
 * @example
 * ```ts
 * const route = g.edge('task.submitted', 'task.working', 'task.submitted\ntask.working')?.points;
 * ```
 */
export interface DagreEdge {
  points?: Point[];
  x?: number;
  y?: number;
}

/**
 * The graphlib graph methods used here.
 *
 * @example
 * ```ts
 * const g: DagreGraph = new graphlib.Graph({ compound: true, multigraph: true });
 * ```
 */
export interface DagreGraph {
  setGraph(label: Record<string, unknown>): void;
  setNode(id: string, label: Partial<DagreNode>): void;
  setParent(id: string, parent: string): void;
  setEdge(v: string, w: string, label: Record<string, unknown>, name: string): void;
  node(id: string): DagreNode;
  edge(v: string, w: string, name: string): DagreEdge | undefined;
  graph(): { width?: number; height?: number };
}

interface Dagre {
  graphlib: { Graph: new (options: { compound: boolean; multigraph: boolean }) => DagreGraph };
  layout: (graph: DagreGraph) => void;
}

/**
 * dagre's graph class and layout function, typed.
 *
 * @example
 * ```ts
 * const g = new graphlib.Graph({ compound: true, multigraph: true });
 * g.setGraph({ rankdir: 'TB' });
 * layout(g);
 * ```
 */
export const { graphlib, layout } = dagre as unknown as Dagre;
