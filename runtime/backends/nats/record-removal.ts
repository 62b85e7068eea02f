/**
 * Removing a task from the NATS backend, every part of it: its record (a delete or purge marker),
 * its result, the parts of its record kept apart, its events and its index entry, within bounds
 * taken before the removal decided (so a task created again under the key keeps its own), and the
 * announcement that lets every node answer "expired" for it afterwards.
 *
 * @module
 */
import type { NatsConnection } from '@nats-io/transport-node';
import { JetStreamApiError, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { ExpiredMemory } from '../../core/expired-memory.js';
import { eraseSubject, lastMarker, nextSequence, removeKey, type BucketStream } from './erase.js';
import type { EventStream } from './event-stream.js';
import type { PayloadStore } from './payload-store.js';
import type { FeedEvent } from './record-store.js';
import type { TaskRecord } from './task-record.js';

/** Where the streams a removal purges stood before it decided: its purges stop before these sequences. */
export interface RemovalBounds {
  readonly events: number;
  readonly results: number;
}

/** What a removal works on: the streams and buckets of the store it removes from. */
export interface RemovalParts {
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  readonly recordBucket: BucketStream;
  readonly resultBucket: BucketStream;
  readonly events: EventStream<FeedEvent>;
  readonly payloads: PayloadStore;
  readonly indexStream: string;
  readonly removedSubject: string;
  readonly expired: ExpiredMemory;
  /** Forgets what the store keeps of a task this node wrote (its last revision). */
  readonly forget: (key: string) => void;
}

/**
 * The removals of one record store (`store.removal`).
 *
 * @example
 * ```ts
 * await store.removal.remove(key, record, { expired: true });
 * ```
 */
export class RecordRemoval {
  readonly #nc: NatsConnection;
  readonly #js: JetStreamClient;
  readonly #jsm: JetStreamManager;
  readonly #recordBucket: BucketStream;
  readonly #resultBucket: BucketStream;
  readonly #events: EventStream<FeedEvent>;
  readonly #payloads: PayloadStore;
  readonly #indexStream: string;
  readonly #removedSubject: string;
  readonly #expired: ExpiredMemory;
  readonly #forget: (key: string) => void;

  constructor(parts: RemovalParts) {
    this.#nc = parts.nc;
    this.#js = parts.js;
    this.#jsm = parts.jsm;
    this.#recordBucket = parts.recordBucket;
    this.#resultBucket = parts.resultBucket;
    this.#events = parts.events;
    this.#payloads = parts.payloads;
    this.#indexStream = parts.indexStream;
    this.#removedSubject = parts.removedSubject;
    this.#expired = parts.expired;
    this.#forget = parts.forget;
  }

  /**
   * Removes a task: record, result, events and index entry, leaving nothing of it in any stream.
   * An expired one is announced to every node first, so a later read on any of them says
   * "expired" rather than "not found" (for the most recent `expiredMemory` expiries).
   *
   * @param how - `expired` (retention ended) or not (deleted); `revision`: remove only the record
   *   read at this revision (a newer write wins, and this call throws)
   * @param also - more of the task to erase once its record is gone, along with its result and events
   * @param taken - bounds taken before this call (shared by the removals of a batch); default: now
   * @example
   * ```ts
   * await store.remove(key, record, { expired: false });
   * ```
   */
  async remove(
    key: string,
    record: TaskRecord,
    how: { readonly expired: boolean; readonly revision?: number },
    also?: () => Promise<unknown>,
    taken?: RemovalBounds,
  ): Promise<void> {
    this.#forget(key);
    // Before the record goes: a node that misses the record after this finds it remembered.
    this.#nc.publish(this.#removedSubject, `${how.expired ? 'E' : 'D'}${key}`);
    this.#note(how.expired, key);
    // Taken before the marker (or given, taken earlier): a task created again under this key
    // right after it keeps its own.
    const bounds = taken ?? (await this.removalBounds());
    await removeKey(this.#js, this.#jsm, this.#recordBucket, key, how.expired ? 'DEL' : 'PURGE', how.revision);
    await this.erase(key, { order: record.order, inline: Boolean(record.inline), marker: null, payloads: record.payloads !== undefined }, bounds, also);
  }

  /**
   * Where the streams a removal purges stand now: its purges stop there (see `nextSequence`).
   *
   * @example
   * ```ts
   * const bounds = await store.removalBounds();
   * ```
   */
  async removalBounds(): Promise<RemovalBounds> {
    const [events, results] = await Promise.all([nextSequence(this.#jsm, this.#events.stream), nextSequence(this.#jsm, this.#resultBucket.stream)]);
    return { events, results };
  }

  /**
   * What a task's record subject ends with: a marker (its sequence), a live record, or nothing.
   *
   * @example
   * ```ts
   * const last = await store.recordEnd(key);
   * ```
   */
  recordEnd(key: string): Promise<number | 'live' | null> {
    return lastMarker(this.#jsm, this.#recordBucket.stream, this.#recordBucket.subject(key));
  }

  /**
   * Purges what is left of a removed task, up to `bounds` (what was there before the removal
   * decided): its result (unless it rode in the record), the parts of its record kept apart,
   * events and index entry, whatever `also` erases, and its record's subject through `marker` when
   * given (a removal whose own purge did not go through). Every part is tried; the first failure
   * is then thrown, so a caller that retries (the expiry loop) finishes the removal once NATS
   * answers again. Safe to repeat.
   *
   * @param known - the task's `order` (its incarnation: its index entry, its parts kept apart),
   *   whether its result was inline, the sequence of its record's marker, whether its record
   *   kept parts apart (`payloads`: unknown counts as yes)
   * @example
   * ```ts
   * await store.erase(key, { order: item.order, inline: false, marker: 42, payloads: true }, await store.removalBounds());
   * ```
   */
  async erase(
    key: string,
    known: { readonly order: number; readonly inline: boolean; readonly marker: number | null; readonly payloads: boolean },
    bounds: RemovalBounds,
    also?: () => Promise<unknown>,
  ): Promise<void> {
    const parts: Promise<unknown>[] = [this.#events.purge(key, bounds.events)];
    if (known.marker !== null) parts.push(eraseSubject(this.#jsm, this.#recordBucket.stream, this.#recordBucket.subject(key), known.marker + 1));
    if (also) parts.push(also());
    // A result kept in the record never touched the results bucket; any other may have (even
    // one that lost to a cancel), in one message or in chunks under `<key>.c<i>`.
    if (!known.inline) {
      const results = this.#resultBucket;
      parts.push(eraseSubject(this.#jsm, results.stream, results.subject(key), bounds.results), eraseSubject(this.#jsm, results.stream, results.subject(`${key}.*`), bounds.results));
    }
    // This incarnation's only: a task created again under the id keeps its own.
    // This incarnation's only (a task created again under the id keeps its own): so all of them,
    // whenever they were written.
    if (known.payloads) parts.push(this.#payloads.purge(key, known.order));
    if (known.order > 0) parts.push(this.dropIndexEntry(known.order));
    const failed = (await Promise.allSettled(parts)).find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /**
   * Deletes index entry `order` (one task's, whatever the key holds now); already gone is fine.
   *
   * @example
   * ```ts
   * await store.dropIndexEntry(record.order);
   * ```
   */
  async dropIndexEntry(order: number): Promise<void> {
    await this.#jsm.streams.deleteMessage(this.#indexStream, order, false).catch((e: unknown) => {
      // Already deleted (an earlier try): a decided answer, not a failure.
      if (!(e instanceof JetStreamApiError)) throw e;
    });
  }

  /**
   * Follows the removals every node announces (see {@link RecordRemoval.remove}) until the returned
   * function is called: expired ids are remembered, deleted ones forgotten.
   *
   * @example
   * ```ts
   * const stop = store.listen();
   * // … on shutdown
   * stop();
   * ```
   */
  listen(): () => void {
    const sub = this.#nc.subscribe(this.#removedSubject, {
      callback: (error, msg) => {
        if (error) return;
        const text = msg.string();
        this.#note(text.startsWith('E'), text.slice(1));
      },
    });
    return () => sub.unsubscribe();
  }

  #note(expired: boolean, key: string): void {
    // The revision this node last wrote is of no use once the task is gone. A node that created
    // a task another node ran and ended keeps that revision until then: without this, one entry
    // per such task, forever (the soak's heap grew ~470 B per task).
    this.#forget(key);
    if (expired) this.#expired.remember(key);
    else this.#expired.forget(key);
  }

}
