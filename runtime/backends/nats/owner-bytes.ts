/**
 * The bytes each requester's ended tasks keep across the cluster, for
 * `maxRetainedBytesPerRequester` on NATS. Every node receives every task's events, and the event
 * that ends a task carries its record (with the size of its outcome), so each node counts every
 * requester's ended tasks, wherever they were created or ended, without a read: a create is
 * judged with no round trip, as the other retention limits are (see `kept-readings.ts`).
 *
 * A task is counted from its end until its `task.deleted` event, a `task.created` under its key,
 * or the end of its retention (expiry removes a task without an event: past its retention it is
 * gone for every reader). The tasks that ended before the node started are read once from the
 * records bucket when it starts ({@link OwnerBytes.load}; its first creates wait for that, up to
 * {@link LOAD_WAIT_MS}). An end event lost in an outage is not counted (its task then counts
 * nothing); the node's `maxRetainedBytes` reads the streams themselves and bounds that.
 *
 * @module
 */
import type { KvWatchEntry } from '@nats-io/kv';
import { isTerminalStatus } from '../../../machines/index.js';
import { KeptBytes, keptBytesOf } from '../../core/kept-bytes.js';
import type { EventFeed } from './event-feed.js';
import { ownerToken } from './keys.js';
import type { FeedEvent } from './record-store.js';
import type { TaskRecord } from './task-record.js';

/**
 * What one ended task keeps on NATS besides its values: its record (about 0.9 KB) and its events
 * (about 3.5 KB: they stay until it is removed), as `RecordStore.storedBytes` counts them.
 */
export const NATS_RECORD_BYTES = 4_096;

/** The most ended tasks counted (the first counted are forgotten first), as `stats().retained`. */
const MAX_COUNTED = 100_000;

/** How often tasks past their retention are forgotten. */
const PRUNE_MS = 1_000;

/** The longest a create waits for the records this node found at its start to be counted, ms. */
export const LOAD_WAIT_MS = 2_000;

/** Where the records kept at a node's start are read from (`RecordStore.watchRecords`). */
export interface RecordsAtStart {
  watchRecords(): Promise<{ readonly updates: AsyncIterable<KvWatchEntry> & { stop(): void }; readonly initial: number }>;
}

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
  /** While the records at start are read: the keys the feed told of since (it is newer), else `null`. */
  #heardWhileLoading: Set<string> | null = null;
  /** Settles once the records at start are counted, or {@link LOAD_WAIT_MS} after the load began. */
  #loaded: Promise<void> | null = null;
  #closed = false;

  constructor(feed: Pick<EventFeed, 'watchAll'>, now: () => number) {
    this.#now = now;
    this.#stop = feed.watchAll((key, event) => this.heard(key, event));
  }

  /**
   * One event of the feed. The key names its owner (`<owner token>.<task token>`, see `taskKey`),
   * so the count is by owner token, the same for the owner key on every node.
   */
  heard(key: string, event: FeedEvent): void {
    this.#heardWhileLoading?.add(key);
    if (event.kind === 'task.deleted' || event.kind === 'task.created') return this.#kept.remove(key);
    const record = event.record;
    if (record === undefined || !isTerminalStatus(record.status)) return;
    this.#count(key, record);
  }

  #count(key: string, record: TaskRecord): void {
    const owner = key.slice(0, key.indexOf('.'));
    this.#kept.add(key, owner, keptBytesOf(record, record.outcomeBytes ?? 0, NATS_RECORD_BYTES), record.expiresAt ?? Infinity);
    if (this.#kept.size > MAX_COUNTED) this.#kept.prune(this.#now(), MAX_COUNTED);
  }

  /**
   * Counts the ended tasks the records bucket holds now (once, as the node starts): those that
   * ended before this node heard the feed. A key the feed told of meanwhile keeps what it told.
   *
   * @example
   * ```ts
   * owners.load(space.store);
   * await owners.ready(); // before judging a create
   * ```
   */
  load(source: RecordsAtStart): void {
    if (this.#loaded) return;
    this.#heardWhileLoading = new Set();
    const reading = this.#read(source).catch(() => undefined).finally(() => (this.#heardWhileLoading = null));
    const waited = new Promise<void>((resolve) => setTimeout(resolve, LOAD_WAIT_MS).unref());
    this.#loaded = Promise.race([reading, waited]);
  }

  /** Settles once the records at start are counted (or after {@link LOAD_WAIT_MS}); at once without a load. */
  ready(): Promise<void> | null {
    return this.#loaded;
  }

  async #read(source: RecordsAtStart): Promise<void> {
    const { updates, initial } = await source.watchRecords();
    try {
      if (initial === 0 || this.#closed) return;
      for await (const entry of updates) {
        if (this.#closed) return;
        if (entry.operation === 'PUT' && !this.#heardWhileLoading?.has(entry.key)) {
          try {
            const record = entry.json<TaskRecord>();
            if (isTerminalStatus(record.status)) this.#count(entry.key, record);
          } catch {
            // Not a task record (nothing else is written there): skipped.
          }
        }
        // The bucket's entries at the start are all in once none is pending behind this one.
        if (entry.delta === 0 || entry.isUpdate) return;
      }
    } finally {
      updates.stop();
    }
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
    this.#closed = true;
    this.#stop();
  }
}
