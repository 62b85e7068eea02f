/**
 * The bytes each requester's ended tasks keep across the cluster, for
 * `maxRetainedBytesPerRequester` on NATS. Every node receives every task's events, and the event
 * that ends a task carries its record (with the size of its outcome), so each node counts every
 * requester's ended tasks, wherever they were created or ended, without a read: a create is
 * judged with no round trip, as the other retention limits are (see `kept-readings.ts`).
 *
 * A task is counted from its end until its `task.deleted` event, a `task.created` under its key,
 * or the end of its retention (expiry removes a task without an event: past its retention it is
 * gone for every reader). What a node did not hear is not counted: the tasks that ended before it
 * started (at most one more share per requester on a node just started, for as long as those
 * tasks are kept), and an end event lost in an outage (its task then counts nothing). The node's
 * `maxRetainedBytes` reads the streams themselves and bounds those cases.
 *
 * @module
 */
import { isTerminalStatus } from '../../../machines/index.js';
import { KeptBytes, keptBytesOf } from '../../core/kept-bytes.js';
import type { EventFeed } from './event-feed.js';
import { ownerToken } from './keys.js';
import type { FeedEvent } from './record-store.js';

/**
 * What one ended task keeps on NATS besides its values: its record (about 0.9 KB) and its events
 * (about 3.5 KB: they stay until it is removed), as `RecordStore.storedBytes` counts them.
 */
export const NATS_RECORD_BYTES = 4_096;

/** The most ended tasks counted (the first counted are forgotten first), as `stats().retained`. */
const MAX_COUNTED = 100_000;

/** How often tasks past their retention are forgotten. */
const PRUNE_MS = 1_000;

/**
 * Counts, from the feed, the bytes every requester's ended tasks keep.
 *
 * @example
 * ```ts
 * const owners = new OwnerBytes(space.feed, Date.now);
 * owners.of(ownerKey); // bytes its ended tasks keep, across the cluster
 * owners.close();
 * ```
 */
export class OwnerBytes {
  readonly #kept = new KeptBytes();
  readonly #now: () => number;
  readonly #stop: () => void;
  #pruned = 0;

  constructor(feed: Pick<EventFeed, 'watchAll'>, now: () => number) {
    this.#now = now;
    this.#stop = feed.watchAll((key, event) => this.heard(key, event));
  }

  /**
   * One event of the feed. The key names its owner (`<owner token>.<task token>`, see `taskKey`),
   * so the count is by owner token, the same for the owner key on every node.
   */
  heard(key: string, event: FeedEvent): void {
    if (event.kind === 'task.deleted' || event.kind === 'task.created') return this.#kept.remove(key);
    const record = event.record;
    if (record === undefined || !isTerminalStatus(record.status)) return;
    const owner = key.slice(0, key.indexOf('.'));
    this.#kept.add(key, owner, keptBytesOf(record, record.outcomeBytes ?? 0, NATS_RECORD_BYTES), record.expiresAt ?? Infinity);
    if (this.#kept.size > MAX_COUNTED) this.#kept.prune(this.#now(), MAX_COUNTED);
  }

  /** Bytes `ownerKey`'s ended tasks keep, as far as this node heard. */
  of(ownerKey: string): number {
    const now = this.#now();
    if (now - this.#pruned >= PRUNE_MS) {
      this.#pruned = now;
      this.#kept.prune(now);
    }
    return this.#kept.of(ownerToken(ownerKey));
  }

  /** Stops following the feed. */
  close(): void {
    this.#stop();
  }
}
