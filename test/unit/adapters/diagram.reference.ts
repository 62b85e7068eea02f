/**
 * What a diagram must show, read straight from a machine definition, and the real parsers that
 * read a diagram back: Mermaid's own parser for the Mermaid text, the DOM's XML parser for the SVG.
 * Test files that use these need a DOM (`// @vitest-environment jsdom`): Mermaid loads DOMPurify.
 */
import mermaid from 'mermaid';
import type { AnyStateMachine, AnyStateNode } from 'xstate';

/** A state as the machine defines it. */
export interface DefinedState {
  readonly id: string;
  readonly parent: string | undefined;
  readonly type: string;
  readonly initial: string | undefined;
}

/** A transition as the machine defines it, spread to where it is drawn from. */
export interface DefinedTransition {
  readonly source: string;
  readonly target: string;
  readonly event: string;
  /** The event as the diagrams promise to show it. */
  readonly readable: string;
  readonly guarded: boolean;
}

/**
 * Every state and every transition of a machine, walking `machine.root` recursively: `on`,
 * `onDone`, invoke `onDone`/`onError`, `after` (all in `transitions`) and `always`. The drawing
 * rule under test: the root is no box, so its transitions start at each top-level state that is
 * neither final nor history; a targetless transition goes from a state to itself.
 */
export function definitionOf(machine: AnyStateMachine): { states: DefinedState[]; transitions: DefinedTransition[] } {
  const root = machine.root as AnyStateNode;
  const id = (node: AnyStateNode): string => [machine.id, ...node.path].join('.');
  const states: DefinedState[] = [];
  const transitions: DefinedTransition[] = [];
  const actors = new Map<string, string>();
  const all = (node: AnyStateNode): AnyStateNode[] => [node, ...Object.values(node.states).flatMap(all)];
  for (const node of all(root)) {
    node.invoke.forEach((invoke, i) => {
      // An invoked actor is known by its id when one is given, else by its source's name.
      const src = typeof invoke.src === 'string' && !invoke.src.startsWith('xstate.invoke.') ? invoke.src : `invoke[${i}]`;
      actors.set(invoke.id, invoke.id === `${i}.${node.id}` ? src : invoke.id);
    });
  }
  const walk = (node: AnyStateNode): void => {
    const kids = Object.values(node.states);
    if (node !== root) {
      const first = node.type === 'compound' ? node.initial.target[0] : undefined;
      states.push({ id: id(node), parent: node.parent === root ? undefined : id(node.parent!), type: node.type, initial: first && id(first) });
    }
    const sources = node === root && kids.length > 0 ? kids.filter((k) => k.type !== 'final' && k.type !== 'history') : [node];
    for (const t of [...[...node.transitions.values()].flat(), ...(node.always ?? [])]) {
      for (const source of sources) {
        for (const target of t.target ?? [source]) {
          const delay = (t as { delay?: unknown }).delay;
          transitions.push({ source: id(source), target: id(target), event: t.eventType, readable: readable(t.eventType, actors, delay), guarded: t.guard !== undefined });
        }
      }
    }
    kids.forEach(walk);
  };
  walk(root);
  return { states, transitions };
}

/** The readable event the diagrams promise: `done: <actor>`, `error: <actor>`, `after 5ms`, `always`. */
export function readable(event: string, actors: ReadonlyMap<string, string> = new Map(), delay?: unknown): string {
  if (event === '') return 'always';
  const actor = /^xstate\.(done|error)\.actor\.(.+)$/.exec(event);
  if (actor) return `${actor[1]}: ${actors.get(actor[2]!) ?? actor[2]}`;
  if (event.startsWith('xstate.done.state.')) return 'done';
  if (event.startsWith('xstate.after.')) return typeof delay === 'number' ? `after ${delay}ms` : `after ${String(delay)}`;
  return event;
}

/** Whether a drawn label is this transition's: its readable event, plus ` [guard]` when guarded. */
export const labelMatches = (label: string, t: DefinedTransition): boolean =>
  t.guarded ? label.startsWith(`${t.readable} [`) && label.endsWith(']') : label === t.readable;

