/**
 * A self-contained SVG drawing of a {@link MachineGraph}: laid out by dagre, styled by an embedded
 * `<style>`, no script and no external resource, so it renders on its own or inlined in a page.
 *
 * @module
 */
import type { DiagramOptions, GraphEdge, MachineGraph } from './diagram.types.js';
import { pathData } from './geometry.js';
import { layoutGraph, METRICS } from './layout.js';
import type { PlacedArrow, PlacedInitial, PlacedState } from './layout.types.js';

/**
 * Options of {@link toSvg}.
 *
 * @example
 * ```ts
 * const options: SvgOptions = { highlight: ['task.working'], direction: 'LR' };
 * ```
 */
export interface SvgOptions extends DiagramOptions {
  /**
   * `TB` lays states out top to bottom, `LR` left to right.
   * @default 'TB'
   */
  readonly direction?: 'TB' | 'LR';
}

const esc = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
const n = (v: number): string => String(Math.round(v * 10) / 10);

// Every rule starts with `.machine-diagram` so that an SVG inlined in a page styles only itself.
const STYLE = `
.machine-diagram{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",monospace;font-size:12px}
.machine-diagram .state>.box{fill:#fff;stroke:#475569;stroke-width:1.2}
.machine-diagram .state.compound>.box,.machine-diagram .state.parallel>.box{fill:#f1f5f9}
.machine-diagram .state.parallel>.box{stroke-dasharray:6 3}
.machine-diagram .state>.inner{fill:none;stroke:#475569;stroke-width:1}
.machine-diagram .state>.divider{stroke:#cbd5e1}
.machine-diagram .state>.label{fill:#0f172a;text-anchor:middle;font-weight:600}
.machine-diagram .state.current>.box{fill:#fde68a;stroke:#b45309;stroke-width:2.5}
.machine-diagram .state.compound.current>.box,.machine-diagram .state.parallel.current>.box{fill:#fefce8}
.machine-diagram .edge{fill:none;stroke:#64748b;stroke-width:1.2}
.machine-diagram .transition text{fill:#334155;font-size:11px;text-anchor:middle}
.machine-diagram .transition>.bg{fill:#fff;fill-opacity:.85}
.machine-diagram .arrow.current>.edge{stroke:#b45309;stroke-width:2.5}
.machine-diagram .transition.current text{fill:#b45309;font-weight:600}
.machine-diagram .initial>circle,.machine-diagram .arrowhead{fill:#334155}
`;

// data-* attributes are the contract with the inspector page: keep their names stable.
const edgeData = (e: GraphEdge): string =>
  `data-edge="${esc(e.id)}" data-event="${esc(e.event)}" data-source="${esc(e.source)}" data-target="${esc(e.target)}"`;

// Arrow labels get a backdrop so that crossing lines do not hide them; lines inside a box do not
// need one. Inside a box, `↻` marks a self-transition that exits and re-enters the state, unlike a
// targetless (`internal`) one.
function transitionLines(edges: readonly GraphEdge[], x: number, top: number, inBox: boolean): string[] {
  return edges.map((e, i) => {
    const y = top + i * METRICS.smallLine;
    const text = inBox && !e.internal ? `↻ ${e.label}` : e.label;
    const w = text.length * METRICS.smallChar + 6;
    const bg = inBox ? '' : `<rect class="bg" x="${n(x - w / 2)}" y="${n(y - 11)}" width="${n(w)}" height="${METRICS.smallLine}"/>`;
    const cls = inBox ? (e.internal ? ' internal' : ' self') : '';
    return `<g class="transition${cls}" ${edgeData(e)}>${bg}<text x="${n(x)}" y="${n(y)}">${esc(text)}</text></g>`;
  });
}

