/**
 * The cluster-wide cap on tasks one requester has running (`maxConcurrentTasks`).
 *
 * Each requester has one KV entry listing the keys of tasks it started, claimed with a
 * compare-and-set before the task is created and released by the node whose write ends the task.
 * A node may die between the two writes, so when the list is full the claim also reads those
 * tasks' records and drops the ones that ended or are gone: a crash never leaves a requester
 * locked out.
 *
 * A node keeps the entry as it last wrote or read it, with its revision, and writes over that by
 * compare-and-swap without reading first: one KV operation when a task starts and one when it
 * ends while this node is the one writing the requester's entry, a read more when another node
 * wrote it since (the swap fails, the entry is read, and the swap is tried again).
 *
 * @module
 */
import type { KV } from '@nats-io/kv';
import { ensureBucket } from './ensure-stream.js';
import type { NatsConnection } from '@nats-io/transport-node';
import { isTerminalStatus } from '../../../machines/index.js';
import { TaskLimitError } from '../../errors.js';
import { isWrongLastSequence } from './errors.js';
import { nameFromPrefix, ownerToken } from './keys.js';
import type { RecordStore } from './record-store.js';

/** One requester's entry. */
interface Claims {
  /** Task keys it started that were running when last checked, with when each was claimed. */
  readonly keys: Readonly<Record<string, number>>;
}
/** A claimed task without a record yet is being created (for at most this long): it counts. */
const CREATING_MS = 30_000;

/** Entries a node keeps with their revision (the requesters it serves most recently). */
const KEPT_ENTRIES = 10_000;

/** An entry as last written or read here: `revision` 0 when there is none (create-only write). */
interface Seen {
  readonly claims: Claims;
  readonly revision: number;
}

/**
 * Claims running-task slots per requester, across every node of a task space.
 *
 * @example
 * ```ts
 * const running = await RunningTasks.open(nc, layout, store, () => Date.now());
 * await running.claim(ownerKey, taskKey, 100); // throws TaskLimitError at the cap
 * await running.release(ownerKey, taskKey); // once the task ended
 * ```
 */
export class RunningTasks {
  readonly #kv: KV;
  readonly #store: RecordStore;
  readonly #now: () => number;
  readonly #seen = new Map<string, Seen>();

  private constructor(kv: KV, store: RecordStore, now: () => number) {
    this.#kv = kv;
    this.#store = store;
    this.#now = now;
  }

  /** Opens (or creates) the `<prefix>_running` bucket. */
  static async open(nc: NatsConnection, layout: { prefix: string; replicas: number; storage: 'file' | 'memory' }, store: RecordStore, now: () => number): Promise<RunningTasks> {
    const kv = await ensureBucket(nc, `${nameFromPrefix(layout.prefix)}_running`, { history: 1, replicas: layout.replicas, storage: layout.storage });
    return new RunningTasks(kv, store, now);
  }

  /**
   * Counts `taskKey` as running for the requester, unless it already has `max` running.
   *
   * @throws TaskLimitError at the cap
   */
  async claim(ownerKey: string, taskKey: string, max: number): Promise<void> {
    const entryKey = ownerToken(ownerKey);
    // The entry as this node last saw it: written over without a read when nobody wrote since.
    let seen = this.#seen.get(entryKey);
    // What is in the entry as this node saw it may be old: refused only on what was just read.
    let fresh = seen === undefined;
    seen ??= await this.#read(entryKey);
    for (;;) {
      const current = seen.claims;
      const counted = Object.hasOwn(current.keys, taskKey);
      // Nothing is decided on an entry that may be old when it would say "counted" (another node
      // may have released the key since, its id then used again) or "full": it is read first.
      if (!fresh && (counted || Object.keys(current.keys).length >= max)) {
        seen = await this.#read(entryKey);
        fresh = true;
        continue;
      }
      if (counted) return;
      // At the cap: a task may have ended without its release written yet (in flight, or its node
      // died). Reading them costs up to `max` reads per refused creation, which the creation rate
      // limit bounds.
      const keys = Object.keys(current.keys).length >= max ? await this.#stillRunning(current.keys) : current.keys;
      const full = Object.keys(keys).length >= max;
      if (full && Object.keys(keys).length === Object.keys(current.keys).length) throw refusal(max);
      const next: Claims = { keys: full ? keys : { ...keys, [taskKey]: this.#now() } };
      if (!(await this.#write(entryKey, seen, next))) {
        // Another node wrote the requester's entry since: look again.
        seen = await this.#read(entryKey);
        fresh = true;
        continue;
      }
      if (full) throw refusal(max);
      return;
    }
  }

  /**
   * Counts `taskKey` as ended: the requester may start another at once. Best effort (a failed
   * write is made up for by the check a full list triggers).
   */
  async release(ownerKey: string, taskKey: string): Promise<void> {
    const entryKey = ownerToken(ownerKey);
    let seen = this.#seen.get(entryKey);
    for (let attempt = 0; attempt < 10; attempt++) {
      // Not in the entry as this node saw it: it may be in a newer one (claimed on another node).
      if (seen === undefined || !Object.hasOwn(seen.claims.keys, taskKey)) {
        seen = await this.#read(entryKey);
        if (!Object.hasOwn(seen.claims.keys, taskKey)) return;
      }
      const keys = Object.fromEntries(Object.entries(seen.claims.keys).filter(([key]) => key !== taskKey));
      if (await this.#write(entryKey, seen, { keys })) return;
      seen = undefined;
    }
  }

  /** Reads a requester's entry (and keeps it as seen). */
  async #read(entryKey: string): Promise<Seen> {
    const entry = await this.#kv.get(entryKey);
    const seen: Seen = entry?.operation === 'PUT' ? { claims: entry.json<Claims>(), revision: entry.revision } : { claims: { keys: {} }, revision: entry?.revision ?? 0 };
    this.#keep(entryKey, seen);
    return seen;
  }

  /** Writes `next` over the entry as seen; `false` when another write came first. */
  async #write(entryKey: string, seen: Seen, next: Claims): Promise<boolean> {
    try {
      const json = JSON.stringify(next);
      const revision = seen.revision === 0 ? await this.#kv.create(entryKey, json) : await this.#kv.update(entryKey, json, seen.revision);
      this.#keep(entryKey, { claims: next, revision });
      return true;
    } catch (error) {
      this.#seen.delete(entryKey);
      if (isWrongLastSequence(error)) return false;
      throw error;
    }
  }

  #keep(entryKey: string, seen: Seen): void {
    // Most recent last: the oldest goes first when the map is full.
    this.#seen.delete(entryKey);
    this.#seen.set(entryKey, seen);
    if (this.#seen.size > KEPT_ENTRIES) this.#seen.delete(this.#seen.keys().next().value!);
  }

  /** The claims whose task is still running, or still being created. */
  async #stillRunning(claims: Readonly<Record<string, number>>): Promise<Record<string, number>> {
    const entries = Object.entries(claims);
    const reads = await Promise.all(entries.map(([key]) => this.#store.read(key)));
    const now = this.#now();
    return Object.fromEntries(
      entries.filter(([, claimedAt], i) => {
        const read = reads[i];
        if (read === null) return now - claimedAt < CREATING_MS;
        return read !== undefined && 'found' in read && !isTerminalStatus(read.found.record.status);
      }),
    );
  }
}

const refusal = (max: number): TaskLimitError => new TaskLimitError('maxConcurrentTasks', `${max} running tasks per requester`, null);
