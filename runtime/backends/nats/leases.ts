/**
 * Leases that say which node runs a task. A lease is a KV entry holding the owner node and an
 * expiry timestamp; every write is a compare-and-swap on the KV revision, so two nodes can never
 * both believe they took the same lease.
 *
 * Expiry is decided by comparing `expiresAt` in the value with the reader's clock, not by a KV
 * TTL: nats-server 2.9 silently ignores per-key TTL, and a bucket-wide `max_age` would also drop
 * live, renewed leases' history at the wrong moments. Nodes' clocks must agree to well within the
 * lease TTL (NTP is plenty for TTLs of seconds).
 *
 * @module
 */
import { headers, type NatsConnection } from '@nats-io/transport-node';
import type { KV, KvEntry } from '@nats-io/kv';
import { ensureBucket } from './ensure-stream.js';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { bucketStream, eraseSubject, lastMarker, nextSequence, removeKey } from './erase.js';
import { InvalidArgumentError } from '../../errors.js';
import { isWrongLastSequence, LeaseLostError } from './errors.js';
import { nameFromPrefix } from './keys.js';
import { onAbort } from './stop-signal.js';

/** How long a dropped lease's marker stays in the stream before it is purged (see `drop`). */
export const DROP_MARKER_LINGER_MS = 5_000;

/** What a lease entry holds. */
export interface LeaseValue {
  /** The node that holds the lease. */
  readonly nodeId: string;
  /** Epoch milliseconds after which the lease may be taken over. */
  readonly expiresAt: number;
}

/** A held lease: pass it to {@link LeaseManager.renew} and {@link LeaseManager.release}. */
export interface Lease extends LeaseValue {
  readonly taskKey: string;
  /** KV revision of this holder's last write. */
  readonly revision: number;
  readonly ttlMs: number;
}

/** Options of {@link LeaseManager.open}. */
export interface LeaseManagerOptions {
  /**
   * Prefix of the bucket name; the bucket is `<prefix>_leases` (dots become `_`).
   * @default 'tasks'
   */
  readonly bucketPrefix?: string;
  /** Replicas of the bucket's stream. @default 1 */
  readonly replicas?: number;
  /** Storage of the bucket's stream. @default 'file' */
  readonly storage?: 'file' | 'memory';
  /** Clock, for tests. @default Date.now */
  readonly now?: () => number;
}

/**
 * True when a lease entry may be taken over at `now`: it is deleted, unreadable, or past its
 * `expiresAt`.
 *
 * @param entry - a lease value, or a raw KV entry of the lease bucket
 * @param now - epoch milliseconds
 * @example
 * ```ts
 * isExpired({ nodeId: 'a', expiresAt: 1_000 }, 1_000); // true
 * isExpired({ nodeId: 'a', expiresAt: 1_001 }, 1_000); // false
 * ```
 */
export function isExpired(entry: LeaseValue | KvEntry | null, now: number): boolean {
  if (entry === null) return true;
  const value = 'operation' in entry ? parseLease(entry) : entry;
  return value === null || now >= value.expiresAt;
}

/** The lease value of a KV entry, or null when it is deleted or not a lease. */
function parseLease(entry: KvEntry): LeaseValue | null {
  if (entry.operation !== 'PUT') return null;
  try {
    const v = entry.json<Partial<LeaseValue> | null>();
    if (v && typeof v.nodeId === 'string' && typeof v.expiresAt === 'number') return { nodeId: v.nodeId, expiresAt: v.expiresAt };
  } catch {
    // not JSON: treat as no lease, so it can be overwritten
  }
  return null;
}

function checkTtl(ttlMs: number): void {
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw new InvalidArgumentError(`ttlMs must be a positive number, got ${ttlMs}`);
}

/**
 * Acquires, renews and releases task leases in the `<prefix>_leases` bucket.
 *
 * @example
 * ```ts
 * const leases = await LeaseManager.open(nc);
 * let lease = await leases.acquire(key, 'node-a', 10_000);
 * if (lease) {
 *   const timer = setInterval(async () => { lease = await leases.renew(lease!); }, 3_000);
 *   try { await run(); } finally { clearInterval(timer); await leases.release(lease); }
 * }
 * ```
 */
export class LeaseManager {
  readonly bucket: string;
  readonly #nc: NatsConnection;
  readonly #kv: KV;
  readonly #jsm: JetStreamManager;
  readonly #js: JetStreamClient;
  readonly #now: () => number;

  private constructor(nc: NatsConnection, bucket: string, kv: KV, js: JetStreamClient, jsm: JetStreamManager, now: () => number) {
    this.#nc = nc;
    this.bucket = bucket;
    this.#kv = kv;
    this.#js = js;
    this.#jsm = jsm;
    this.#now = now;
  }

