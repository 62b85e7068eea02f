/**
 * Each task's latest JSON snapshot in a KV bucket (history 1), so any node can answer `tasks/get`.
 * Writes are compare-and-swap on the revision the writer got back from its own previous write,
 * never on one re-read from a replica.
 *
 * @module
 */
import type { NatsConnection } from '@nats-io/transport-node';
import { Kvm, type KV } from '@nats-io/kv';
import { DuplicateTaskIdError, InvalidArgumentError } from '../../errors.js';
import { isWrongLastSequence, RevisionMismatchError } from './errors.js';
import { nameFromPrefix, taskKey, type TaskRef } from './keys.js';

/** Options of {@link SnapshotStore.open}. */
export interface SnapshotStoreOptions {
  /**
   * Prefix of the bucket name; the bucket is `<prefix>_snapshots` (dots become `_`).
   * @default 'tasks'
   */
  readonly bucketPrefix?: string;
  /**
   * Replicas of the bucket's stream (1, 3 or 5; 3 needs a cluster).
   * @default 1
   */
  readonly replicas?: number;
  /**
   * `'file'` survives a server restart; `'memory'` does not.
   * @default 'file'
   */
  readonly storage?: 'file' | 'memory';
}

/** A stored snapshot and the revision to pass to the next {@link SnapshotStore.update}. */
export interface StoredSnapshot<T> {
  readonly value: T;
  readonly revision: number;
}

/**
 * The snapshot bucket.
 *
 * @typeParam T - the JSON shape of a snapshot
 * @example
 * ```ts
 * const store = await SnapshotStore.open<TaskSnapshot>(nc, { bucketPrefix: 'tasks' });
 * let rev = await store.create(ref, snapshot);
 * rev = await store.update(ref, { ...snapshot, status: 'completed' }, rev);
 * ```
 */
export class SnapshotStore<T = unknown> {
  /** The bucket's name. */
  readonly bucket: string;
  readonly #kv: KV;

  private constructor(bucket: string, kv: KV) {
    this.bucket = bucket;
    this.#kv = kv;
  }

  /**
   * Creates the bucket if it is missing and binds to it.
   *
   * @param nc - a connection from `connectNats`
   * @param options - bucket prefix, replicas, storage
   * @throws the client's JetStream error when JetStream is not enabled or the bucket config clashes
   * @example
   * ```ts
   * const store = await SnapshotStore.open(nc, { replicas: 3 });
   * ```
   */
  static async open<T = unknown>(nc: NatsConnection, options: SnapshotStoreOptions = {}): Promise<SnapshotStore<T>> {
    const bucket = `${nameFromPrefix(options.bucketPrefix ?? 'tasks')}_snapshots`;
    const kv = await new Kvm(nc).create(bucket, {
      history: 1,
      replicas: options.replicas ?? 1,
      storage: options.storage ?? 'file',
      // Reads go through the stream leader: a direct get may be served by a lagging replica.
      allow_direct: false,
    });
    return new SnapshotStore<T>(bucket, kv);
  }

  /**
   * Stores the first snapshot of a task.
   *
   * @param ref - owner key and task id
   * @param value - a JSON-serializable snapshot
   * @returns the revision to pass to the next {@link SnapshotStore.update}
   * @throws {@link DuplicateTaskIdError} when the task already has a snapshot
   * @example
   * ```ts
   * const revision = await store.create({ ownerKey, taskId }, snapshot);
   * ```
   */
  async create(ref: TaskRef, value: T): Promise<number> {
    try {
      return await this.#kv.create(taskKey(ref), JSON.stringify(value));
    } catch (e) {
      if (isWrongLastSequence(e)) throw new DuplicateTaskIdError(ref.taskId, { cause: e });
      throw e;
    }
  }

  /**
   * Reads a task's latest snapshot.
   *
   * @param ref - owner key and task id
   * @returns the snapshot and its revision, or `null` when there is none (or it was deleted)
   * @example
   * ```ts
   * const current = await store.get(ref);
   * if (current) console.log(current.revision, current.value);
   * ```
   */
  async get(ref: TaskRef): Promise<StoredSnapshot<T> | null> {
    const entry = await this.#kv.get(taskKey(ref));
    if (entry === null || entry.operation !== 'PUT') return null;
    return { value: entry.json<T>(), revision: entry.revision };
  }

  /**
   * Replaces a task's snapshot if it is still at `expectedRevision` (compare-and-swap).
   *
   * @param ref - owner key and task id
   * @param value - the new snapshot
   * @param expectedRevision - the revision returned by this writer's last create/update
   * @returns the new revision
   * @throws {@link RevisionMismatchError} when the key is at another revision (or gone)
   * @throws {@link InvalidArgumentError} when `expectedRevision` is not a positive integer
   * @example
   * ```ts
   * try { rev = await store.update(ref, next, rev); }
   * catch (e) { if (e instanceof RevisionMismatchError) … someone else owns the task now }
   * ```
   */
  async update(ref: TaskRef, value: T, expectedRevision: number): Promise<number> {
    if (!Number.isSafeInteger(expectedRevision) || expectedRevision <= 0) {
      throw new InvalidArgumentError(`expectedRevision must be a positive integer, got ${expectedRevision}`);
    }
    const key = taskKey(ref);
    try {
      return await this.#kv.update(key, JSON.stringify(value), expectedRevision);
    } catch (e) {
      if (isWrongLastSequence(e)) throw new RevisionMismatchError(key, expectedRevision, { cause: e });
      throw e;
    }
  }

  /**
   * Deletes a task's snapshot; with `expectedRevision`, only if it is still at that revision.
   *
   * @param ref - owner key and task id
   * @param expectedRevision - optional compare-and-swap guard
   * @throws {@link RevisionMismatchError} when `expectedRevision` is given and does not match
   * @example
   * ```ts
   * await store.delete(ref);
   * ```
   */
  async delete(ref: TaskRef, expectedRevision?: number): Promise<void> {
    const key = taskKey(ref);
    try {
      await this.#kv.delete(key, expectedRevision === undefined ? undefined : { previousSeq: expectedRevision });
    } catch (e) {
      if (expectedRevision !== undefined && isWrongLastSequence(e)) throw new RevisionMismatchError(key, expectedRevision, { cause: e });
      throw e;
    }
  }
}
