/**
 * The status of one process's runtime, in the shape `mcp-tasks status` shows a NATS task space:
 * one node (front and worker at once, `both`), no leases (nothing to hand over), its tasks by
 * status. What `serve --http` answers at `/status` on the memory backend.
 *
 * @module
 */
import { hostname } from 'node:os';
import { isTerminalStatus } from '../../machines/index.js';
import type { ClusterStatus } from '../../runtime/cluster-status.types.js';
import type { TaskObserver, TaskRuntime } from '../../runtime/index.js';
import { DRAINING_REASON } from '../../runtime/core/drain.js';
import { shownTaskId } from '../../runtime/secrets.js';
import { registeredWork } from '../wire/work-registry.js';
import type { StatusSource } from './status-endpoint.js';

/**
 * What {@link localStatusSource} reads of a runtime.
 *
 * @example
 * ```ts
 * const runtime: LocalStatusRuntime = createTaskRuntime();
 * ```
 */
export type LocalStatusRuntime = Pick<TaskRuntime, 'subscribe' | 'observe' | 'security' | 'stats' | 'readiness'>;

/**
 * A status source over `runtime`. Make it before the first task: it counts the tasks created from
 * then on (`tasksRun`). The first read opens the runtime's observer, which on the memory backend
 * keeps every task's timeline from then on (as the inspector does).
 *
 * @param runtime - the served runtime
 * @example
 * ```ts
 * const source = localStatusSource(runtime);
 * const { nodes, counts } = await source.read();
 * ```
 */
export function localStatusSource(runtime: LocalStatusRuntime): StatusSource {
  let tasksRun = 0;
  const stop = runtime.subscribe((change) => {
    if (change.previous === null) tasksRun++;
  });
  let observer: TaskObserver | undefined;
  return {
    async read(): Promise<ClusterStatus> {
      observer ??= runtime.observe();
      const tasks = await observer.list();
      const counts: Record<string, number> = {};
      const durable: ClusterStatus['durable'] = [];
      for (const t of tasks) {
        counts[t.status] = (counts[t.status] ?? 0) + 1;
        const c = t.checkpoint ?? null;
        if (!isTerminalStatus(t.status) && ((t.attempt ?? 1) > 1 || c)) {
          durable.push({ taskKey: t.key, taskId: shownTaskId(t.taskId, t.owner), status: t.status, attempt: t.attempt ?? 1, node: t.node, checkpoint: c && { seq: c.seq, label: c.label, at: c.at } });
        }
      }
      const security = runtime.security();
      // A process that drains says so in its readiness (see `Drain.reasons`).
      const draining = (await runtime.readiness()).reasons.includes(DRAINING_REASON);
      const node = {
        nodeId: security.node,
        role: 'both',
        host: hostname(),
        pid: process.pid,
        lastSeen: Date.now(),
        up: true,
        draining,
        tasksRun,
        // Tasks not yet ended (one in input_required included: in one process it keeps its actor).
        running: runtime.stats().live,
        security: security.enabled ? security : null,
        handlers: registeredWork(runtime),
      };
      return { nodes: [node], leases: [], counts, durable };
    },
    async close() {
      stop();
      await observer?.close();
    },
  };
}
