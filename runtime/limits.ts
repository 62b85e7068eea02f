/**
 * Per-requester limits (SEP-1686 §8): how many tasks one requester may have running, how fast it
 * may create tasks, poll them and list them. Rates are token buckets (a burst of twice the rate
 * per second, refilled continuously), kept per requester (`requesterOf`: an authenticated one's
 * sessions share its principal's, anonymous 2026-07-28 callers one per address); a refusal names the limit and when to
 * retry, and never touches the requester's other tasks.
 *
 * @module
 */
import { InvalidArgumentError, TaskLimitError } from './errors.js';

/** The limits; `null` turns one off. */
export interface RequesterLimits {
  /** Tasks one requester may have running (not yet terminal). @default 100 */
  readonly maxConcurrentTasks: number | null;
  /** Task creations per requester per second. @default 20 */
  readonly createsPerSecond: number | null;
  /**
   * `get`/`result`/`outcome` calls (tasks/get, tasks/result polls) per requester per second, all
   * of them, in one bucket (bursts of twice the rate). A poll of a task that waited at least 0.9 ×
   * the interval the task suggested at its previous poll (on NATS, per node: see `PollPacing`)
   * keeps to the pace: it passes even when the bucket is empty, up to one more burst of debt, so
   * following the suggestion is not refused over a burst, but no requester polls faster than the
   * rate for long, however many tasks it keeps. The default lets a requester follow as many tasks
   * as it may run (`maxConcurrentTasks`) at the default one-second interval.
   * @default 100
   */
  readonly pollsPerSecond: number | null;
  /** `list` calls per requester per second. @default 10 */
  readonly listsPerSecond: number | null;
  /** Longest task id, in characters (SEP-1686 requesters choose their ids). @default 128 */
  readonly maxTaskIdLength: number | null;
  /**
   * Largest result a task may keep, in bytes of JSON; a larger one fails the task saying so.
   * @default 921_600 (900 KiB; both backends keep larger results when raised or off)
   */
  readonly maxResultBytes: number | null;
  /**
   * Largest params a task may be created with, and largest answer to one of its input requests,
   * in bytes of JSON; larger ones are refused (a retry will not pass). The NATS backend keeps them
   * beside the task's record, so any size up to this works there as in memory.
   * @default 4_194_304 (4 MiB, the HTTP endpoint's largest request body)
   */
  readonly maxRequestBytes: number | null;
  /**
   * Tasks one requester may have kept at once (created and not yet removed: running, or ended and
   * within their keepAlive); past it, a new task is refused until one expires or is deleted. What
   * a requester was promised is never evicted early. On NATS, counted across the cluster. The
   * default holds a steady requester at the default rate (20/s) and keepAlive (5 min): ~6,000.
   * @default 10_000
   */
  readonly maxRetainedTasks: number | null;
  /**
   * Bytes of kept tasks the node may hold (memory: this process's ended tasks, their results,
   * failure details, messages and partial results as JSON and 1 KiB per record; NATS: the task
   * space's records and results buckets and event stream); past it, every new task is refused
   * until kept tasks expire or are deleted. Node-wide: each requester may hold at most its share
   * of it, `maxRetainedBytesPerRequester`.
   * @default 268_435_456 (256 MiB)
   */
  readonly maxRetainedBytes: number | null;
  /**
   * Bytes of ended tasks one requester (owner key) may have kept at once, counted as
   * `maxRetainedBytes` counts them on memory (results, failure details, messages and partial
   * results as JSON, plus a cost per record: 1 KiB on memory, 4 KiB on NATS, where a record's
   * events are kept with it); past it, that requester's new tasks are refused until some of its
   * kept tasks expire or are deleted, while every other requester is served as before. So no one
   * requester fills the node's budget for the others. On NATS, counted across the cluster from
   * the task events every node receives (see `owner-bytes.ts`).
   * @default a quarter of `maxRetainedBytes` (67_108_864 with its default); `null` when that is off
   */
  readonly maxRetainedBytesPerRequester: number | null;
}

/** A requester's default share of the node's `maxRetainedBytes`: a quarter, so one requester never holds it all. */
export const RETAINED_BYTES_SHARE = 0.25;

/** The defaults of {@link RequesterLimits}. */
export const DEFAULT_LIMITS: RequesterLimits = {
  maxConcurrentTasks: 100,
  createsPerSecond: 20,
  pollsPerSecond: 100,
  listsPerSecond: 10,
  maxTaskIdLength: 128,
  maxResultBytes: 921_600,
  maxRequestBytes: 4_194_304,
  maxRetainedTasks: 10_000,
  maxRetainedBytes: 268_435_456,
  maxRetainedBytesPerRequester: 67_108_864,
};

interface Bucket {
  tokens: number;
  at: number;
}

/** Which rate a call counts against. */
export type RateKind = 'createsPerSecond' | 'pollsPerSecond' | 'listsPerSecond';

/** No limits at all: what an embedding runtime gets unless it asks for limits. */
export const NO_LIMITS: RequesterLimits = {
  maxConcurrentTasks: null,
  createsPerSecond: null,
  pollsPerSecond: null,
  listsPerSecond: null,
  maxTaskIdLength: null,
  maxResultBytes: null,
  maxRequestBytes: null,
  maxRetainedTasks: null,
  maxRetainedBytes: null,
  maxRetainedBytesPerRequester: null,
};

