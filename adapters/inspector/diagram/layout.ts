/**
 * Places a {@link MachineGraph} on a plane with dagre (`@dagrejs/dagre`), the layered layout that
 * Mermaid and many graph viewers use, so `svg.ts` only has to draw.
 *
 * @module
 */
import { graphlib, layout } from './dagre.js';
import type { GraphEdge, GraphNode, MachineGraph } from './diagram.types.js';
import { clipEnd, clipStart, inside, midpoint, type Box, type Point } from './geometry.js';
import type { DiagramLayout, PlacedArrow, PlacedInitial, PlacedState } from './layout.types.js';

/**
 * Text metrics in SVG units. The SVG uses a 12px monospace font (11px for transitions), whose
 * characters are 0.6em wide, so text widths are known without a DOM to measure them.
 *
 * @example
 * ```ts
 * const width = 'working'.length * METRICS.char;
 * ```
 */
export const METRICS = { char: 7.2, line: 16, smallChar: 6.6, smallLine: 14, padX: 12, title: 28, dot: 14 } as const;

const isComposite = (node: GraphNode | undefined): boolean => node?.type === 'compound' || node?.type === 'parallel';
const textWidth = (lines: readonly string[], char: number): number => Math.max(0, ...lines.map((l) => l.length * char));

/**
 * Width and height of a box holding a title and some self-transition lines.
 *
 * @example
 * ```ts
 * boxSize('working', ['task.message']); // about { width: 103, height: 48 }
 * ```
 */
export function boxSize(title: string, lines: readonly string[]): { width: number; height: number } {
  const width = Math.max(72, textWidth([title], METRICS.char), textWidth(lines, METRICS.smallChar)) + 2 * METRICS.padX;
  return { width, height: METRICS.title + (lines.length > 0 ? lines.length * METRICS.smallLine + 6 : 0) };
}

/**
 * Lays the graph out. dagre cannot attach edges to a cluster (it throws) and routes self-loops
 * badly, so: self-transitions are written inside their state's box (UML's internal-transition
 * compartment) instead of being edges; each compound state gets a header node (its title) that
 * arrows to or from the compound attach to, and the arrow is then cut where it crosses the
 * compound's border; header → child edges keep the title above (or left of) the children.
 *
 * @param graph - from `machineGraph()`
 * @param direction - `TB` (top to bottom) or `LR` (left to right)
 * @example
 * ```ts
 * const layout = layoutGraph(machineGraph(taskMachine), 'TB');
 * layout.states.map((s) => s.node.id);
 * ```
 */
export function layoutGraph(graph: MachineGraph, direction: 'TB' | 'LR'): DiagramLayout {
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const header = (id: string): string => (isComposite(byId.get(id)) ? `${id}\u0000header` : id);
  const g = new graphlib.Graph({ compound: true, multigraph: true });
  g.setGraph({ rankdir: direction, nodesep: 24, ranksep: 40, edgesep: 12, marginx: 12, marginy: 12 });

  const selfEdges = (id: string): GraphEdge[] => graph.edges.filter((e) => e.source === id && e.target === id);
  for (const node of graph.nodes) {
    // Two extra characters for the `↻ ` that marks a self-transition which is not targetless.
    const size = boxSize(node.label, selfEdges(node.id).map((e) => (e.internal ? e.label : `↻ ${e.label}`)));
    if (isComposite(node)) g.setNode(node.id, {});
    g.setNode(header(node.id), size);
    if (isComposite(node)) g.setParent(header(node.id), node.id);
    if (node.parent !== undefined) g.setParent(node.id, node.parent);
  }
  // Start dots: one for the machine (unless parallel) and one in each compound state.
  const starts: { dot: string; target: string; parent?: string }[] = [];
  if (graph.initial !== undefined && graph.type === 'compound') starts.push({ dot: '\u0000initial', target: graph.initial });
  for (const node of graph.nodes) {
    if (node.initial !== undefined) starts.push({ dot: `${node.id}\u0000initial`, target: node.initial, parent: node.id });
  }
  for (const start of starts) {
    g.setNode(start.dot, { width: METRICS.dot, height: METRICS.dot });
    if (start.parent !== undefined) g.setParent(start.dot, start.parent);
    g.setEdge(start.dot, header(start.target), {}, 'initial');
  }

  const arrows = new Map<string, GraphEdge[]>();
  for (const edge of graph.edges) {
    if (edge.source === edge.target) continue;
    const key = `${edge.source}\n${edge.target}`;
    arrows.set(key, [...(arrows.get(key) ?? []), edge]);
  }
  for (const [key, edges] of arrows) {
    const lines = edges.map((e) => e.label);
    const label = { width: textWidth(lines, METRICS.smallChar) + 8, height: lines.length * METRICS.smallLine + 4, labelpos: 'c' as const };
    g.setEdge(header(edges[0]!.source), header(edges[0]!.target), label, key);
  }
  // Keep each compound's title ahead of the children that nothing inside the compound leads to.
  for (const node of graph.nodes.filter(isComposite)) {
    const kids = [...graph.nodes.filter((n) => n.parent === node.id).map((n) => n.id), ...starts.filter((s) => s.parent === node.id).map((s) => s.dot)];
    const entered = new Set(starts.filter((s) => s.parent === node.id).map((s) => s.target));
    for (const edge of graph.edges) if (byId.get(edge.source)?.parent === node.id) entered.add(edge.target);
    for (const kid of kids) if (!entered.has(kid)) g.setEdge(header(node.id), header(kid), {}, 'header');
  }

  layout(g);

  const center = (id: string): Point => ({ x: g.node(id).x ?? 0, y: g.node(id).y ?? 0 });
  const boxOf = (id: string): Box => {
    const n = g.node(id);
    return { x: (n.x ?? 0) - n.width / 2, y: (n.y ?? 0) - n.height / 2, width: n.width, height: n.height };
  };
  const states = graph.nodes.map((node): PlacedState => {
    return { node, box: boxOf(node.id), header: boxOf(header(node.id)), selfEdges: selfEdges(node.id) };
  });
  // dagre routes between leaves (headers stand in for compounds); cut at the compound's border.
  const route = (v: string, w: string, name: string, from?: string, to?: string): Point[] => {
    let points: Point[] = (g.edge(v, w, name)?.points ?? []).map((p) => ({ x: p.x, y: p.y }));
    if (from !== undefined && isComposite(byId.get(from))) points = clipStart(points, boxOf(from));
    if (to !== undefined && isComposite(byId.get(to))) points = clipEnd(points, boxOf(to));
    return points;
  };
  return {
    width: g.graph().width ?? 0,
    height: g.graph().height ?? 0,
    states,
    arrows: [...arrows].map(([key, edges]): PlacedArrow => {
      const { source, target } = edges[0]!;
      const placed = g.edge(header(source), header(target), key);
      const points = route(header(source), header(target), key, source, target);
      // dagre put the label on the whole route; when that part lies in a compound and was cut
      // away, the label moves onto the part that is drawn.
      let label: Point = { x: placed?.x ?? 0, y: placed?.y ?? 0 };
      const cut = [source, target].some((id) => isComposite(byId.get(id)) && inside(label, boxOf(id)));
      if (cut && points.length > 1) label = midpoint(points);
      return { source, target, edges, points, label };
    }),
    initials: starts.map((s): PlacedInitial => ({
      target: s.target,
      dot: center(s.dot),
      points: route(s.dot, header(s.target), 'initial', undefined, s.target),
    })),
  };
}
