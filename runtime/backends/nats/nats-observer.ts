/**
 * The operator's view of a NATS task space, the whole cluster's: a watch of the record bucket
 * gives every task (its latest record first, then every write on any node, and removals as
 * markers), the event feed names each change and the node that made it, and a task's timeline
 * is read from its stored events, so a task created before the observer has its full history.
 *
 * A write lands in the bucket just before its event is published: the watch usually sees a record
 * first. Its update then waits up to {@link EVENT_GRACE_MS} for the event, to carry the event's
 * name and node; an event that never comes (its writer died in between) is told from the records.
 *
 * @module
 */
import { familyEvent } from '../../observer-family.js';
import { inferTimelineEvent } from '../../observer-timeline.js';
import type { MachineGraph } from '../../handlers/machine-graph.types.js';
import type { ObservedResult, ObservedTask, ObserverUpdate, TaskObserver, TimelineEntry } from '../../observer.types.js';
import type { EventFeed } from './event-feed.js';
import type { MachineGraphs } from './machine-graphs.js';
import { entryOfEvent, entryOfRecord, observedOfRecord, observedOfView, readResult, readTimeline, sameObserved } from './observed-record.js';
import type { FeedEvent, RecordStore } from './record-store.js';
import type { TaskRecord } from './task-record.js';

/**
 * How long a record seen before its event waits for it (events follow within milliseconds).
 *
 * @example
 * ```ts
 * await delay(EVENT_GRACE_MS + 50); // any held record has been announced by now
 * ```
 */
export const EVENT_GRACE_MS = 250;

interface Known {
  /** What was last shown; `null` until the task is first announced. */
  shown: ObservedTask | null;
  /** The record sequence `shown` reflects. */
  seq: number;
  /** A newer record waiting for its event. */
  pending: TaskRecord | null;
  timer: NodeJS.Timeout | null;
}

/**
 * One observer of a NATS task space. Made by `runtime.observe()`.
 *
 * @example
 * ```ts
 * const observer = new NatsObserver(space.store, space.feed, space.graphs);
 * const stop = observer.watch((u) => console.log(u));
 * ```
 */
export class NatsObserver implements TaskObserver {
  readonly #store: RecordStore;
  readonly #graphs: MachineGraphs;
  readonly #known = new Map<string, Known>();
  readonly #listeners = new Set<(update: ObserverUpdate) => void>();
  readonly #stopFeed: () => void;
  readonly #ready: Promise<void>;
  #stopWatch: (() => void) | null = null;
  #loaded = false;
  /** Events that arrived while the records loaded, replayed once they are in (`null` after). */
  #early: [key: string, event: FeedEvent, seq: number][] | null = [];
  #closed = false;
  /** Told when the observer closes (the runtime forgets it). */
  onClose: (() => void) | null = null;