/** A Mermaid diagram as Mermaid's parser understood it, with machine paths for state ids. */
export interface ParsedMermaid {
  readonly states: { path: string; parent: string | undefined; classes: string[] }[];
  readonly edges: { source: string; target: string; label: string }[];
  /** `[*] --> x` arrows: x's path, keyed by the enclosing state's path (`''` for the diagram). */
  readonly starts: Map<string, string>;
  /** States with an arrow to `[*]`. */
  readonly ends: Set<string>;
}

// Mermaid keeps `#59;`-style entity codes as placeholders until it draws; turn them back.
const decode = (s: string): string => s.replace(/ﬂ°°(\d+)¶ß/g, (_, code: string) => String.fromCharCode(Number(code)));

/**
 * Parses with mermaid's own parser (it throws on a syntax error), then reads its model back:
 * states with their nesting (paths are rebuilt from the shown labels, not from Mermaid's ids),
 * arrows with their labels, start and end pseudo-states.
 */
export async function parseMermaid(text: string, machineId: string): Promise<ParsedMermaid> {
  await mermaid.parse(text);
  const diagram = await mermaid.mermaidAPI.getDiagramFromText(text);
  const data = (diagram.db as any).getData() as {
    nodes: { id: string; label: string; parentId?: string; shape: string; cssClasses: string }[];
    edges: { start: string; end: string; label: string }[];
  };
  const byId = new Map(data.nodes.map((n) => [n.id, n]));
  const isPseudo = (id: string): boolean => ['stateStart', 'stateEnd'].includes(byId.get(id)?.shape ?? '');
  // Parallel regions sit in Mermaid "divider" groups, which are not states.
  const parentOf = (id: string): string | undefined => {
    let parent = byId.get(id)?.parentId;
    while (parent !== undefined && byId.get(parent)?.shape === 'divider') parent = byId.get(parent)?.parentId;
    return parent;
  };
  const path = (id: string): string => {
    const parent = parentOf(id);
    // History states are shown as `key (H)` / `key (H*)`; their path has the bare key.
    const key = decode(byId.get(id)!.label).replace(/ \(H\*?\)$/, '');
    return `${parent === undefined ? machineId : path(parent)}.${key}`;
  };
  const stateNodes = data.nodes.filter((n) => !isPseudo(n.id) && n.shape !== 'divider');
  const starts = new Map<string, string>();
  const ends = new Set<string>();
  const edges: ParsedMermaid['edges'] = [];
  for (const e of data.edges) {
    if (byId.get(e.start)?.shape === 'stateStart') {
      const parent = parentOf(e.start);
      starts.set(parent === undefined ? '' : path(parent), path(e.end));
    } else if (byId.get(e.end)?.shape === 'stateEnd') ends.add(path(e.start));
    else edges.push({ source: path(e.start), target: path(e.end), label: decode(e.label) });
  }
  return {
    states: stateNodes.map((n) => {
      const parent = parentOf(n.id);
      return { path: path(n.id), parent: parent === undefined ? undefined : path(parent), classes: n.cssClasses.split(/\s+/).filter(Boolean) };
    }),
    edges,
    starts,
    ends,
  };
}

/** The parts of jsdom's DOM the tests read (the project compiles without the DOM lib). */
export interface SvgElement {
  getAttribute(name: string): string | null;
  readonly textContent: string | null;
}
/** An XML document as the tests read it. */
export interface SvgDocument {
  readonly documentElement: SvgElement;
  querySelector(selector: string): SvgElement | null;
  querySelectorAll(selector: string): ArrayLike<SvgElement> & Iterable<SvgElement>;
}

/** An SVG document parsed as XML by the DOM's parser; throws when it is not well-formed. */
export function parseSvg(svg: string): SvgDocument {
  const { DOMParser } = globalThis as any;
  const doc = new DOMParser().parseFromString(svg, 'image/svg+xml');
  const error = doc.getElementsByTagName('parsererror')[0];
  if (error) throw new Error(`SVG is not well-formed: ${error.textContent ?? ''}`);
  return doc as SvgDocument;
}

/** `source → target : event` keys counted, to compare two lists of transitions as multisets. */
export function countBy<T>(items: readonly T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}
