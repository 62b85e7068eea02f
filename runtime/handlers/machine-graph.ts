/**
 * Reads any XState v5 machine definition into a {@link MachineGraph}: the picture is derived from
 * the machine itself, so a change to the machine changes the picture.
 *
 * @module
 */
import type { AnyStateMachine, AnyStateNode, AnyTransitionDefinition } from 'xstate';
import type { GraphEdge, GraphNode, MachineGraph } from './machine-graph.types.js';
import { eventLabel, guardLabel } from './machine-labels.js';

interface Walk {
  readonly machineId: string;
  readonly root: AnyStateNode;
  readonly actorNames: Map<string, string>;
  readonly nodes: GraphNode[];
  readonly edges: Omit<GraphEdge, 'id'>[];
}

const idOf = (walk: Walk, node: AnyStateNode): string => [walk.machineId, ...node.path].join('.');
const children = (node: AnyStateNode): AnyStateNode[] => Object.values(node.states);
const hasBox = (walk: Walk, node: AnyStateNode): boolean => node !== walk.root || children(node).length === 0;

// Invoke ids that xstate generates (`0.task.working`) mean nothing to a reader; the actor's name does.
function nameActors(walk: Walk, node: AnyStateNode): void {
  node.invoke.forEach((invoke, i) => {
    const src = typeof invoke.src === 'string' && !invoke.src.startsWith('xstate.invoke.') ? invoke.src : `invoke[${i}]`;
    walk.actorNames.set(invoke.id, invoke.id === `${i}.${node.id}` ? src : invoke.id);
  });
}

/**
 * Where a transition declared on `node` is drawn from. A transition declared on a state applies
 * while any of its descendants is active. A state with a box draws it once, from its box. The
 * root has no box (the diagram itself stands for it), so its transitions are drawn from each
 * top-level state that can be active when one of them fires: every one except final states (a
 * machine in a final state is done and takes no events) and history pseudo-states (never active).
 * For the task machine this draws the handler's `done`/`error` arrows from `submitted`, `working`
 * and `input_required` to `completed`/`failed`, which is what they mean.
 */
function sourcesOf(walk: Walk, node: AnyStateNode): AnyStateNode[] {
  if (hasBox(walk, node)) return [node];
  return children(node).filter((child) => child.type !== 'final' && child.type !== 'history');
}

// Entering the box-less root means entering the state(s) it starts in.
function targetsOf(walk: Walk, transition: AnyTransitionDefinition): AnyStateNode[] | undefined {
  return transition.target?.flatMap((target: AnyStateNode) => {
    if (hasBox(walk, target)) return [target];
    const initial: AnyStateNode[] = [...target.initial.target];
    return initial.length > 0 ? initial : sourcesOf(walk, target);
  });
}

function addTransition(walk: Walk, node: AnyStateNode, transition: AnyTransitionDefinition): void {
  // Typed by xstate as the machine's event union; for any machine it is a plain string.
  const event = String(transition.eventType);
  const guard = guardLabel(transition.guard);
  const delay = 'delay' in transition ? transition.delay : undefined;
  const label = `${eventLabel(event, walk.actorNames, delay)}${guard === undefined ? '' : ` [${guard}]`}`;
  const targets = targetsOf(walk, transition);
  for (const source of sourcesOf(walk, node)) {
    for (const target of targets ?? [source]) {
      walk.edges.push({
        source: idOf(walk, source),
        target: idOf(walk, target),
        event,
        label,
        ...(guard === undefined ? {} : { guard }),
        internal: targets === undefined,
        declaredOn: idOf(walk, node),
      });
    }
  }
}

function visit(walk: Walk, node: AnyStateNode): void {
  if (hasBox(walk, node)) {
    const initial = node.type === 'compound' ? node.initial.target[0] : undefined;
    walk.nodes.push({
      id: idOf(walk, node),
      key: node.key,
      // History is a pseudo-state: UML marks it H (shallow) or H* (deep).
      label: node.type === 'history' ? `${node.key} (${node.history === 'deep' ? 'H*' : 'H'})` : node.key,
      type: node.type,
      ...(node.parent && node.parent !== walk.root ? { parent: idOf(walk, node.parent) } : {}),
      ...(initial ? { initial: idOf(walk, initial) } : {}),
    });
  }
  // `transitions` holds `on`, `onDone`, invoke `onDone`/`onError`/`onSnapshot` and `after`, in that
  // order; eventless `always` transitions are kept apart by xstate.
  for (const list of node.transitions.values()) for (const t of list) addTransition(walk, node, t);
  for (const t of node.always ?? []) addTransition(walk, node, t);
  for (const child of children(node)) visit(walk, child);
}

/**
 * Reads a machine definition into boxes and arrows. Works for any XState v5 machine: nested and
 * parallel states, final and history states, guarded, targetless, eventless (`always`) and
 * delayed (`after`) transitions, and invoke `onDone`/`onError` on any state, the root included.
 *
 * @param machine - the machine (e.g. `taskMachine`); its implementations are never run
 * @returns nodes (parents first, in definition order) and edges (grouped by source state)
 * @example
 * ```ts
 * import { taskMachine } from 'mcp-task-actors/machines';
 * const graph = machineGraph(taskMachine);
 * graph.edges.find((e) => e.source === 'task.working' && e.target === 'task.completed')?.label;
 * // 'task.complete'
 * ```
 */
export function machineGraph(machine: AnyStateMachine): MachineGraph {
  const root = machine.root as AnyStateNode;
  const walk: Walk = { machineId: machine.id, root, actorNames: new Map(), nodes: [], edges: [] };
  // Actor names first: a transition may name an actor invoked further down the tree.
  const all = (node: AnyStateNode): AnyStateNode[] => [node, ...children(node).flatMap(all)];
  for (const node of all(root)) nameActors(walk, node);
  visit(walk, root);
  // Grouped by source state, in box order, its own transitions before those spread from the root,
  // so that the Mermaid text reads state by state; otherwise in definition order (sort is stable).
  const order = new Map(walk.nodes.map((node, i) => [node.id, i]));
  const rank = (e: Omit<GraphEdge, 'id'>): number => (order.get(e.source) ?? 0) * 2 + (e.declaredOn === e.source ? 0 : 1);
  const edges = walk.edges.sort((a, b) => rank(a) - rank(b)).map((edge, i) => ({ id: `e${i}`, ...edge }));
  const type = root.type === 'parallel' ? 'parallel' : children(root).length === 0 ? 'atomic' : 'compound';
  const first = type === 'atomic' ? root : root.initial.target[0];
  return { id: machine.id, type, ...(first ? { initial: idOf(walk, first) } : {}), nodes: walk.nodes, edges };
}