  constructor(store: RecordStore, feed: EventFeed, graphs: MachineGraphs) {
    this.#store = store;
    this.#graphs = graphs;
    // The feed first: an event published while the records load is then not missed.
    this.#stopFeed = feed.watchAll((key, event, seq) => this.#onEvent(key, event, seq));
    this.#ready = this.#load();
    // list() reports a failed load; the events held for it are dropped and no more are taken.
    this.#ready.catch(() => {
      this.#early = null;
      this.#stopFeed();
    });
  }

  async list(): Promise<ObservedTask[]> {
    await this.#ready;
    const tasks: ObservedTask[] = [];
    for (const [key, k] of this.#known) {
      const task = k.pending ? observedOfRecord(key, k.pending) : k.shown;
      if (task) tasks.push(task);
    }
    return tasks.sort((a, b) => a.createdAt - b.createdAt || (a.key < b.key ? -1 : 1));
  }

  timeline(key: string): Promise<TimelineEntry[]> {
    return readTimeline(this.#store, key);
  }

  result(key: string): Promise<ObservedResult> {
    return readResult(this.#store, key);
  }

  machine(graph: string): Promise<MachineGraph | null> {
    return this.#graphs.get(graph);
  }

  watch(listener: (update: ObserverUpdate) => void): () => void {
    const wrapped = (update: ObserverUpdate): void => listener(update);
    this.#listeners.add(wrapped);
    return () => this.#listeners.delete(wrapped);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#stopFeed();
    this.#stopWatch?.();
    for (const k of this.#known.values()) if (k.timer) clearTimeout(k.timer);
    this.#known.clear();
    this.#listeners.clear();
    this.onClose?.();
  }

  async #load(): Promise<void> {
    const { updates, initial } = await this.#store.watchRecords();
    if (this.#closed) return updates.stop();
    this.#stopWatch = () => updates.stop();
    let ready: () => void = () => undefined;
    const loaded = new Promise<void>((resolve) => (ready = resolve));
    const markLoaded = (): void => {
      this.#loaded = true;
      const early = this.#early ?? [];
      this.#early = null;
      // What changed while loading: whatever the loaded records do not hold yet is announced now.
      for (const [key, event, seq] of early) this.#onEvent(key, event, seq);
      ready();
    };
    if (initial === 0) markLoaded();
    void (async () => {
      for await (const entry of updates) {
        try {
          if (entry.operation === 'PUT') this.#onRecord(entry.key, entry.json<TaskRecord>());
          else this.#onRemoved(entry.key);
        } catch {
          // Not a task record (nothing else is written there): one bad entry must not end the watch.
        }
        // The bucket's entries at the start are all in once none is pending behind this one.
        if (!this.#loaded && (entry.delta === 0 || entry.isUpdate)) markLoaded();
      }
    })().catch(() => markLoaded());
    await loaded;
  }

  #onRecord(key: string, record: TaskRecord): void {
    const known = this.#known.get(key);
    if (!this.#loaded) {
      // Loading: the latest record is the state (unless an event already told a later one).
      if (!known || known.seq < record.seq) this.#known.set(key, { shown: observedOfRecord(key, record), seq: record.seq, pending: null, timer: null });
      return;
    }
    // A new task: it waits for its creation event.
    if (!known) return this.#hold({ shown: null, seq: 0, pending: null, timer: null }, key, record);
    if (record.seq > known.seq) return this.#hold(known, key, record);
    if (record.seq < known.seq || known.shown === null) return;
    // The same change, seen from its event first: the record adds what the event lacks (result flag, node).
    const task = observedOfRecord(key, record);
    if (sameObserved(known.shown, task)) return;
    known.shown = task;
    this.#emit({ kind: 'upsert', task, entry: null });
  }

  #hold(known: Known, key: string, record: TaskRecord): void {
    this.#known.set(key, known);
    known.pending = record;
    known.timer ??= setTimeout(() => this.#flush(key, known), EVENT_GRACE_MS);
  }

  /** The event of a held record did not come: the record alone says what changed. */
  #flush(key: string, known: Known): void {
    known.timer = null;
    const record = known.pending;
    known.pending = null;
    if (record === null || record.seq <= known.seq || this.#known.get(key) !== known) return;
    const before = known.shown;
    const task = observedOfRecord(key, record);
    const event = before ? (inferTimelineEvent(before.status, before, record.status, record.context) ?? familyEvent(before, record.context)) : record.seq === 1 ? 'task.created' : null;
    const entry = event && entryOfRecord(record, event, before?.status ?? null);
    known.shown = task;
    known.seq = record.seq;
    this.#emit({ kind: 'upsert', task, entry });
  }

  #onEvent(key: string, event: FeedEvent, seq: number): void {
    if (this.#early) {
      this.#early.push([key, event, seq]);
      return;
    }
    const entry = entryOfEvent(event);
    // A deletion's removal comes with the record's purge.
    if (entry === null) return;
    let known = this.#known.get(key);
    if (!known) {
      // Any other event of a task not seen yet is followed by its record.
      if (event.kind !== 'task.created') return;
      known = { shown: null, seq: 0, pending: null, timer: null };
      this.#known.set(key, known);
    }
    if (seq <= known.seq) return;
    const pending = known.pending;
    // The worker: the writer of the start, or of a later attempt's first write (a resumed task moved).
    const moved = event.attempt !== undefined && event.attempt > (known.shown?.attempt ?? 0);
    const worker = event.kind === 'task.start' || moved ? event.node : (known.shown?.node ?? event.node);
    const hasResult = event.view.status === 'completed' || (event.view.status === 'failed' && (known.shown?.hasResult ?? false));
    const runs = { attempt: event.attempt ?? known.shown?.attempt ?? 0, checkpoint: known.shown?.checkpoint ?? null };
    const task = pending?.seq === seq ? observedOfRecord(key, pending) : observedOfView(key, event.view, worker, hasResult, runs, known.shown);
    known.shown = task;
    known.seq = seq;
    if (pending && pending.seq <= seq) {
      known.pending = null;
      if (known.timer) clearTimeout(known.timer);
      known.timer = null;
    }
    this.#emit({ kind: 'upsert', task, entry });
  }

  #onRemoved(key: string): void {
    const known = this.#known.get(key);
    if (!known) return;
    if (known.timer) clearTimeout(known.timer);
    this.#known.delete(key);
    if (this.#loaded && known.shown) this.#emit({ kind: 'removed', key });
  }

  #emit(update: ObserverUpdate): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(update);
      } catch {
        // A listener's failure is its own: the other observers and the feed go on.
      }
    }
  }
}
