/**
 * Which handlers the live workers of a task space serve, as a front node sees it: every worker
 * (and `both`) node announces its handler names in its heartbeat record (see `node-registry.ts`);
 * a front follows the node bucket and keeps the latest record of each node, so asking whether a
 * handler is served costs no request (the create path asks). A node is live while its heartbeat is
 * younger than {@link LIVE_MS}; a node that stops cleanly removes its record at once.
 *
 * The followed view may be behind (a watch broken by a reconnect): a decision that ends a task is
 * taken on {@link WorkerAnnouncements.confirm}, a fresh read of the bucket.
 *
 * @module
 */
import type { KV, KvEntry } from '@nats-io/kv';
import { HEARTBEAT_MS, listNodes, type NodeRecord } from './node-registry.js';
import { onAbort } from './stop-signal.js';

/**
 * A node whose last heartbeat is older than this is not live (three missed beats, as
 * `mcp-tasks status` shows it down). Compared with this node's clock, as lease expiries are.
 */
export const LIVE_MS = 3 * HEARTBEAT_MS;

/** How long one fresh read of the bucket answers {@link WorkerAnnouncements.confirm}. */
const CONFIRM_REUSE_MS = 1_000;

type Announced = Pick<NodeRecord, 'nodeId' | 'role' | 'lastSeen' | 'handlers'>;

/**
 * The handlers live workers announce, followed from the node bucket.
 *
 * @example
 * ```ts
 * const announcements = new WorkerAnnouncements(nodesKv, Date.now, () => nc.isClosed());
 * await announcements.load();
 * void announcements.run(stop.signal);
 * if (!announcements.served('tools/call:sleep')) console.warn('no live worker runs sleep');
 * ```
 */
export class WorkerAnnouncements {
  readonly #kv: KV;
  readonly #now: () => number;
  readonly #closed: () => boolean;
  /** Node bucket key → the node's last record. */
  #nodes = new Map<string, Announced>();
  #fresh: { readonly at: number; readonly nodes: Promise<Announced[]> } | null = null;

  /**
   * @param kv - the node bucket
   * @param now - the node's clock
   * @param closed - whether the connection is closed for good (following stops then)
   */
  constructor(kv: KV, now: () => number, closed: () => boolean) {
    this.#kv = kv;
    this.#now = now;
    this.#closed = closed;
  }

  /**
   * Reads every node record once (before the first create asks).
   *
   * @example
   * ```ts
   * await announcements.load();
   * ```
   */
  async load(): Promise<void> {
    const nodes = new Map<string, Announced>();
    for await (const key of await this.#kv.keys()) {
      const entry = await this.#kv.get(key);
      const record = entry === null ? null : parseNode(entry);
      if (record !== null) nodes.set(key, record);
    }
    this.#nodes = nodes;
  }

  /**
   * Follows the node bucket until `signal` aborts (watching again after a connection loss).
   *
   * @example
   * ```ts
   * await announcements.run(stop.signal);
   * ```
   */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted && !this.#closed()) {
      try {
        const watcher = await this.#kv.watch();
        const off = onAbort(signal, () => void watcher.stop());
        try {
          for await (const entry of watcher) {
            const record = parseNode(entry);
            if (record === null) this.#nodes.delete(entry.key);
            else this.#nodes.set(entry.key, record);
          }
        } finally {
          off();
        }
      } catch {
        // The watch broke (server restart, connection closed): watch again after a moment.
      }
      if (!signal.aborted) await new Promise((resolve) => setTimeout(resolve, 500).unref());
    }
  }

  /**
   * Whether a live node announces `handler`, by the followed view: no request.
   *
   * @param handler - a handler name (`tools/call:sleep`)
   * @example
   * ```ts
   * if (!announcements.served(record.work.handler)) queueCheck(key);
   * ```
   */
  served(handler: string): boolean {
    return serves(this.#nodes.values(), handler, this.#now());
  }

  /**
   * Whether a live node announces `handler`, by a fresh read of the node bucket (shared by the
   * checks of one second).
   *
   * @param handler - a handler name
   * @example
   * ```ts
   * if (!(await announcements.confirm(handler))) failTask(key);
   * ```
   */
  async confirm(handler: string): Promise<boolean> {
    const now = this.#now();
    if (this.#fresh === null || now - this.#fresh.at > CONFIRM_REUSE_MS) {
      const nodes = listNodes(this.#kv);
      this.#fresh = { at: now, nodes };
      // A failed read is not reused.
      nodes.catch(() => {
        if (this.#fresh?.nodes === nodes) this.#fresh = null;
      });
    }
    return serves(await this.#fresh.nodes, handler, this.#now());
  }
}

function serves(nodes: Iterable<Announced>, handler: string, now: number): boolean {
  for (const n of nodes) if (n.role !== 'front' && now - n.lastSeen <= LIVE_MS && n.handlers?.includes(handler) === true) return true;
  return false;
}

function parseNode(entry: KvEntry): Announced | null {
  if (entry.operation !== 'PUT') return null;
  try {
    const { nodeId, role, lastSeen, handlers } = entry.json<NodeRecord>();
    return { nodeId, role, lastSeen, handlers };
  } catch {
    return null;
  }
}
