/**
 * Noticing lost workers: every node follows the lease bucket and keeps one deadline per lease
 * (its expiry). A lease that is neither renewed nor released by its deadline belongs to a worker
 * that died or stalled; the first node to take the expired lease over (compare-and-swap, so only
 * one does) decides the task's fate (see `recoverTask`). So a lost worker's task is resolved
 * within the lease TTL plus the time to take it over, whichever nodes are up.
 *
 * @module
 */
import { DeadlineScheduler } from '../../scheduler.js';
import { recoverTask, type TaskSpace } from './task-space.js';

/** Slack after a lease's expiry before taking it over, for clock differences between nodes. */
const GRACE_MS = 100;

/**
 * Watches the leases of a task space and recovers the tasks of lost workers.
 *
 * @example
 * ```ts
 * const monitor = new FailoverMonitor(space);
 * void monitor.run(stop.signal);
 * ```
 */
export class FailoverMonitor {
  readonly #space: TaskSpace;
  readonly #holders = new Map<string, string>();
  readonly #deadlines: DeadlineScheduler;

  constructor(space: TaskSpace) {
    this.#space = space;
    this.#deadlines = new DeadlineScheduler((key) => void this.#check(key), space.now);
  }

  /**
   * Follows the leases until `signal` aborts (re-watching after a connection loss).
   *
   * @example
   * ```ts
   * await monitor.run(stop.signal);
   * ```
   */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted && !this.#space.nc.isClosed()) {
      try {
        await this.#space.leases.watch((key, lease) => {
          if (lease === null) {
            this.#holders.delete(key);
            this.#deadlines.cancel(key);
          } else {
            this.#holders.set(key, lease.nodeId);
            this.#deadlines.schedule(key, lease.expiresAt + GRACE_MS);
          }
        }, signal);
      } catch {
        // The watch broke (server restart): watch again after a moment.
      }
      if (!signal.aborted) await new Promise((resolve) => setTimeout(resolve, 500).unref());
    }
    this.#deadlines.dispose();
  }

  async #check(key: string): Promise<void> {
    const space = this.#space;
    const lostNode = this.#holders.get(key);
    if (lostNode === undefined) return;
    try {
      const lease = await space.leases.acquire(key, space.nodeId, space.leaseTtlMs);
      // Renewed meanwhile (the watch will reschedule), or another node took it over first.
      if (lease === null) return;
      await recoverTask(space, key, lease, lostNode);
    } catch (error) {
      space.log('warn', 'lease check failed; will retry', { key, error: String(error) });
      this.#deadlines.schedule(key, space.now() + 1_000);
    }
  }
}
