/**
 * A node's live view of task events: one core subscription on `<prefix>.events.>` (JetStream
 * publishes reach core subscribers too), dispatched to watchers of single tasks in per-task
 * sequence order: repeats are skipped, and a gap is filled from the event stream, or, when the
 * writer died before publishing, from the task's record.
 *
 * @module
 */
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { applyInOrder } from './apply-in-order.js';
import type { FeedEvent, RecordStore } from './record-store.js';

interface Envelope {
  readonly seq: number;
  readonly event: FeedEvent;
}

interface Watched {
  /** Last sequence delivered; `null` until the watcher said where it starts. */
  lastSeq: number | null;
  buffered: Envelope[];
  readonly listeners: Set<(event: FeedEvent) => void>;
  gapTimer: NodeJS.Timeout | null;
}

/** A registration from {@link EventFeed.watch}. */
export interface FeedWatch {
  /** Starts delivery after `seq` (the sequence of the record the watcher read after watching). */
  from(seq: number): void;
  /** Stops delivery to this listener. */
  stop(): void;
}

/** How long a gap may stay open before it is filled from the stream. */
const GAP_WAIT_MS = 150;

/**
 * The event feed of one node.
 *
 * @example
 * ```ts
 * const feed = new EventFeed(nc, store, 'tasks');
 * const w = feed.watch(key, (e) => console.log(e.kind, e.view.status));
 * w.from((await store.read(key))!.found.record.seq);
 * ```
 */
export class EventFeed {
  readonly #store: RecordStore;
  readonly #watched = new Map<string, Watched>();
  readonly #all = new Set<(key: string, event: FeedEvent, seq: number) => void>();
  readonly #sub: Subscription;
  readonly #prefixTokens: number;

  constructor(nc: NatsConnection, store: RecordStore, prefix: string) {
    this.#store = store;
    const subject = `${store.events.subjectPrefix}.>`;
    this.#prefixTokens = subject.split('.').length - 1;
    void prefix;
    this.#sub = nc.subscribe(subject, {
      callback: (error, msg) => {
        if (error) return;
        try {
          const key = msg.subject.split('.').slice(this.#prefixTokens).join('.');
          this.#receive(key, msg.json<Envelope>());
        } catch {
          // Not an event envelope: nothing on this subject is meant for anyone else.
        }
      },
    });
  }

  /**
   * Calls `listener` with every event of one task, in order, once `from()` says where to start.
   *
   * @param key - the task key
   * @param listener - gets each event
   * @example
   * ```ts
   * const w = feed.watch(key, onEvent); w.from(record.seq); … w.stop();
   * ```
   */
  watch(key: string, listener: (event: FeedEvent) => void): FeedWatch {
    let w = this.#watched.get(key);
    if (!w) {
      w = { lastSeq: null, buffered: [], listeners: new Set(), gapTimer: null };
      this.#watched.set(key, w);
    }
    const watched = w;
    watched.listeners.add(listener);
    return {
      from: (seq) => {
        // Only the first call places the cursor: it is shared by every watcher of the task on this
        // node, and moving it ahead on a later, fresher read would skip events others still need.
        if (watched.lastSeq !== null) return;
        watched.lastSeq = seq;
        this.#drain(key, watched, []);
      },
      stop: () => {
        watched.listeners.delete(listener);
        if (watched.listeners.size === 0 && this.#watched.get(key) === watched) {
          if (watched.gapTimer) clearTimeout(watched.gapTimer);
          this.#watched.delete(key);
        }
      },
    };
  }

  /**
   * Calls `listener` with every event of every task as it arrives, with its per-task sequence
   * (repeats and order not managed: for monitors). Returns the unsubscribe.
   *
   * @example
   * ```ts
   * const stop = feed.watchAll((key, e) => console.log(key, e.kind));
   * ```
   */
  watchAll(listener: (key: string, event: FeedEvent, seq: number) => void): () => void {
    this.#all.add(listener);
    return () => this.#all.delete(listener);
  }

  /**
   * The sequence of the last event of a task delivered in order to its watchers, or `null` when
   * nobody watches it, its cursor is not placed yet, or events are held back behind a gap.
   *
   * @example
   * ```ts
   * const seq = feed.position(key);
   * ```
   */
  position(key: string): number | null {
    const w = this.#watched.get(key);
    return w && w.lastSeq !== null && w.buffered.length === 0 ? w.lastSeq : null;
  }

  /** Stops the subscription and every watch. */
  close(): void {
    this.#sub.unsubscribe();
    for (const w of this.#watched.values()) if (w.gapTimer) clearTimeout(w.gapTimer);
    this.#watched.clear();
    this.#all.clear();
  }

  #receive(key: string, envelope: Envelope): void {
    for (const listener of this.#all) listener(key, envelope.event, envelope.seq);
    const w = this.#watched.get(key);
    if (w) this.#drain(key, w, [envelope]);
  }

  #drain(key: string, w: Watched, incoming: Envelope[]): void {
    if (w.lastSeq === null) {
      w.buffered.push(...incoming);
      return;
    }
    const result = applyInOrder(w.lastSeq, [...w.buffered, ...incoming]);
    w.buffered = result.pending;
    w.lastSeq = result.lastSeq;
    for (const e of result.apply) for (const listener of [...w.listeners]) listener(e.event);
    if (result.gap && !w.gapTimer) {
      w.gapTimer = setTimeout(() => {
        w.gapTimer = null;
        void this.#fill(key, w);
      }, GAP_WAIT_MS);
    }
  }

  /**
   * Reads the missing events from the stream. Events that were never published (the writer died
   * between its write and its publish) are skipped: every event carries the task's whole view,
   * so the next one brings the listener up to date.
   */
  async #fill(key: string, w: Watched): Promise<void> {
    if (w.lastSeq === null || w.buffered.length === 0 || this.#watched.get(key) !== w) return;
    let stored;
    try {
      stored = await this.#store.events.read(key, w.lastSeq + 1);
    } catch {
      // Could not read the stream (NATS busy): try again later rather than skip what is missing.
      if (!w.gapTimer && this.#watched.get(key) === w) w.gapTimer = setTimeout(() => ((w.gapTimer = null), void this.#fill(key, w)), GAP_WAIT_MS * 4);
      return;
    }
    this.#drain(key, w, stored.map((r) => ({ seq: r.seq, event: r.event })));
    const first = w.buffered[0];
    if (first === undefined || w.lastSeq === null || first.seq <= w.lastSeq + 1) return;
    w.lastSeq = first.seq - 1;
    this.#drain(key, w, []);
  }
}
