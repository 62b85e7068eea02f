/**
 * Mermaid `stateDiagram-v2` text for a {@link MachineGraph}: paste it into any Markdown viewer that
 * renders Mermaid (GitHub does), or feed it to `mermaid.render()`.
 *
 * @module
 */
import type { DiagramOptions, GraphEdge, GraphNode, MachineGraph } from './diagram.types.js';

// Words Mermaid's state-diagram lexer takes as keywords wherever an id may stand (checked against
// mermaid 11's parser in the tests); a state with such a key gets a `_` appended.
const RESERVED = new Set(['as', 'class', 'classdef', 'click', 'default', 'href', 'note', 'scale', 'state', 'statediagram', 'style']);

// `;` ends a Mermaid statement, `#…;` is an entity, `<`/`>` are taken as HTML and `"` closes a
// quoted label: those become Mermaid entity codes, which it turns back into the characters when
// it draws. Everything else (`:`, `[`, `{`, `*`) is shown as written.
const text = (s: string): string =>
  s.replace(/\s+/g, ' ').trim().replace(/[#;<>"]/g, (c) => `#${c.charCodeAt(0)};`);

/** Mermaid ids: unique, `[A-Za-z0-9_]` only, never a keyword nor a name Mermaid makes for `[*]`. */
function mermaidIds(graph: MachineGraph): Map<string, string> {
  const ids = new Map<string, string>();
  const used = new Set<string>();
  for (const node of graph.nodes) {
    const path = node.id === graph.id ? [node.key] : node.id.slice(graph.id.length + 1).split('.');
    let id = path.map((segment) => segment.replace(/[^A-Za-z0-9_]/g, '_')).join('__') || '_';
    // Mermaid names the start and end of a composite `<id>_start` / `<id>_end`.
    if (RESERVED.has(id.toLowerCase()) || /_(start|end)$/.test(id)) id = `${id}_`;
    let unique = id;
    for (let n = 2; used.has(unique); n += 1) unique = `${id}_${n}`;
    used.add(unique);
    ids.set(node.id, unique);
  }
  return ids;
}

// Mermaid makes a state the child of the last block that mentions it (a mention at the top level
// changes nothing), so an arrow is written inside a block only between two of that block's own
// children, and at the top level otherwise. A parallel state's blocks are its regions: arrows
// between them also go to the top level.
function blockOf(edge: GraphEdge, byId: ReadonlyMap<string, GraphNode>): string | undefined {
  const parent = byId.get(edge.source)?.parent;
  if (parent === undefined || byId.get(edge.target)?.parent !== parent) return undefined;
  return byId.get(parent)?.type === 'parallel' ? undefined : parent;
}

/**
 * The machine as Mermaid `stateDiagram-v2` text: `[*] --> initial`, one `a --> b : label` line per
 * edge (targetless transitions as self-loops), `x --> [*]` for final states, compound states as
 * `state x { … }`, parallel regions separated by `--`, and the `highlight`ed states in class
 * `current`. Ids are the states' paths with `__` for nesting (`polling__fetching`), with the key
 * as the shown label, because Mermaid ids are global to a diagram and keys repeat across boxes.
 *
 * @param graph - from `machineGraph(machine)`
 * @param options - `highlight`: state ids to draw as current
 * @returns the diagram text, ending with a newline
 * @example
 * ```ts
 * import { taskMachine } from 'mcp-task-actors/machines';
 * process.stdout.write(toMermaid(machineGraph(taskMachine), { highlight: ['task.working'] }));
 * // stateDiagram-v2
 * //   [*] --> submitted
 * //   submitted --> working : task.start
 * //   …
 * ```
 */
export function toMermaid(graph: MachineGraph, options: DiagramOptions = {}): string {
  const ids = mermaidIds(graph);
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const m = (id: string): string => ids.get(id) ?? '[*]';
  const lines = ['stateDiagram-v2'];
  // A top-level state that no arrow mentions must still be declared, or Mermaid never draws it.
  const mentioned = new Set(graph.edges.flatMap((e) => [e.source, e.target]));

  const block = (parent: GraphNode | undefined, depth: number): void => {
    const pad = '  '.repeat(depth);
    const kids = graph.nodes.filter((n) => n.parent === parent?.id);
    kids.forEach((kid, i) => {
      if (parent?.type === 'parallel' && i > 0) lines.push(`${pad}--`);
      const composite = kid.type === 'compound' || kid.type === 'parallel';
      if (parent !== undefined || kid.label !== ids.get(kid.id)) lines.push(`${pad}state "${text(kid.label)}" as ${m(kid.id)}`);
      else if (!composite && !mentioned.has(kid.id) && kid.id !== graph.initial && kid.type !== 'final') lines.push(`${pad}${m(kid.id)}`);
      if (composite) {
        lines.push(`${pad}state ${m(kid.id)} {`);
        block(kid, depth + 1);
        lines.push(`${pad}}`);
      }
      // A region is a run of lines between `--`: its end arrow must be written inside it.
      if (parent?.type === 'parallel' && kid.type === 'final') lines.push(`${pad}${m(kid.id)} --> [*]`);
    });
    // A parallel state enters all its regions at once: no single initial arrow.
    if (parent === undefined && graph.type === 'parallel') for (const kid of kids) lines.push(`${pad}[*] --> ${m(kid.id)}`);
    const initial = parent === undefined ? graph.initial : parent.initial;
    if (initial !== undefined && (parent !== undefined || graph.type !== 'parallel')) lines.push(`${pad}[*] --> ${m(initial)}`);
    if (parent?.type === 'parallel') return;
    for (const edge of graph.edges) {
      if (blockOf(edge, byId) !== parent?.id) continue;
      lines.push(`${pad}${m(edge.source)} --> ${m(edge.target)} : ${text(edge.label)}`);
    }
    for (const kid of kids) if (kid.type === 'final') lines.push(`${pad}${m(kid.id)} --> [*]`);
  };

  block(undefined, 1);
  const current = (options.highlight ?? []).flatMap((id) => ids.get(id) ?? []);
  if (current.length > 0) {
    lines.push('  classDef current fill:#fde68a,stroke:#b45309,stroke-width:2px', `  class ${current.join(',')} current`);
  }
  return `${lines.join('\n')}\n`;
}
