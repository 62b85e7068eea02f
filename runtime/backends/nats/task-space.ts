/**
 * The shared parts of one node of a NATS task space (store, feed, leases, queues), and the two
 * moves every role makes: applying a lifecycle event to a stored task (scheduling its expiry when
 * it ends) and deciding the fate of a task whose worker was lost.
 *
 * @module
 */
import type { NatsConnection } from '@nats-io/transport-node';
import { isTerminalStatus, taskEvents, type TaskEvent } from '../../../machines/index.js';
import type { RegisteredHandler } from '../../core/core-runtime.js';
import { decideLostRun, type RunLeft } from '../../core/lost-run.js';
import type { EventFeed } from './event-feed.js';
import type { Lease, LeaseManager } from './leases.js';
import type { MachineGraphs } from './machine-graphs.js';
import type { RecordStore, RemovalBounds, Revisioned } from './record-store.js';
import type { ExpiryBatch, ExpiryTask } from './expiry-batch.js';
import { applyEvent, type TaskRecord } from './task-record.js';
import { persistently } from './persistently.js';
import type { WorkQueue } from './work-queue.js';
import type { TaskMetrics } from '../../telemetry/metrics.js';
import type { NodeLog } from '../../logger.js';
import { shownTaskId } from '../../secrets.js';

/** A queued run of a task: attempt `attempt` of the task under `key`. */
export interface RunItem {
  readonly id: string;
  readonly key: string;
  readonly attempt: number;
  /** The task's `order`: which incarnation of the task id this run is for. */
  readonly order: number;
  /** Name of the handler, so a worker without it passes the run on without reading the task. */
  readonly handler: string;
  /** Why the previous run left its node, when it did (named in the status message of the run that takes over). */
  readonly left?: RunLeft;
}

/**
 * A durable retention timer: at `due` (epoch ms), remove the task under `key` (incarnation
 * `order`), or every task of `tasks` (a batch, see {@link ExpiryBatch}).
 */
export type ExpiryItem =
  | { readonly id: string; readonly due: number; readonly key: string; readonly order: number }
  | { readonly id: string; readonly due: number; readonly tasks: readonly ExpiryTask[] };

/** Where removals stop in each stream, taken before they decide (see `RecordStore.removalBounds`). */
export interface SharedBounds {
  readonly bounds: RemovalBounds;
  readonly leases: number;
}

/** The node's internal log call, built from the runtime's `logger` (see `runtime/logger.ts`). */
export type { NodeLog };

export type { RegisteredHandler };

/** Everything a node's parts share. */
export interface TaskSpace {
  readonly nc: NatsConnection;
  readonly nodeId: string;
  readonly store: RecordStore;
  readonly feed: EventFeed;
  /** Handler machines' graphs, shared with every node's observer. */
  readonly graphs: MachineGraphs;
  readonly leases: LeaseManager;
  readonly runs: WorkQueue<RunItem>;
  readonly timers: WorkQueue<ExpiryItem>;
  /** Retention timers of tasks this node's runs ended, sent in batches. */
  readonly expiries: ExpiryBatch;
  readonly handlers: Map<string, RegisteredHandler>;
  readonly leaseTtlMs: number;
  /** Default bound on runs of a handler marked safe to re-run. */
  readonly maxAttempts: number;
  readonly now: () => number;
  readonly log: NodeLog;
  /** Largest result this node's handlers may keep (`RequesterLimits.maxResultBytes`). */
  readonly maxResultBytes: number | null;
  /** Told once, by the node whose write ended it, that a task reached a terminal status. */
  onTaskEnded?: (key: string, record: TaskRecord) => void;
  /** The node's task metrics; `null` (or absent) when none are taken. */
  readonly metrics?: TaskMetrics | null;
  /**
   * Told when a task whose run was lost (or handed over by a node shutting down) was ended for it:
   * its live subtasks end with it (the core's cascading cancel), as they would had it ended itself.
   * Awaited: a node handing its runs over is not closed under the cancels it still writes.
   */
  onRunEnded?: (record: TaskRecord) => void | Promise<void>;
}

/** Options of {@link applyToTask}. */
export interface ApplyOptions {
  /** Other fields to set with the same write (result flag, attempt…), from the record before. */
  readonly extra?: (record: TaskRecord) => Partial<TaskRecord>;
  /** Applies only when this holds (e.g. the record still names this worker's run). */
  readonly only?: (record: TaskRecord) => boolean;
  /** Same id on every retry of one write (see `RecordStore.mutate`). */
  readonly writeId?: string;
  /** The record as just read from the leader: the write is made on it without another read. */
  readonly base?: Revisioned | undefined;
  /**
   * The retention timer, if the write ends the task, goes in this node's next batch (a worker
   * holding the task's lease until it is queued) rather than out at once.
   */
  readonly batchTimer?: boolean;
}

