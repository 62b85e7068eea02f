/**
 * Retention across the cluster: when a task ends, a timer item is queued on a work-queue stream;
 * every node pulls from it, an item that is not due yet is put back (`nak` with the remaining
 * delay: nats-server 2.9 ignores per-message TTLs), and the one node that gets a due item removes
 * the task and its result. So a task is removed once, whichever nodes are up.
 *
 * @module
 */
import { isWrongLastSequence } from './errors.js';
import { finishRemoval, removeTask, type TaskSpace } from './task-space.js';

/**
 * Removes expired tasks until `signal` aborts.
 *
 * @param space - the node's parts
 * @param signal - stops the loop
 * @example
 * ```ts
 * void runExpiry(space, stop.signal);
 * ```
 */
export async function runExpiry(space: TaskSpace, signal: AbortSignal): Promise<void> {
  await space.timers.consume(
    async (item) => {
      const wait = item.due - space.now();
      if (wait > 0) return { retryInMs: wait };
      const read = await space.store.read(item.key);
      // Gone already: deleted, or removed by an earlier try that failed half-way (NATS away). What
      // may be left of it is purged, so that nothing stays; the purges are idempotent.
      if (read === null || !('found' in read)) return (await finishRemoval(space, item.key, item.order), undefined);
      const { record, revision } = read.found;
      // Only a task that ended and whose time has come; guarded by the revision just read.
      // The id belongs to a task created again since: only the old one's index entry is left to go.
      if (record.order !== item.order) return (await space.store.dropIndexEntry(item.order), undefined);
      if (record.expiresAt === null || record.expiresAt > space.now()) return undefined;
      try {
        await removeTask(space, item.key, record, { expired: true, revision });
      } catch (error) {
        // Changed since the read (deleted, or its retention moved): its own timer decides.
        if (isWrongLastSequence(error)) return undefined;
        // Tried again (nak) until it goes through: said, so a removal that keeps failing is seen.
        space.log('warn', 'could not remove an expired task; will retry', { key: item.key, node: space.nodeId, error: String(error) });
        throw error;
      }
      space.log('info', 'task expired', { taskId: record.context.taskId, key: item.key, node: space.nodeId });
      return undefined;
    },
    // Several at once, pulled in batches: removals are independent (each guarded by the revision it
    // read), and one at a time fell behind under load (10k tasks ended faster than one loop removed them).
    { signal, concurrency: 32, pollMs: 2_000, retryDelayMs: 1_000 },
  );
}
