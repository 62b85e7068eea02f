/**
 * What an ended task keeps, in bytes, and who keeps it: one rule for every backend, so that
 * `maxRetainedBytesPerRequester` (a requester's share of the node's `maxRetainedBytes`) counts a
 * task the same wherever it ended. A requester is its owner key (its session, or its principal).
 *
 * @module
 */
import type { TaskContext, TaskStatus } from '../../machines/index.js';

/**
 * Bytes an ended task keeps until it is removed: a fixed cost per record (what the backend holds
 * for any task besides its values), its outcome (result and failure detail, as the outcome's
 * check counted them: only a completed or failed task keeps one), its messages and its
 * intermediate results.
 *
 * @param ended - the task's status and context once it ended
 * @param outcomeBytes - characters of the JSON of its result and failure detail
 * @param recordBytes - the backend's cost per record
 * @example
 * ```ts
 * keptBytesOf({ status: 'completed', context }, 2_000, 1_024); // 3_024 plus its messages
 * ```
 */
export function keptBytesOf(ended: { readonly status: TaskStatus; readonly context: Pick<TaskContext, 'statusMessage' | 'error' | 'partials'> }, outcomeBytes: number, recordBytes: number): number {
  const c = ended.context;
  const outcome = ended.status === 'completed' || ended.status === 'failed' ? outcomeBytes : 0;
  return recordBytes + outcome + (c.statusMessage?.length ?? 0) + (c.error?.length ?? 0) + (c.partials !== undefined && c.partials.length > 0 ? JSON.stringify(c.partials).length : 0);
}

interface Kept {
  readonly owner: string;
  readonly bytes: number;
  /** When the task's retention ends (epoch ms), `Infinity` when kept until deleted. */
  readonly until: number;
}

/**
 * The bytes ended tasks keep, per task, per requester and in all: the node's sum is what
 * `maxRetainedBytes` reads on memory, a requester's what `maxRetainedBytesPerRequester` reads.
 * A task is counted from its end until {@link KeptBytes.remove} (or, for a counter fed by what it
 * hears, {@link KeptBytes.prune} past its retention).
 *
 * @example
 * ```ts
 * const kept = new KeptBytes();
 * kept.add('owner/t1', 'owner', 3_000);
 * kept.of('owner'); // 3_000
 * kept.remove('owner/t1');
 * kept.total; // 0
 * ```
 */
export class KeptBytes {
  readonly #tasks = new Map<string, Kept>();
  readonly #owners = new Map<string, number>();
  #total = 0;

  /** Bytes kept by every counted task. */
  get total(): number {
    return this.#total;
  }

  /** Tasks counted now. */
  get size(): number {
    return this.#tasks.size;
  }

  /** Bytes kept by `owner`'s counted tasks. */
  of(owner: string): number {
    return this.#owners.get(owner) ?? 0;
  }

  /**
   * Counts an ended task (again: its previous count is replaced).
   *
   * @param until - when its retention ends, for {@link KeptBytes.prune}
   */
  add(key: string, owner: string, bytes: number, until = Infinity): void {
    this.remove(key);
    this.#tasks.set(key, { owner, bytes, until });
    this.#owners.set(owner, this.of(owner) + bytes);
    this.#total += bytes;
  }

  /** The task is gone (deleted, expired, or created again under its key). */
  remove(key: string): void {
    const kept = this.#tasks.get(key);
    if (!kept) return;
    this.#tasks.delete(key);
    this.#total -= kept.bytes;
    const left = this.of(kept.owner) - kept.bytes;
    // A requester with nothing kept costs no memory.
    if (left > 0) this.#owners.set(kept.owner, left);
    else this.#owners.delete(kept.owner);
  }

  /**
   * Forgets the tasks past their retention at `now` (they are gone for every reader, whether or
   * not their removal was heard), and, past `max` tasks, the ones counted first.
   */
  prune(now: number, max = Infinity): void {
    for (const [key, kept] of this.#tasks) {
      if (kept.until <= now || this.#tasks.size > max) this.remove(key);
    }
  }
}
