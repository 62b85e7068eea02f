/**
 * Which tasks were removed at the end of their retention, so that a late `tasks/get` says
 * "expired" instead of "not found" (both answers are allowed by every dialect; "expired" is the
 * more useful one). Remembered by count, not forever: the most recent `capacity` ids, oldest
 * forgotten first, after which such a task is "not found", as the specs allow for a purged task.
 * One rule for both backends: the memory store fills it itself, each NATS node from the removals
 * the cluster announces, so no marker has to stay in any stream.
 *
 * @module
 */

import { createHash } from 'node:crypto';

/**
 * What is kept of a key: 72 bits of its SHA-256 (12 base64 characters). A whole key is up to a
 * few hundred bytes (NATS: 87 characters; memory: the owner and the requester's task id), and
 * 10,000 of them per node showed in the soak's heap; a collision, which would only turn a
 * "not found" into "expired", is a 2^-72 chance.
 */
function digest(key: string): string {
  return createHash('sha256').update(key).digest('base64').slice(0, 12);
}

/**
 * A bounded, insertion-ordered set of expired task keys (kept as digests).
 *
 * @example
 * ```ts
 * const expired = new ExpiredMemory(10_000);
 * expired.remember(key);
 * expired.has(key); // true, until 10,000 later expiries push it out or the id is used again
 * ```
 */
export class ExpiredMemory {
  readonly #keys = new Set<string>();
  readonly #capacity: number;

  /** @param capacity - how many expired keys to remember (`TaskRuntimeOptions.expiredMemory`) */
  constructor(capacity: number) {
    this.#capacity = Math.max(0, capacity);
  }

  /** Remembers that `key` expired (moved to the newest end if it was known). */
  remember(key: string): void {
    const d = digest(key);
    this.#keys.delete(d);
    if (this.#capacity === 0) return;
    this.#keys.add(d);
    if (this.#keys.size > this.#capacity) this.#keys.delete(this.#keys.values().next().value!);
  }

  /** Forgets `key`: its id was used again, or the task was deleted. */
  forget(key: string): void {
    if (this.#keys.size > 0) this.#keys.delete(digest(key));
  }

  /** True when `key` is remembered as expired. */
  has(key: string): boolean {
    return this.#keys.size > 0 && this.#keys.has(digest(key));
  }

  /** How many keys are remembered. */
  get size(): number {
    return this.#keys.size;
  }
}
