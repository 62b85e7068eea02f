/**
 * Records of tasks created a moment ago on any node, as their `task.created` events carried them
 * (record and KV revision): a worker handed the run of a task another node created starts it from
 * here instead of reading the record, one awaited round trip less with front and worker apart.
 *
 * Safe to be stale: the start is a compare-and-swap on the heard revision, so a record that moved
 * on since (a cancel) fails the write, and the worker reads and decides again.
 *
 * @module
 */
import type { EventFeed } from './event-feed.js';
import type { Revisioned } from './record-store.js';

/** How long a heard record is kept for a run to come and take it. */
export const HEARD_MS = 2_000;

/** At most this many records kept (a burst of creates beyond it falls back to reads). */
const MAX_HEARD = 10_000;

interface Heard {
  readonly key: string;
  readonly at: Revisioned;
  readonly until: number;
}

interface Waiter {
  readonly order: number;
  /** Answers the waiter and forgets it. */
  readonly settle: (r: Revisioned | undefined) => void;
}

/**
 * The created records a worker node has heard of lately.
 *
 * @example
 * ```ts
 * const heard = new HeardCreates(feed, nodeId);
 * const record = await heard.take(item.key, item.order, 100); // undefined: read it
 * heard.close();
 * ```
 */
export class HeardCreates {
  readonly #now: () => number;
  readonly #stop: () => void;
  /** Oldest first: every entry is kept for the same time, so expiry is from the head. */
  #queue: Heard[] = [];
  #head = 0;
  readonly #byKey = new Map<string, Heard>();
  readonly #waiters = new Map<string, Waiter[]>();

  /**
   * @param feed - the node's event feed
   * @param nodeId - this node: its own creates are known to it without this
   * @param now - clock, for tests
   */
  constructor(feed: EventFeed, nodeId: string, now: () => number = Date.now) {
    this.#now = now;
    this.#stop = feed.watchAll((key, event) => {
      if (event.kind !== 'task.created' || event.node === nodeId || event.record === undefined || event.revision === undefined) return;
      this.#hear(key, { record: event.record, revision: event.revision });
    });
  }

  /**
   * The record of task `key` created with `order`, as its creator wrote it: at once when heard
   * already, else when heard within `waitMs`, else `undefined`. Taken once: a second call (a
   * retry after a refused start) finds nothing and reads.
   *
   * @param key - the task key
   * @param order - the creation the run is for (its index entry's sequence)
   * @param waitMs - how long to wait for a create not heard yet (0: don't)
   * @example
   * ```ts
   * const base = await heard.take(item.key, item.order, 100);
   * ```
   */
  take(key: string, order: number, waitMs: number): Revisioned | undefined | Promise<Revisioned | undefined> {
    this.#expire();
    const heard = this.#byKey.get(key);
    if (heard && heard.at.record.order === order) {
      this.#byKey.delete(key);
      return heard.at;
    }
    if (waitMs <= 0) return undefined;
    return new Promise((resolve) => {
      const drop = (): void => {
        const rest = this.#waiters.get(key)?.filter((w) => w !== waiter) ?? [];
        if (rest.length > 0) this.#waiters.set(key, rest);
        else this.#waiters.delete(key);
      };
      const timer = setTimeout(() => {
        drop();
        resolve(undefined);
      }, waitMs);
      const waiter: Waiter = {
        order,
        settle: (r) => {
          clearTimeout(timer);
          drop();
          resolve(r);
        },
      };
      this.#waiters.set(key, [...(this.#waiters.get(key) ?? []), waiter]);
    });
  }

  /** How many records are kept now (bounded by time and by count). */
  get size(): number {
    this.#expire();
    return this.#byKey.size;
  }

  /** Stops listening and answers every waiter with nothing. */
  close(): void {
    this.#stop();
    for (const list of [...this.#waiters.values()]) for (const w of list) w.settle(undefined);
    this.#byKey.clear();
    this.#queue = [];
    this.#head = 0;
  }

  #hear(key: string, at: Revisioned): void {
    const waiter = this.#waiters.get(key)?.find((w) => w.order === at.record.order);
    if (waiter) {
      waiter.settle(at);
      return;
    }
    this.#expire();
    if (this.#byKey.size >= MAX_HEARD) return;
    const heard = { key, at, until: this.#now() + HEARD_MS };
    this.#byKey.set(key, heard);
    this.#queue.push(heard);
  }

  #expire(): void {
    const now = this.#now();
    while (this.#head < this.#queue.length && this.#queue[this.#head]!.until <= now) {
      const heard = this.#queue[this.#head++]!;
      if (this.#byKey.get(heard.key) === heard) this.#byKey.delete(heard.key);
    }
    // Compacted once the expired head outweighs what is left.
    if (this.#head > 1_024 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
  }
}
