/**
 * Retention across the cluster: when a task ends, a timer item is queued on a work-queue stream;
 * every node pulls from it, an item that is not due yet is put back (`nak` with the remaining
 * delay: nats-server 2.9 ignores per-message TTLs), and the one node that gets a due item removes
 * the task and its result. So a task is removed once, whichever nodes are up.
 *
 * @module
 */
import { isWrongLastSequence } from './errors.js';
import { randomUUID } from 'node:crypto';
import type { ExpiryTask } from './expiry-batch.js';
import { finishRemoval, removeTask, sharedBounds, type SharedBounds, type TaskSpace } from './task-space.js';
import { shownTaskId } from '../../secrets.js';

/** How long the removals of a batch that failed wait before they are tried again. */
const RETRY_MS = 1_000;

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
      const tasks = 'tasks' in item ? item.tasks : [{ key: item.key, order: item.order }];
      // One set of bounds for the whole batch, taken before any of its removals decides.
      const shared = await sharedBounds(space);
      const outcomes = await Promise.allSettled(tasks.map((task) => expire(space, task, shared)));
      const failed = tasks.filter((_t, i) => outcomes[i]!.status === 'rejected');
      if (failed.length === 0 || failed.length === tasks.length) {
        // Tried again (nak) until every removal goes through.
        const error = outcomes.find((o) => o.status === 'rejected');
        if (error) throw error.reason;
        return undefined;
      }
      // Only the removals that failed are tried again, as a timer of their own (this one is done).
      await space.timers.enqueue({ id: `expire:${randomUUID()}`, due: space.now() + RETRY_MS, tasks: failed });
      return undefined;
    },
    // Several at once, pulled in batches: removals are independent (each guarded by the revision it
    // read), and one at a time fell behind under load (10k tasks ended faster than one loop removed them).
    { signal, concurrency: 32, pollMs: 2_000, retryDelayMs: 1_000 },
  );
}

/** Removes one task of a due timer, if it is still the task the timer was for and its time has come. */
async function expire(space: TaskSpace, task: ExpiryTask, shared: SharedBounds): Promise<void> {
  const read = await space.store.read(task.key);
  // Gone already: deleted, or removed by an earlier try that failed half-way (NATS away). What
  // may be left of it is purged, so that nothing stays; the purges are idempotent.
  if (read === null || !('found' in read)) return finishRemoval(space, task.key, task.order, shared);
  const { record, revision } = read.found;
  // Only a task that ended and whose time has come; guarded by the revision just read.
  // The id belongs to a task created again since: only the old one's index entry is left to go.
  if (record.order !== task.order) return space.store.removal.dropIndexEntry(task.order);
  if (record.expiresAt === null || record.expiresAt > space.now()) return;
  try {
    await removeTask(space, task.key, record, { expired: true, revision }, shared);
  } catch (error) {
    // Changed since the read (deleted, or its retention moved): its own timer decides.
    if (isWrongLastSequence(error)) return;
    // Said, so a removal that keeps failing is seen.
    space.log('warn', 'could not remove an expired task; will retry', { key: task.key, node: space.nodeId, error: String(error) });
    throw error;
  }
  space.log('info', 'task expired', { taskId: shownTaskId(record.context.taskId, record.context.owner), key: task.key, node: space.nodeId });
}