/**
 * Applies one lifecycle event to a stored task (compare-and-swap, published on the task's
 * subject) and, when the task ends, queues its retention timer.
 *
 * @param space - the node's parts
 * @param key - the task key
 * @param event - the lifecycle event, or how to decide it from the record it is applied to
 * @param options - fields set with the same write, a condition, a write id for retries
 * @returns the record after the call and whether this call moved it; `null` when the task is gone
 * @example
 * ```ts
 * await applyToTask(space, key, taskEvents.cancel('stop', Date.now()));
 * ```
 */
export async function applyToTask(
  space: TaskSpace,
  key: string,
  event: TaskEvent | ((record: TaskRecord) => TaskEvent),
  options: ApplyOptions = {},
): Promise<{ readonly record: TaskRecord; readonly changed: boolean } | null> {
  const { extra, only, writeId, base, batchTimer } = options;
  // Decided again on each try of the compare-and-swap when it depends on the record.
  let applied: TaskEvent | null = typeof event === 'function' ? null : event;
  const out = await space.store.mutate(
    key,
    (record) => {
      if (only && !only(record)) return null;
      applied = typeof event === 'function' ? event(record) : event;
      const moved = applyEvent(record, applied);
      return moved && extra ? { ...moved, ...extra(record) } : moved;
    },
    (_before, after) => ({ kind: applied!.type, event: applied!, ...(after.attempts > 0 && { attempt: after.attempts }) }),
    writeId,
    base,
  );
  // Not awaited: the timer is queued in the background (a failure is logged, the task stays readable).
  if (out?.changed && out.record.expiresAt !== null) {
    if (batchTimer) space.expiries.add({ key, order: out.record.order }, out.record.expiresAt);
    else void scheduleExpiry(space, key, out.record);
  }
  if (out?.changed && isTerminalStatus(out.record.status)) {
    // Counted by the node whose write ended the task: once in the cluster, whoever ended it.
    space.metrics?.ended(out.record.status, out.record.context);
    space.onTaskEnded?.(key, out.record);
  }
  return out;
}

/**
 * Queues the retention timer of a task that ended: whichever node is up removes it when due.
 *
 * @example
 * ```ts
 * await scheduleExpiry(space, key, record);
 * ```
 */
export async function scheduleExpiry(space: TaskSpace, key: string, record: TaskRecord): Promise<void> {
  if (record.expiresAt === null) return;
  const item = { id: `expire:${key}:${record.order}:${record.seq}`, key, due: record.expiresAt, order: record.order };
  // Kept trying while NATS is away (the message id makes a repeat harmless): a task whose timer
  // was never queued would stay stored forever.
  await persistently(() => space.timers.enqueue(item), { giveUpMs: 120_000 }).catch((error: unknown) => {
    space.log('warn', 'could not queue a retention timer', { key, error: String(error) });
  });
}

/**
 * Removes a task from every structure of the space (record, result, events, index entry, lease),
 * leaving no message of it in any stream. See `RecordStore.remove` for `how`.
 *
 * @example
 * ```ts
 * await removeTask(space, key, record, { expired: true, revision });
 * ```
 */
export async function removeTask(
  space: TaskSpace,
  key: string,
  record: TaskRecord,
  how: { readonly expired: boolean; readonly revision?: number },
  shared?: SharedBounds,
): Promise<void> {
  // Its lease was released (leaving a marker) when its run ended; only a task with work has one.
  // Bounded as the rest of the removal is: a task created again under the key keeps its lease.
  const before = record.work === null ? null : (shared?.leases ?? (await space.leases.nextSequence()));
  // A task that ended a moment ago may have its lease let go after these bounds (its worker
  // holds it until the task's timer is queued, and the timer may be due at once): that marker
  // is purged too once it is the last thing there.
  const recent = space.now() - record.context.updatedAt < LATE_LEASE_MS;
  const erase = async (): Promise<void> => {
    await space.leases.erase(key, before!);
    if (recent) await space.leases.eraseLateMarker(key);
  };
  await space.store.removal.remove(key, record, how, before === null ? undefined : erase, shared?.bounds);
}

/** How long after a task's end its worker may still let its lease go (a timer queued through an outage). */
const LATE_LEASE_MS = 150_000;

/**
 * Where every stream of the space stands now: removals given these bounds purge nothing written
 * after this call (one set of bounds serves a whole batch of removals).
 *
 * @example
 * ```ts
 * const shared = await sharedBounds(space);
 * await Promise.all(batch.map((t) => removeTask(space, t.key, t.record, how, shared)));
 * ```
 */
export async function sharedBounds(space: TaskSpace): Promise<SharedBounds> {
  const [leases, bounds] = await Promise.all([space.leases.nextSequence(), space.store.removal.removalBounds()]);
  return { leases, bounds };
}

