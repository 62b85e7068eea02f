/**
 * The operator's view of the memory backend: the runtime holds every task, so listing is a walk
 * of its entries, and each task's timeline is kept here (see `timeline-log.ts`), freed with it.
 *
 * Timelines are kept from the first `observe()` on, not before: a runtime nobody observes (an
 * embedded library, a server without the inspector) then pays nothing per task, where keeping
 * them always added ~10% to each retained task's memory. A server that shows them opens its
 * observer at startup and so has every task's complete timeline. A task that moved before that
 * shows its creation, then one entry for where it was when first seen (see `startTrail`).
 *
 * @module
 */
import { createHash } from 'node:crypto';
import type { HandlerPosition, TaskContext, TaskStatus } from '../../../machines/index.js';
import { GraphTable } from '../../core/machine-graphs.js';
import type { MachineGraph } from '../../handlers/machine-graph.types.js';
import { TimelineEvent, type ObservedTask, type ObserverUpdate, type TaskObserver, type TimelineEntry } from '../../observer.types.js';
import { familyEvent, observedFamily } from '../../observer-family.js';
import { inferTimelineEvent } from '../../observer-timeline.js';
import { appendToTrail, readTrail, startTrail, type TimelineLog } from './timeline-log.js';

/**
 * What the observation reads of one of the runtime's entries.
 *
 * @example
 * ```ts
 * const entries = new Map<string, ObservableEntry>();
 * ```
 */
export interface ObservableEntry {
  /** The runtime's own key (owner key and task id). */
  readonly key: string;
  readonly status: TaskStatus;
  readonly context: TaskContext;
  readonly hasResult: boolean;
  readonly result: unknown;
  readonly expiresAt: number | null;
}

/**
 * The page's keys of tasks: URL-safe and opaque. The runtime's key holds the owner's session id,
 * which on an anonymous HTTP endpoint is the requester's only credential, so the page's key is a
 * hash of it (as on NATS), never an encoding anyone can read the session back from. Both
 * directions are kept for the tasks in the store, and forgotten with them.
 */
function hashed(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('base64url').slice(0, 32);
}

class ObservedKeys {
  readonly #observed = new Map<string, string>();
  readonly #runtime = new Map<string, string>();

  of(key: string): string {
    let observed = this.#observed.get(key);
    if (observed === undefined) {
      observed = hashed(key);
      this.#observed.set(key, observed);
      this.#runtime.set(observed, key);
    }
    return observed;
  }

  runtimeKey(observed: string): string | undefined {
    return this.#runtime.get(observed);
  }

  /** Forgets a removed task; returns the key the page knew it by. */
  forget(key: string): string {
    const observed = this.#observed.get(key);
    if (observed === undefined) return hashed(key);
    this.#observed.delete(key);
    this.#runtime.delete(observed);
    return observed;
  }

  clear(): void {
    this.#observed.clear();
    this.#runtime.clear();
  }
}

/**
 * The timelines and observers of one memory runtime. The runtime calls `created`, `changed` and
 * `removed` as its tasks move; `open` makes an observer.
 *
 * @example
 * ```ts
 * const observation = new MemoryObservation('local', entries);
 * observation.changed(entry, previousStatus, previousContext);
 * const observer = observation.open();
 * ```
 */
export class MemoryObservation {
  readonly #node: string;
  readonly #keys = new ObservedKeys();
  readonly #entries: ReadonlyMap<string, ObservableEntry>;
  /** Every listener of every open observer. */
  readonly #listeners = new Set<(update: ObserverUpdate) => void>();
  /** Each task's packed timeline and, once it has a status message, its messages (by runtime key). */
  readonly #trails = new Map<string, number[]>();
  readonly #notes = new Map<string, (string | null)[]>();
  /** And, once its handler machine reported, where it was at each entry. */
  readonly #positions = new Map<string, (HandlerPosition | null)[]>();
  /**
   * The graphs of handler machines run here (`observer.machine(key)`), kept whether observed or
   * not (one per machine definition: a handful; bounded all the same).
   */
  readonly #graphs = new GraphTable();
  /** Set by the first `open()`, for good: closing and reopening a page must not leave gaps. */
  #recording = false;

  /**
   * @param node - the node name every task and entry shows
   * @param entries - the runtime's tasks, by its key, in creation order
   */
  constructor(node: string, entries: ReadonlyMap<string, ObservableEntry>) {
    this.#node = node;
    this.#entries = entries;
  }