function drawState(s: PlacedState, current: ReadonlySet<string>): string {
  const { node, box } = s;
  const cls = `state ${node.type}${current.has(node.id) ? ' current' : ''}`;
  const parts = [
    `<g class="${cls}" data-state="${esc(node.id)}">`,
    `<title>${esc(node.id)}</title>`,
    `<rect class="box" x="${n(box.x)}" y="${n(box.y)}" width="${n(box.width)}" height="${n(box.height)}" rx="8"/>`,
  ];
  // A final state has a double border, as in the XState visualiser.
  if (node.type === 'final') parts.push(`<rect class="inner" x="${n(box.x + 3)}" y="${n(box.y + 3)}" width="${n(box.width - 6)}" height="${n(box.height - 6)}" rx="6"/>`);
  const { header } = s;
  const cx = header.x + header.width / 2;
  parts.push(`<text class="label" x="${n(cx)}" y="${n(header.y + 18)}">${esc(node.label)}</text>`);
  if (s.selfEdges.length > 0) {
    const y = header.y + METRICS.title - 2;
    parts.push(`<line class="divider" x1="${n(header.x + 4)}" y1="${n(y)}" x2="${n(header.x + header.width - 4)}" y2="${n(y)}"/>`);
    parts.push(...transitionLines(s.selfEdges, cx, y + METRICS.smallLine - 2, true));
  }
  parts.push('</g>');
  return parts.join('');
}

function drawArrow(a: PlacedArrow, marker: string): string {
  const top = a.label.y - ((a.edges.length - 1) * METRICS.smallLine) / 2 + 4;
  return [
    `<g class="arrow" data-source="${esc(a.source)}" data-target="${esc(a.target)}">`,
    `<path class="edge" d="${pathData(a.points)}" marker-end="url(#${marker})"/>`,
    ...transitionLines(a.edges, a.label.x, top, false),
    '</g>',
  ].join('');
}

const drawInitial = (i: PlacedInitial, marker: string): string =>
  `<g class="initial" data-target="${esc(i.target)}"><circle cx="${n(i.dot.x)}" cy="${n(i.dot.y)}" r="5"/>` +
  `<path class="edge" d="${pathData(i.points)}" marker-end="url(#${marker})"/></g>`;

/**
 * The machine as a standalone SVG document. Its structure is an interface of its own, used by the
 * inspector page to highlight a task's state live, and kept stable:
 *
 * - `<svg class="machine-diagram" data-machine="<machine id>">`
 * - one `<g class="state <type>" data-state="<state id>">` per state (`type` is `atomic`,
 *   `compound`, `parallel`, `final` or `history`), holding `rect.box`, `text.label` and one line
 *   per self-transition: `g.transition.internal` (targetless) or `g.transition.self` (re-entering);
 *   parents come before children;
 * - one `<g class="arrow" data-source data-target>` per pair of states, holding `path.edge` and
 *   one `<g class="transition" data-edge data-event data-source data-target>` per transition;
 * - `<g class="initial" data-target>` for each start dot.
 *
 * Adding the class `current` to a `g.state` (or a `g.arrow`, `g.transition`) highlights it; the
 * `highlight` option does that for the given state ids. The SVG uses a monospace font so that text
 * sizes are known without a browser.
 *
 * @param graph - from `machineGraph(machine)`
 * @param options - `highlight`: state ids drawn as current; `direction`: `TB` (default) or `LR`
 * @returns the SVG document text, ending with a newline
 * @example
 * ```ts
 * import { taskMachine } from 'mcp-task-actors/machines';
 * const svg = toSvg(machineGraph(taskMachine), { highlight: ['task.working'] });
 * // in a page: svg.querySelector('g.state[data-state="task.failed"]')?.classList.add('current');
 * ```
 */
export function toSvg(graph: MachineGraph, options: SvgOptions = {}): string {
  const layout = layoutGraph(graph, options.direction ?? 'TB');
  const current = new Set(options.highlight ?? []);
  const marker = `arrow-${graph.id.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  const { width, height } = layout;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" class="machine-diagram" data-machine="${esc(graph.id)}" width="${n(width)}" height="${n(height)}" viewBox="0 0 ${n(width)} ${n(height)}" role="img" aria-label="${esc(`state machine ${graph.id}`)}">`,
    `<style>${STYLE}</style>`,
    `<defs><marker id="${marker}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path class="arrowhead" d="M0 0L10 5L0 10z"/></marker></defs>`,
    ...layout.states.map((s) => drawState(s, current)),
    ...layout.initials.map((i) => drawInitial(i, marker)),
    ...layout.arrows.map((a) => drawArrow(a, marker)),
    '</svg>',
    '',
  ].join('\n');
}
