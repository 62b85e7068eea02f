/**
 * Which nodes make up a task space: each node writes a heartbeat record (role, tasks run, last
 * seen) to the `<prefix>_nodes` bucket every few seconds and removes it on a clean stop, so
 * `mcp-tasks status` can show the cluster. A node whose heartbeat is older than three periods is
 * shown as down.
 *
 * @module
 */
import { hostname } from 'node:os';
import type { KV } from '@nats-io/kv';
import { ensureBucket } from './ensure-stream.js';
import type { NatsConnection } from '@nats-io/transport-node';
import type { SecurityReport } from '../../audit/audit.types.js';
import { hashToken, nameFromPrefix } from './keys.js';

/** A node's heartbeat record. */
export interface NodeRecord {
  readonly nodeId: string;
  readonly role: 'front' | 'worker' | 'both';
  readonly host: string;
  readonly pid: number;
  readonly startedAt: number;
  readonly lastSeen: number;
  /** Handlers this node started since it started. */
  readonly tasksRun: number;
  /** Tasks it runs now. */
  readonly running: number;
  /** It is shutting down (SIGTERM, `runtime.close`): it takes no new task; absent from older nodes. */
  readonly draining?: boolean | undefined;
  /** Its counters of suspicious requesters (`runtime.security()`); absent from older nodes. */
  readonly security?: SecurityReport | undefined;
  /**
   * The handler names it runs (`tools/call:sleep`…), announced by worker and `both` nodes while
   * they beat: a front node reads them to tell a task no live worker serves (see `worker-announcements.ts`).
   */
  readonly handlers?: readonly string[] | undefined;
}

/** A node's heartbeat, started by {@link startHeartbeat}. */
export interface Heartbeat {
  /** Beats once more soon (a handler was registered): announced without waiting for the next period. */
  soon(): void;
  /** Stops beating and removes the record. */
  stop(): Promise<void>;
}

/** Heartbeat period, in ms. */
export const HEARTBEAT_MS = 2_000;

/**
 * Opens the node bucket.
 *
 * @param nc - a connection
 * @param layout - prefix, replicas, storage of the task space
 * @example
 * ```ts
 * const kv = await openNodeBucket(nc, { prefix: 'tasks', replicas: 1, storage: 'file' });
 * ```
 */
export async function openNodeBucket(nc: NatsConnection, layout: { prefix: string; replicas: number; storage: 'file' | 'memory' }): Promise<KV> {
  return ensureBucket(nc, `${nameFromPrefix(layout.prefix)}_nodes`, { history: 1, replicas: layout.replicas, storage: layout.storage, allow_direct: false });
}

/**
 * Starts the heartbeat of this node. Its `stop` removes the record.
 *
 * @param kv - the node bucket
 * @param base - the node's identity and role
 * @param counters - read at every beat
 * @example
 * ```ts
 * const heartbeat = startHeartbeat(kv, { nodeId, role: 'both' }, () => ({ tasksRun: worker.tasksRun, running: worker.running }));
 * await heartbeat.stop();
 * ```
 */
export function startHeartbeat(
  kv: KV,
  base: { readonly nodeId: string; readonly role: NodeRecord['role'] },
  counters: () => { tasksRun: number; running: number; draining?: boolean | undefined; security?: SecurityReport | undefined; handlers?: readonly string[] | undefined },
): Heartbeat {
  const startedAt = Date.now();
  const key = hashToken(base.nodeId);
  const beat = (): Promise<unknown> =>
    kv.put(key, JSON.stringify({ ...base, host: hostname(), pid: process.pid, startedAt, lastSeen: Date.now(), ...counters() } satisfies NodeRecord)).catch(() => undefined);
  void beat();
  const timer = setInterval(() => void beat(), HEARTBEAT_MS);
  timer.unref();
  let stopped = false;
  let pending: NodeJS.Immediate | null = null;
  return {
    soon() {
      // Several handlers registered in a row make one beat.
      if (stopped || pending !== null) return;
      pending = setImmediate(() => {
        pending = null;
        if (!stopped) void beat();
      });
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      if (pending !== null) clearImmediate(pending);
      await beat();
      await kv.delete(key).catch(() => undefined);
    },
  };
}

/**
 * Every node record in the bucket.
 *
 * @example
 * ```ts
 * for (const n of await listNodes(kv)) console.log(n.nodeId, n.role);
 * ```
 */
export async function listNodes(kv: KV): Promise<NodeRecord[]> {
  const out: NodeRecord[] = [];
  for await (const key of await kv.keys()) {
    const entry = await kv.get(key);
    if (entry?.operation === 'PUT') out.push(entry.json<NodeRecord>());
  }
  return out.sort((a, b) => a.nodeId.localeCompare(b.nodeId));
}
