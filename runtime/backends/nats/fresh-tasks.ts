/**
 * Tasks this node created a moment ago, followed by the node's event feed from their very first
 * record: for them the node knows, without a read, the state its own writes and the feed say the
 * task is in. A wait that starts right after the create (a SEP-1686 request's own answer, a
 * client's `tasks/result`) takes its first state from here instead of a round trip to the stream
 * leader. Only a wait may: a wait keeps watching, so a state a moment stale costs it nothing,
 * whereas a `tasks/get` must see what another node wrote before it replied (a cancel).
 *
 * @module
 */
import { isTerminalStatus } from '../../../machines/index.js';
import type { EventFeed, FeedWatch } from './event-feed.js';

/** How long after its create a task is followed this way. */
export const FRESH_TASK_MS = 5_000;

interface Held {
  readonly key: string;
  readonly watch: FeedWatch;
  readonly until: number;
}

/**
 * The node's recently created tasks, each with a feed watch placed before its record was written.
 *
 * @example
 * ```ts
 * const fresh = new FreshTasks(feed);
 * const follow = fresh.follow(key);      // before the create
 * follow.created(record.seq);            // once stored (or follow.failed())
 * fresh.isFollowed(key);                 // true for FRESH_TASK_MS
 * ```
 */
export class FreshTasks {
  readonly #feed: EventFeed;
  readonly #now: () => number;
  /** Oldest first: every entry is held for the same time, so expiry is from the head. */
  #queue: Held[] = [];
  #head = 0;
  readonly #held = new Map<string, Held>();

  constructor(feed: EventFeed, now: () => number = Date.now) {
    this.#feed = feed;
    this.#now = now;
  }

  /**
   * Starts following a task about to be created: the watch is placed before the write, so no
   * event of the task can pass unseen.
   *
   * @param key - the task key
   * @example
   * ```ts
   * const follow = fresh.follow(key);
   * ```
   */
  follow(key: string): { created(seq: number): void; failed(): void } {
    this.#expire();
    // A task of the same id created here a moment ago (deleted since): its watch goes first, or
    // the new one would share its cursor, past the new task's first events.
    const previous = this.#held.get(key);
    if (previous) {
      this.#held.delete(key);
      previous.watch.stop();
    }
    let held: Held | null = null;
    let over = false;
    // Not followed past its end or deletion: a task created again under the id (on any node)
    // must not find this watch's cursor, which is past the new task's first events.
    const watch = this.#feed.watch(key, (event) => {
      if (isTerminalStatus(event.view.status) || event.kind === 'task.deleted') {
        over = true;
        if (held !== null && this.#held.get(key) === held) this.#held.delete(key);
        watch.stop();
      }
    });
    return {
      created: (seq) => {
        watch.from(seq);
        // Ended already among the events held back until now: nothing to follow.
        if (over) return;
        held = { key, watch, until: this.#now() + FRESH_TASK_MS };
        this.#held.get(key)?.watch.stop();
        this.#held.set(key, held);
        this.#queue.push(held);
      },
      failed: () => watch.stop(),
    };
  }

  /**
   * Whether the feed has followed this task since its create on this node, in order, with
   * nothing missing so far.
   *
   * @example
   * ```ts
   * if (fresh.isFollowed(key) && feed.position(key) === known.seq) return known.record;
   * ```
   */
  isFollowed(key: string): boolean {
    this.#expire();
    return this.#held.has(key);
  }

  /** Stops every watch. */
  close(): void {
    for (const held of this.#held.values()) held.watch.stop();
    this.#held.clear();
    this.#queue = [];
    this.#head = 0;
  }

  #expire(): void {
    const now = this.#now();
    while (this.#head < this.#queue.length && this.#queue[this.#head]!.until <= now) {
      const held = this.#queue[this.#head++]!;
      if (this.#held.get(held.key) === held) {
        this.#held.delete(held.key);
        held.watch.stop();
      }
    }
    // Compacted once the expired head outweighs what is left.
    if (this.#head > 1_024 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
  }
}

