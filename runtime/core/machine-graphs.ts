/**
 * Handler machines' graphs as they are shared: under a hash of their content, so every node that
 * runs the same machine definition names it alike (and writes it once), and a changed machine
 * gets a new key (a task keeps pointing at the picture of the machine it ran); and a bounded table
 * of them, for a process that holds them (the memory backend, a NATS observer's cache).
 *
 * @module
 */
import { createHash } from 'node:crypto';
import type { MachineGraph } from '../handlers/machine-graph.types.js';

/**
 * The largest graph shared, in bytes of its JSON: 256 KiB, a machine of some thousand states. A
 * larger one is not shared (a KV entry, and every observer's copy, would carry it): the task's
 * position still moves, and observers show its states without the picture.
 */
export const MAX_SHARED_GRAPH_BYTES = 256 * 1024;

/** A graph's content key and the size of its JSON. */
export interface GraphShare {
  readonly key: string;
  readonly bytes: number;
}

/** Computed once per graph object: a handler reports the same graph at every state. */
const shares = new WeakMap<MachineGraph, GraphShare>();

/**
 * A graph's content key (sha256 of its JSON, base64url, 32 characters: 192 bits) and the size of
 * its JSON, which says whether it is shared at all (see {@link MAX_SHARED_GRAPH_BYTES}).
 *
 * @param graph - a machine's graph (`machineGraph(machine)`)
 * @example
 * ```ts
 * const { key, bytes } = graphShare(machineGraph(longJobMachine)); // 'x1Y2…' (32 characters)
 * ```
 */
export function graphShare(graph: MachineGraph): GraphShare {
  let share = shares.get(graph);
  if (share === undefined) {
    const json = JSON.stringify(graph);
    share = { key: createHash('sha256').update(json, 'utf8').digest('base64url').slice(0, 32), bytes: Buffer.byteLength(json, 'utf8') };
    shares.set(graph, share);
  }
  return share;
}

/**
 * The most graphs a {@link GraphTable} holds. There is one graph per machine definition a process
 * runs or shows, so a real server holds a handful; the bound is for a process fed ever new
 * definitions (generated machines). The oldest is dropped first: a task whose graph was dropped
 * still shows its states, without the picture.
 */
export const MAX_GRAPHS = 1_000;

/**
 * Graphs by key, at most {@link MAX_GRAPHS}, oldest dropped first.
 *
 * @example
 * ```ts
 * const graphs = new GraphTable();
 * graphs.set(graphShare(graph).key, graph);
 * graphs.get(key); // the graph, or null
 * ```
 */
export class GraphTable {
  readonly #graphs = new Map<string, MachineGraph>();

  constructor(private readonly max = MAX_GRAPHS) {}

  /** Keeps `graph` under `key` (content-addressed: a key already held keeps its graph). */
  set(key: string, graph: MachineGraph): void {
    if (this.#graphs.has(key)) return;
    this.#graphs.set(key, graph);
    if (this.#graphs.size > this.max) this.#graphs.delete(this.#graphs.keys().next().value!);
  }

  /** The graph under `key`; `null` when none is held. */
  get(key: string): MachineGraph | null {
    return this.#graphs.get(key) ?? null;
  }

  /** Whether a graph is held under `key`. */
  has(key: string): boolean {
    return this.#graphs.has(key);
  }

  /** How many graphs are held. */
  get size(): number {
    return this.#graphs.size;
  }
}
