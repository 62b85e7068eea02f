/**
 * The cluster-wide cap on tasks one requester has running (`maxConcurrentTasks`).
 *
 * Each requester has one KV entry listing the keys of tasks it started, claimed with a
 * compare-and-set before the task is created and released by the node whose write ends the task.
 * A node may die between the two writes, so when the list is full the claim also reads those
 * tasks' records and drops the ones that ended or are gone: a crash never leaves a requester
 * locked out. The bookkeeping costs two KV operations when a task starts and two when it ends.
 *
 * @module
 */
import { Kvm, type KV } from '@nats-io/kv';
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

  private constructor(kv: KV, store: RecordStore, now: () => number) {
    this.#kv = kv;
    this.#store = store;
    this.#now = now;
  }

  /** Opens (or creates) the `<prefix>_running` bucket. */
  static async open(nc: NatsConnection, layout: { prefix: string; replicas: number; storage: 'file' | 'memory' }, store: RecordStore, now: () => number): Promise<RunningTasks> {
    const kv = await new Kvm(nc).create(`${nameFromPrefix(layout.prefix)}_running`, { history: 1, replicas: layout.replicas, storage: layout.storage });
    return new RunningTasks(kv, store, now);
  }

  /**
   * Counts `taskKey` as running for the requester, unless it already has `max` running.
   *
   * @throws TaskLimitError at the cap
   */
  async claim(ownerKey: string, taskKey: string, max: number): Promise<void> {
    const entryKey = ownerToken(ownerKey);
    for (;;) {
      const entry = await this.#kv.get(entryKey);
      const current: Claims = entry?.operation === 'PUT' ? entry.json<Claims>() : { keys: {} };
      if (Object.hasOwn(current.keys, taskKey)) return;
      // At the cap: a task may have ended without its release written yet (in flight, or its node
      // died). Reading them costs up to `max` reads per refused creation, which the creation rate
      // limit bounds.
      const keys = Object.keys(current.keys).length >= max ? await this.#stillRunning(current.keys) : current.keys;
      const full = Object.keys(keys).length >= max;
      if (full && Object.keys(keys).length === Object.keys(current.keys).length) throw refusal(max);
      const next: Claims = { keys: full ? keys : { ...keys, [taskKey]: this.#now() } };
      try {
        if (entry === null || entry.operation !== 'PUT') await this.#kv.create(entryKey, JSON.stringify(next));
        else await this.#kv.update(entryKey, JSON.stringify(next), entry.revision);
      } catch (error) {
        // Another node claimed for this requester at the same moment: look again.
        if (isWrongLastSequence(error)) continue;
        throw error;
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
    for (let attempt = 0; attempt < 10; attempt++) {
      const entry = await this.#kv.get(entryKey);
      if (entry?.operation !== 'PUT') return;
      const current = entry.json<Claims>();
      if (!Object.hasOwn(current.keys, taskKey)) return;
      const keys = Object.fromEntries(Object.entries(current.keys).filter(([key]) => key !== taskKey));
      const next: Claims = { keys };
      try {
        await this.#kv.update(entryKey, JSON.stringify(next), entry.revision);
        return;
      } catch (error) {
        if (!isWrongLastSequence(error)) throw error;
      }
    }
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