/**
 * Resolves limits: none when `limits` is undefined (an embedded runtime trusts its caller),
 * else the given ones over {@link DEFAULT_LIMITS} (what a server exposed to requesters uses).
 *
 * @throws InvalidArgumentError for a limit that is not a positive number (or null)
 * @example
 * ```ts
 * resolveLimits({ pollsPerSecond: 5 }).maxConcurrentTasks; // 100
 * resolveLimits({ maxRetainedBytes: 1_000_000 }).maxRetainedBytesPerRequester; // 250_000
 * resolveLimits(undefined).pollsPerSecond; // null
 * ```
 */
export function resolveLimits(limits?: Partial<RequesterLimits>): RequesterLimits {
  if (limits === undefined) return NO_LIMITS;
  // Unless given, the share follows the node budget it is a share of (raised, lowered or off).
  const share = shareOf(limits.maxRetainedBytes === undefined ? DEFAULT_LIMITS.maxRetainedBytes : limits.maxRetainedBytes);
  const resolved = { ...DEFAULT_LIMITS, maxRetainedBytesPerRequester: share, ...limits };
  for (const [name, value] of Object.entries(resolved)) {
    if (value !== null && (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)) {
      throw new InvalidArgumentError(`limit ${name} must be a positive number or null, got ${String(value)}`);
    }
  }
  return resolved;
}

/**
 * A requester's default share of a node budget of `nodeBytes` (see {@link RETAINED_BYTES_SHARE}):
 * at least one byte, `null` when the budget is off.
 *
 * @example
 * ```ts
 * shareOf(268_435_456); // 67_108_864
 * shareOf(null); // null
 * ```
 */
export function shareOf(nodeBytes: number | null): number | null {
  return nodeBytes === null ? null : Math.max(1, Math.floor(nodeBytes * RETAINED_BYTES_SHARE));
}

/**
 * Keeps the counters of every requester of one runtime.
 *
 * @example
 * ```ts
 * const limiter = new RequesterLimiter(resolveLimits(), Date.now);
 * limiter.admit('owner', 'pollsPerSecond'); // throws TaskLimitError when over
 * ```
 */
export class RequesterLimiter {
  readonly limits: RequesterLimits;
  readonly #now: () => number;
  readonly #buckets = new Map<string, Bucket>();
  readonly #running = new Map<string, number>();
  readonly #onAdmit: ((ownerKey: string, kind: RateKind) => void) | undefined;

  /**
   * @param onAdmit - told of every call admitted against a rate (how a cluster shares its usage)
   */
  constructor(limits: RequesterLimits, now: () => number, onAdmit?: (ownerKey: string, kind: RateKind) => void) {
    this.limits = limits;
    this.#now = now;
    this.#onAdmit = onAdmit;
  }

  /**
   * Counts calls that another node admitted against a rate: they use up this node's tokens too,
   * possibly below zero, so the requester waits here as long as it would have to there.
   *
   * @example
   * ```ts
   * limiter.charge(ownerKey, 'pollsPerSecond', 12);
   * ```
   */
  charge(ownerKey: string, kind: RateKind, calls: number): void {
    const rate = this.limits[kind];
    if (rate === null) return;
    const key = `${kind}\u0000${ownerKey}`;
    const bucket = this.#refill(key, rate);
    bucket.tokens = Math.max(-rate * 2, bucket.tokens - calls);
    this.#buckets.set(key, bucket);
  }

  #refill(key: string, rate: number): Bucket {
    const now = this.#now();
    const burst = rate * 2;
    const bucket = this.#buckets.get(key) ?? { tokens: burst, at: now };
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * rate);
    bucket.at = now;
    return bucket;
  }

  /**
   * Counts one call against a rate.
   *
   * @param paced - the call keeps to a pace the server suggested (a poll no sooner than its task
   *   asked): it passes on an empty bucket too, down to one burst of debt, which the requester's
   *   later calls pay back before any other passes
   * @throws TaskLimitError naming the limit and when to retry
   */
  admit(ownerKey: string, kind: RateKind, paced = false): void {
    const rate = this.limits[kind];
    if (rate === null) return;
    const burst = rate * 2;
    const key = `${kind}\u0000${ownerKey}`;
    const bucket = this.#refill(key, rate);
    if (bucket.tokens < (paced ? 1 - burst : 1)) {
      this.#buckets.set(key, bucket);
      throw new TaskLimitError(kind, `${rate} per second per requester`, Math.ceil((((paced ? 1 - burst : 1) - bucket.tokens) / rate) * 1000));
    }
    bucket.tokens -= 1;
    this.#onAdmit?.(ownerKey, kind);
    // A full bucket is the same as none: forget it, so idle requesters cost no memory.
    if (bucket.tokens >= burst - 1e-9) this.#buckets.delete(key);
    else this.#buckets.set(key, bucket);
    if (this.#buckets.size > 100_000) this.#prune(bucket.at);
  }

  /**
   * Counts a new running task of a requester.
   *
   * @throws TaskLimitError when it already has `maxConcurrentTasks` running
   */
  startTask(ownerKey: string): void {
    const max = this.limits.maxConcurrentTasks;
    const running = this.#running.get(ownerKey) ?? 0;
    if (max !== null && running >= max) throw new TaskLimitError('maxConcurrentTasks', `${max} running tasks per requester`, null);
    this.#running.set(ownerKey, running + 1);
  }

  /** A running task of the requester ended (or was removed). */
  endTask(ownerKey: string): void {
    const running = (this.#running.get(ownerKey) ?? 0) - 1;
    if (running > 0) this.#running.set(ownerKey, running);
    else this.#running.delete(ownerKey);
  }

  #prune(now: number): void {
    for (const [key, bucket] of this.#buckets) if (now - bucket.at > 60_000) this.#buckets.delete(key);
  }
}