/**
 * Finishes the removal of a task whose record is gone already (an earlier removal that failed
 * half-way, while NATS was away): purges its record's marker, result, events, lease and index
 * entry `order`. Safe to repeat.
 *
 * @example
 * ```ts
 * await finishRemoval(space, item.key, item.order);
 * ```
 */
export async function finishRemoval(space: TaskSpace, key: string, order: number, shared?: SharedBounds): Promise<void> {
  // Bounds first, then a look at the record: whatever a task created again under this key writes
  // after the bounds is kept, and one that has a record already is left alone.
  const { leases, bounds } = shared ?? (await sharedBounds(space));
  const end = await space.store.removal.recordEnd(key);
  if (end === 'live') return space.store.removal.dropIndexEntry(order);
  await space.store.removal.erase(key, { order, inline: false, marker: end, payloads: true }, bounds, () => space.leases.erase(key, leases));
}

/**
 * Decides the fate of a started task whose worker is gone, holding its lease: a task that never
 * started, or whose handler is safe to re-run and has attempts left, is queued again; any other
 * ends `unknown` (shown `failed` in 2025-11-25) with an error naming the lost worker, or, when
 * its node shut down (`left: 'shutdown'`), `failed` saying so; its live subtasks end with it.
 *
 * @param space - the node's parts
 * @param key - the task key
 * @param lease - the lease this node took over
 * @param lostNode - the node that held it before
 * @param left - why the run left that node
 * @example
 * ```ts
 * const lease = await space.leases.acquire(key, space.nodeId, space.leaseTtlMs);
 * if (lease) await recoverTask(space, key, lease, previousHolder);
 * ```
 */
export async function recoverTask(space: TaskSpace, key: string, lease: Lease, lostNode: string, left: RunLeft = 'lost'): Promise<void> {
  let gone = false;
  try {
    const read = await space.store.read(key);
    gone = read === null || !('found' in read);
    if (read === null || !('found' in read)) return;
    const record = read.found.record;
    // Ended, but its worker died before it let go: it may also have died before its retention
    // timer went out (queued after the terminal write, without waiting). Queued again here (the
    // same message id: a timer already queued is not doubled), or the task would be kept forever.
    if (record.work === null && !isTerminalStatus(record.status)) return;
    const { attempts, work } = record;
    const decision = decideLostRun(record, work ?? { retry: 'never', maxAttempts: 1 }, lostNode, left);
    if (decision.kind === 'ended') return void (await scheduleExpiry(space, key, record));
    if (work === null) return;
    // Decided once per lost attempt: another node may take the lease just after this one let it
    // go (its check was due at the same moment). It says nothing again, and its queued run has
    // the same id as this one's (dropped as a duplicate); a node that died between the two
    // writes leaves the run to be queued by the next.
    const undecided = (r: TaskRecord): boolean => r.order === record.order && r.attempts === attempts && (r.requeued ?? 0) <= attempts;
    if (decision.kind === 'run') {
      let first = true;
      if (decision.message !== null) {
        first = (await applyToTask(space, key, taskEvents.message(decision.message, space.now()), { only: undecided, extra: () => ({ requeued: attempts + 1 }) }))?.changed === true;
      }
      // Attempt 1 again (it never started) cannot reuse the create's id, which may still be in the
      // dedup window: the record's sequence tells the two apart.
      const id = attempts === 0 ? `run:${key}:${record.order}:1:${record.seq}` : `run:${key}:${record.order}:${decision.attempt}`;
      await persistently(() => space.runs.enqueue({ id, key, attempt: decision.attempt, order: record.order, handler: work.handler, ...(attempts > 0 && { left }) }), { giveUpMs: 30_000 });
      if (!first) return;
    } else {
      const end = decision.status === 'failed' ? taskEvents.fail(decision.message, space.now()) : taskEvents.lose(decision.message, space.now());
      const ended = await applyToTask(space, key, end, { only: undecided });
      if (!ended?.changed) return;
      await space.onRunEnded?.(ended.record);
    }
    space.metrics?.workerLost(decision.kind === 'run' ? decision.how : 'lost');
    space.log('warn', left === 'lost' ? 'worker lost' : 'task handed over', { taskId: shownTaskId(record.context.taskId, record.context.owner), key, lostNode, node: space.nodeId, action: decision.kind === 'run' ? (work.retry === 'resume' ? 'resume' : 'restart') : 'lost', attempts, ...(record.checkpoint && { checkpoint: record.checkpoint.label ?? record.checkpoint.seq }) });
  } finally {
    // The lease of a task removed meanwhile: no removal will come to erase its marker.
    await (gone ? space.leases.drop(lease) : space.leases.release(lease)).catch(() => false);
  }
}


