/**
 * The status of a NATS task space, read from its buckets: every node's last heartbeat, the leases
 * of running tasks, the tasks by status and the resumable ones. One reader for both places that
 * show it: `mcp-tasks status --nats` (a connection of its own) and the status endpoint of a
 * NATS-backed `serve --http` (the node's connection).
 *
 * @module
 */
import type { NatsConnection } from '@nats-io/transport-node';
import { isTerminalStatus } from '../../../machines/index.js';
import type { ClusterStatus } from '../../cluster-status.types.js';
import { shownTaskId } from '../../secrets.js';
import { isExpired, LeaseManager } from './leases.js';
import { HEARTBEAT_MS, listNodes, openNodeBucket } from './node-registry.js';
import { RecordStore } from './record-store.js';

/** Where the task space is: its prefix and replica count (as the nodes were started with). */
export interface ClusterStatusLayout {
  readonly prefix: string;
  readonly replicas: number;
  /** @default 'file' */
  readonly storage?: 'file' | 'memory';
}

/**
 * Reads a task space's status whenever asked; the buckets are opened once, on the first read.
 *
 * @example
 * ```ts
 * const reader = clusterStatusReader(nc, { prefix: 'tasks', replicas: 1 });
 * const { nodes, counts } = await reader.read();
 * ```
 */
export interface ClusterStatusReader {
  /** The status now. Every record is read: it costs one KV read per task kept. */
  read(): Promise<ClusterStatus>;
}

type Opened = { readonly nodes: Awaited<ReturnType<typeof openNodeBucket>>; readonly leases: LeaseManager; readonly store: RecordStore };

/**
 * A reader of the task space at `layout` over `nc`.
 *
 * @param nc - a connection to the cluster; the reader never closes it
 * @param layout - prefix and replicas of the task space
 * @example
 * ```ts
 * const report = await clusterStatusReader(nc, { prefix: 'tasks', replicas: 1 }).read();
 * ```
 */
export function clusterStatusReader(nc: NatsConnection, layout: ClusterStatusLayout): ClusterStatusReader {
  const full = { prefix: layout.prefix, replicas: layout.replicas, storage: layout.storage ?? 'file' } as const;
  let opening: Promise<Opened> | undefined;
  const open = async (): Promise<Opened> => ({
    nodes: await openNodeBucket(nc, full),
    leases: await LeaseManager.open(nc, { bucketPrefix: full.prefix, replicas: full.replicas, storage: full.storage }),
    store: await RecordStore.open(nc, full, 'status'),
  });
  return {
    async read() {
      // A failed open (the server was away) is tried again on the next read.
      opening ??= open().catch((error: unknown) => {
        opening = undefined;
        throw error;
      });
      const { nodes: bucket, leases, store } = await opening;
      const now = Date.now();
      const nodes = (await listNodes(bucket)).map((n) => ({
        nodeId: n.nodeId, role: n.role, host: n.host, pid: n.pid, lastSeen: n.lastSeen, up: now - n.lastSeen < 3 * HEARTBEAT_MS, draining: n.draining === true, tasksRun: n.tasksRun, running: n.running, security: n.security ?? null,
        // The handlers a worker announces (a front tells from them a task no live worker serves).
        handlers: n.handlers ?? [],
      }));
      const held = (await leases.list()).map((l) => ({ ...l, expired: isExpired(l, now) }));
      const counts: Record<string, number> = {};
      const durable: ClusterStatus['durable'] = [];
      for (const key of await store.keys()) {
        const read = await store.read(key);
        if (!read || !('found' in read)) continue;
        const r = read.found.record;
        counts[r.status] = (counts[r.status] ?? 0) + 1;
        const c = r.checkpoint;
        if (!isTerminalStatus(r.status) && (r.attempts > 1 || c)) {
          durable.push({ taskKey: key, taskId: shownTaskId(r.context.taskId, r.context.owner), status: r.status, attempt: r.attempts, node: r.node, checkpoint: c ? { seq: c.seq, label: c.label, at: c.at } : null });
        }
      }
      return { nodes, leases: held, counts, durable };
    },
  };
}
