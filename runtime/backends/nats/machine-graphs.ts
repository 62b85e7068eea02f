/**
 * Handler machines' graphs shared through the cluster: a worker whose run reports its machine's
 * position writes the machine's graph once into a KV bucket, under the graph's content key (see
 * `core/machine-graphs.ts`), and the observer of any node (a front that never ran the handler,
 * too) reads it from there. Content-addressed: a key always names the same graph, so a write
 * that finds the key taken is already done, and a graph read once is never read again.
 *
 * @module
 */
import type { KV } from '@nats-io/kv';
import { ensureBucket } from './ensure-stream.js';
import type { NatsConnection } from '@nats-io/transport-node';
import { GraphTable, MAX_GRAPHS } from '../../core/machine-graphs.js';
import type { MachineGraph } from '../../handlers/machine-graph.types.js';
import { isWrongLastSequence } from './errors.js';
import { nameFromPrefix } from './keys.js';

/** What a graph key looks like (base64url of a hash): anything else names no graph. */
const GRAPH_KEY = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The machines bucket of one task space, as one node uses it.
 *
 * @example
 * ```ts
 * const graphs = await MachineGraphs.open(nc, { prefix: 'tasks', replicas: 1, storage: 'file' });
 * graphs.share(key, graph);
 * await graphs.get(key); // the graph, on any node
 * ```
 */
export class MachineGraphs {
  readonly #kv: KV;
  /** Keys this node wrote (or is writing): once per key per node. */
  readonly #shared = new Set<string>();
  /** Graphs read (or shared) here: a key's graph never changes. */
  readonly #cache = new GraphTable();
  /** Keys of graphs too large to share that this node was told of, at most {@link MAX_GRAPHS}. */
  readonly #unshared = new Set<string>();

  private constructor(kv: KV) {
    this.#kv = kv;
  }

  /**
   * Creates the bucket `<stem>_machines` when missing (named and replicated as the task space's
   * other buckets) and binds to it.
   *
   * @example
   * ```ts
   * const graphs = await MachineGraphs.open(nc, layout);
   * ```
   */
  static async open(nc: NatsConnection, layout: { readonly prefix: string; readonly replicas: number; readonly storage: 'file' | 'memory' }): Promise<MachineGraphs> {
    // One entry per distinct machine definition ever run (a changed machine is a new key; none is
    // removed), each at most MAX_SHARED_GRAPH_BYTES: a handful for a real server. No max_bytes, as
    // no other bucket of the task space has one: an operator bounds the account or the stream.
    const kv = await ensureBucket(nc, `${nameFromPrefix(layout.prefix)}_machines`, { history: 1, replicas: layout.replicas, storage: layout.storage, allow_direct: false });
    return new MachineGraphs(kv);
  }

  /**
   * Writes `graph` under `key` unless this node did already; a key another node wrote is left
   * as it is. In the background: a failed write (NATS away, a graph over the message size) is
   * tried again by the next run that shares it.
   */
  share(key: string, graph: MachineGraph): void {
    this.#cache.set(key, graph);
    if (this.#shared.has(key)) return;
    this.#shared.add(key);
    this.#kv.create(key, JSON.stringify(graph)).catch((error: unknown) => {
      if (!isWrongLastSequence(error)) this.#shared.delete(key);
    });
  }

  /**
   * Notes a graph too large to share (see `core/handler-reports.ts`).
   *
   * @returns true the first time this node is told of `key` (say so then, not at every run)
   */
  unshared(key: string): boolean {
    if (this.#unshared.has(key)) return false;
    this.#unshared.add(key);
    if (this.#unshared.size > MAX_GRAPHS) this.#unshared.delete(this.#unshared.values().next().value!);
    return true;
  }

  /** The graph shared under `key` by any node; `null` when none was (or the key is malformed). */
  async get(key: string): Promise<MachineGraph | null> {
    const cached = this.#cache.get(key);
    if (cached !== null || !GRAPH_KEY.test(key)) return cached;
    const entry = await this.#kv.get(key);
    if (entry === null || entry.operation !== 'PUT') return null;
    const graph = entry.json<MachineGraph>();
    this.#cache.set(key, graph);
    return graph;
  }
}