  /** A task was created. */
  created(entry: ObservableEntry): void {
    if (!this.#recording) return;
    const log = startTrail(entry.status, entry.context);
    this.#trails.set(entry.key, log.trail);
    if (this.#listeners.size === 0) return;
    this.#emit({ kind: 'upsert', task: this.#task(entry), entry: readTrail(log, this.#node)[0]! });
  }

  /**
   * A task's snapshot changed: adds the change to its timeline (when it is one an operator would
   * see) and tells the observers.
   *
   * @param entry - the task, already holding its new status and context
   * @param previous - its status before
   * @param before - its context before
   */
  changed(entry: ObservableEntry, previous: TaskStatus, before: TaskContext): void {
    if (!this.#recording) return;
    const c = entry.context;
    const event = inferTimelineEvent(previous, before, entry.status, c) ?? familyEvent(before, c);
    if (event === null) return;
    const log = this.#log(entry.key) ?? startTrail(previous, before);
    const handler = event === TimelineEvent.handler ? (c.handler ?? null) : null;
    appendToTrail(log, c.updatedAt, event, previous, entry.status, c.statusMessage, handler);
    this.#trails.set(entry.key, log.trail);
    if (log.notes) this.#notes.set(entry.key, log.notes);
    if (log.positions) this.#positions.set(entry.key, log.positions);
    if (this.#listeners.size === 0) return;
    const added: TimelineEntry = { at: c.updatedAt, status: entry.status, previous, event, node: this.#node, message: c.statusMessage, ...(handler !== null && { handler }) };
    this.#emit({ kind: 'upsert', task: this.#task(entry), entry: added });
  }

  /** A run here shares its handler machine's graph (see `RunPort.shareMachine`). */
  shareMachine(key: string, graph: MachineGraph): void {
    this.#graphs.set(key, graph);
  }

  /** A task was deleted or expired. */
  removed(entry: ObservableEntry): void {
    if (!this.#recording) return;
    this.#trails.delete(entry.key);
    this.#notes.delete(entry.key);
    this.#positions.delete(entry.key);
    const key = this.#keys.forget(entry.key);
    if (this.#listeners.size === 0) return;
    this.#emit({ kind: 'removed', key });
  }

  /** Forgets every listener (the runtime was disposed). */
  clear(): void {
    this.#listeners.clear();
    this.#trails.clear();
    this.#notes.clear();
    this.#positions.clear();
    this.#keys.clear();
  }

  /**
   * A new observer of this runtime.
   *
   * @example
   * ```ts
   * const observer = observation.open();
   * console.log((await observer.list()).length);
   * ```
   */
  open(): TaskObserver {
    this.#recording = true;
    const mine = new Set<(update: ObserverUpdate) => void>();
    const find = (key: string): ObservableEntry | undefined => {
      const runtimeKey = this.#keys.runtimeKey(key);
      return runtimeKey === undefined ? undefined : this.#entries.get(runtimeKey);
    };
    return {
      list: async () => Array.from(this.#entries.values(), (entry) => this.#task(entry)),
      timeline: async (key) => {
        const entry = find(key);
        if (!entry) return [];
        return readTrail(this.#log(entry.key) ?? startTrail(entry.status, entry.context), this.#node);
      },
      result: async (key) => {
        const entry = find(key);
        if (!entry) return { hasResult: false };
        return entry.hasResult ? { hasResult: true, result: entry.result, error: entry.context.error } : { hasResult: false, error: entry.context.error };
      },
      machine: async (graph) => this.#graphs.get(graph),
      watch: (listener) => {
        // Wrapped: the same function watched twice is two subscriptions, each stopped by its own call.
        const wrapped = (update: ObserverUpdate): void => listener(update);
        mine.add(wrapped);
        this.#listeners.add(wrapped);
        return () => {
          mine.delete(wrapped);
          this.#listeners.delete(wrapped);
        };
      },
      close: async () => {
        for (const listener of mine) this.#listeners.delete(listener);
        mine.clear();
      },
    };
  }

  #log(key: string): TimelineLog | null {
    const trail = this.#trails.get(key);
    return trail === undefined ? null : { trail, notes: this.#notes.get(key) ?? null, positions: this.#positions.get(key) ?? null };
  }

  #task(entry: ObservableEntry): ObservedTask {
    const c = entry.context;
    return {
      key: this.#keys.of(entry.key),
      taskId: c.taskId,
      status: entry.status,
      method: c.method,
      label: c.label,
      dialect: c.dialect,
      owner: c.owner,
      node: this.#node,
      createdAt: c.createdAt,
      updatedAt: c.updatedAt,
      statusMessage: c.statusMessage,
      progress: c.progress ?? null,
      handler: c.handler ?? null,
      error: c.error,
      pendingInputs: c.pendingInputs,
      expiresAt: entry.expiresAt,
      hasResult: entry.hasResult,
      ...observedFamily(c),
    };
  }

  #emit(update: ObserverUpdate): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(update);
      } catch {
        // A listener's failure is its own: the task and the other observers go on.
      }
    }
  }
}