  /**
   * Creates the lease bucket if missing and binds to it.
   *
   * @param nc - a connection from `connectNats`
   * @param options - bucket prefix, replicas, storage, clock
   * @example
   * ```ts
   * const leases = await LeaseManager.open(nc, { bucketPrefix: 'tasks' });
   * ```
   */
  static async open(nc: NatsConnection, options: LeaseManagerOptions = {}): Promise<LeaseManager> {
    const bucket = `${nameFromPrefix(options.bucketPrefix ?? 'tasks')}_leases`;
    const kv = await ensureBucket(nc, bucket, {
      history: 1,
      replicas: options.replicas ?? 1,
      storage: options.storage ?? 'file',
      allow_direct: false,
    });
    return new LeaseManager(nc, bucket, kv, jetstream(nc), await jetstreamManager(nc), options.now ?? Date.now);
  }

  /**
   * Removes every trace of a task's lease, marker included, without telling watchers: for a task
   * being removed, whose lease was released (and watched as such) when its run ended.
   *
   * @param taskKey - the task's key
   * @param before - purge only what came before this stream sequence (see `nextSequence`)
   * @example
   * ```ts
   * await leases.erase(key);
   * ```
   */
  async erase(taskKey: string, before?: number): Promise<void> {
    const bucket = bucketStream(this.bucket);
    await eraseSubject(this.#jsm, bucket.stream, bucket.subject(taskKey), before);
  }

  /**
   * Purges a task's lease subject when what it ends with is a release's marker: for a removal
   * that may have come before the task's last holder let its lease go (see `letGo`, sent once the
   * task's retention timer is queued). A live lease (a task created again under the id) stays.
   *
   * @example
   * ```ts
   * await leases.eraseLateMarker(key);
   * ```
   */
  async eraseLateMarker(taskKey: string): Promise<void> {
    const bucket = bucketStream(this.bucket);
    const end = await lastMarker(this.#jsm, bucket.stream, bucket.subject(taskKey));
    if (typeof end === 'number') await eraseSubject(this.#jsm, bucket.stream, bucket.subject(taskKey), end + 1);
  }

  /**
   * The sequence the next lease write will have at the least: a bound for {@link LeaseManager.erase}.
   *
   * @example
   * ```ts
   * const before = await leases.nextSequence();
   * ```
   */
  nextSequence(): Promise<number> {
    return nextSequence(this.#jsm, bucketStream(this.bucket).stream);
  }

  /**
   * Takes the lease of a task for `nodeId`: creates it when free, or takes over an expired one by
   * compare-and-swap on the revision it read.
   *
   * @param taskKey - the task's key (see `taskKey()`)
   * @param nodeId - this node's id
   * @param ttlMs - how long the lease lasts without renewal
   * @returns the lease, or `null` when another holder's lease is still live (or another node won
   *   the race for an expired one)
   * @throws {@link InvalidArgumentError} when `ttlMs` is not positive
   * @example
   * ```ts
   * const lease = await leases.acquire(key, nodeId, 10_000);
   * if (!lease) return; // someone else runs it
   * ```
   */
  async acquire(taskKey: string, nodeId: string, ttlMs: number): Promise<Lease | null> {
    checkTtl(ttlMs);
    const value = (): LeaseValue => ({ nodeId, expiresAt: this.#now() + ttlMs });
    try {
      const v = value();
      const revision = await this.#kv.create(taskKey, JSON.stringify(v));
      return { ...v, taskKey, revision, ttlMs };
    } catch (e) {
      if (!isWrongLastSequence(e)) throw e;
    }
    const current = await this.#kv.get(taskKey);
    if (current === null || !isExpired(current, this.#now())) return null;
    try {
      const v = value();
      const revision = await this.#kv.update(taskKey, JSON.stringify(v), current.revision);
      return { ...v, taskKey, revision, ttlMs };
    } catch (e) {
      if (isWrongLastSequence(e)) return null;
      throw e;
    }
  }

  /**
   * Extends a held lease by its TTL from now (compare-and-swap on its revision).
   *
   * @param lease - the lease from the last acquire/renew
   * @returns the renewed lease (use it for the next renew/release)
   * @throws {@link LeaseLostError} when another node took the lease over or it was released
   * @example
   * ```ts
   * lease = await leases.renew(lease);
   * ```
   */
  async renew(lease: Lease): Promise<Lease> {
    const v: LeaseValue = { nodeId: lease.nodeId, expiresAt: this.#now() + lease.ttlMs };
    try {
      const revision = await this.#kv.update(lease.taskKey, JSON.stringify(v), lease.revision);
      return { ...lease, ...v, revision };
    } catch (e) {
      if (isWrongLastSequence(e)) throw new LeaseLostError(lease.taskKey, lease.nodeId, { cause: e });
      throw e;
    }
  }

  /**
   * Gives a lease up, if it is still this holder's (compare-and-swap delete).
   *
   * @param lease - the lease from the last acquire/renew
   * @returns `true` when released, `false` when it had already been taken over
   * @example
   * ```ts
   * await leases.release(lease);
   * ```
   */
  async release(lease: Lease): Promise<boolean> {
    try {
      await this.#kv.delete(lease.taskKey, { previousSeq: lease.revision });
      return true;
    } catch (e) {
      if (isWrongLastSequence(e)) return false;
      throw e;
    }
  }

  /**
   * Gives a lease up like {@link LeaseManager.release} (the same guarded delete, the same
   * marker watchers see), without asking the server to acknowledge it: for a holder that has
   * nothing to do with the answer. If it does not go through, the lease expires and the node that
   * takes it over finds the task ended (a request saved on every task that ends).
   *
   * @example
   * ```ts
   * leases.letGo(lease);
   * ```
   */
  letGo(lease: Lease): void {
    const h = headers();
    h.set('KV-Operation', 'DEL');
    h.set('Nats-Expected-Last-Subject-Sequence', String(lease.revision));
    try {
      this.#nc.publish(bucketStream(this.bucket).subject(lease.taskKey), undefined, { headers: h });
    } catch {
      // Connection closed or draining: the lease runs out instead.
    }
  }

  /**
   * Gives up a lease on a task that no longer exists: like {@link LeaseManager.release} (watchers
   * see it go), then its marker is purged too, since no removal of the task will come to do it.
   * The purge comes {@link DROP_MARKER_LINGER_MS} later, in the background: purged at once, a
   * watcher a little behind would miss the drop, and its failover check would come back for a
   * task that is gone.
   *
   * @param lease - the lease from the last acquire/renew
   * @returns `true` when dropped, `false` when it had already been taken over
   * @example
   * ```ts
   * if ((await store.read(key)) === null) await leases.drop(lease);
   * ```
   */
  async drop(lease: Lease): Promise<boolean> {
    try {
      await removeKey(this.#js, this.#jsm, bucketStream(this.bucket), lease.taskKey, 'DEL', lease.revision, DROP_MARKER_LINGER_MS);
      return true;
    } catch (e) {
      if (isWrongLastSequence(e)) return false;
      throw e;
    }
  }

  /**
   * Reads who holds a task's lease, expired or not.
   *
   * @param taskKey - the task's key
   * @returns the holder and expiry, or `null` when there is no lease
   * @example
   * ```ts
   * const holder = await leases.holder(key);
   * if (holder && !isExpired(holder, Date.now())) console.log('run by', holder.nodeId);
   * ```
   */
  async holder(taskKey: string): Promise<(LeaseValue & { readonly revision: number }) | null> {
    const entry = await this.#kv.get(taskKey);
    if (entry === null) return null;
    const value = parseLease(entry);
    return value === null ? null : { ...value, revision: entry.revision };
  }

  /**
   * Follows every lease: calls `onChange` with each lease's current value at start, then with
   * every change (`null` when a lease was released). Stops when `signal` aborts.
   *
   * @param onChange - gets the task key and the lease (or `null`)
   * @param signal - stops the watch
   * @example
   * ```ts
   * void leases.watch((key, lease) => schedule(key, lease?.expiresAt), stop.signal);
   * ```
   */
  async watch(onChange: (taskKey: string, lease: LeaseValue | null) => void, signal: AbortSignal): Promise<void> {
    const watcher = await this.#kv.watch();
    const off = onAbort(signal, () => void watcher.stop());
    try {
      for await (const entry of watcher) onChange(entry.key, parseLease(entry));
    } finally {
      off();
    }
  }

  /**
   * Every lease held now, expired or not (for `mcp-tasks status`).
   *
   * @example
   * ```ts
   * for (const l of await leases.list()) console.log(l.taskKey, l.nodeId);
   * ```
   */
  async list(): Promise<(LeaseValue & { readonly taskKey: string })[]> {
    const out: (LeaseValue & { readonly taskKey: string })[] = [];
    for await (const key of await this.#kv.keys()) {
      const entry = await this.#kv.get(key);
      const value = entry === null ? null : parseLease(entry);
      if (value !== null) out.push({ ...value, taskKey: key });
    }
    return out;
  }
}
