/**
 * What `mcp-tasks status` shows of a task space, whatever the backend: its nodes, the leases of
 * running tasks, how many tasks are in each status, and the live tasks that resumed or kept a
 * checkpoint. Read from NATS by `readClusterStatus` (the cluster), or from one process's runtime
 * by the status endpoint of `serve --http` (the memory backend: one node, no leases).
 *
 * @module
 */
import type { SecurityReport } from './audit/audit.types.js';

/**
 * One node of a task space, as its last heartbeat (NATS) or the process itself (memory) says.
 *
 * @example
 * ```ts
 * const down = status.nodes.filter((n: NodeStatus) => !n.up).map((n) => n.nodeId);
 * ```
 */
export interface NodeStatus {
  readonly nodeId: string;
  readonly role: string;
  readonly host: string;
  readonly pid: number;
  /** Epoch ms of its last heartbeat (memory: now). */
  readonly lastSeen: number;
  /** Its heartbeat is younger than three periods (memory: always). */
  readonly up: boolean;
  /** It is shutting down: it takes no new task while its running ones finish (up, but leaving). */
  readonly draining: boolean;
  /** Handlers it started since it started (memory: tasks created, each runs in the process). */
  readonly tasksRun: number;
  /** Tasks it runs now. */
  readonly running: number;
  /** Its counters of suspicious requesters (`runtime.security()`), or `null` when it publishes none. */
  readonly security: SecurityReport | null;
  /** The handler names it runs (`tools/call:sleep`…); empty before any is registered. */
  readonly handlers: readonly string[];
}

/**
 * What `status` reports (`mcp-tasks status --json`, `GET /status` of `serve --http`).
 *
 * @example
 * ```ts
 * const report = (await (await fetch('http://127.0.0.1:3000/status')).json()) as ClusterStatus;
 * console.log(report.counts['working'] ?? 0);
 * ```
 */
export interface ClusterStatus {
  readonly nodes: NodeStatus[];
  /** Which node runs which task, until when (NATS only: `[]` on the memory backend). */
  readonly leases: { taskKey: string; nodeId: string; expiresAt: number; expired: boolean }[];
  /** Tasks by status, live and retained. */
  readonly counts: Record<string, number>;
  /**
   * Live tasks run more than once or with a checkpoint kept: which attempt, on which node, from
   * which checkpoint (a durable task resumed after its worker was lost shows here).
   */
  readonly durable: { taskKey: string; taskId: string; status: string; attempt: number; node: string | null; checkpoint: { seq: number; label: string | null; at: number } | null }[];
}
