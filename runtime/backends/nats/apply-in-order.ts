/**
 * Applying a task's events strictly in per-task sequence order. JetStream does not guarantee that
 * a task's events arrive in order across a failover (new messages are delivered before a dead
 * owner's unacknowledged ones) and a publish retried past the dedup window arrives twice, so every
 * event carries a per-task `seq` and is applied only when it is the next one.
 *
 * @module
 */

/** Anything with a per-task sequence number (1, 2, 3, …). */
export interface Sequenced {
  readonly seq: number;
}

/** What {@link applyInOrder} decided for a batch. */
export interface InOrderResult<E extends Sequenced> {
  /** Events to apply now, in order: `lastSeq + 1`, `lastSeq + 2`, … without holes. */
  readonly apply: E[];
  /** Repeats: at or below the last applied sequence, or a second copy within the batch. */
  readonly skipped: E[];
  /** Events after a hole, sorted: keep them and offer them again once the hole is filled. */
  readonly pending: E[];
  /** The missing range when there is a hole (`from`..`to` inclusive), else `null`. */
  readonly gap: { readonly from: number; readonly to: number } | null;
  /** The last sequence applied after this batch (the input `lastSeq` when nothing applies). */
  readonly lastSeq: number;
}

/**
 * Splits incoming events into those to apply now (the contiguous run after `lastSeq`), repeats to
 * skip, and those waiting behind a gap. Pure: the caller applies, then retries the pending ones
 * (e.g. after re-reading the task's subject from `gap.from`).
 *
 * @param lastSeq - the last sequence already applied (0 when none)
 * @param incoming - events in any order, possibly with repeats
 * @example
 * ```ts
 * applyInOrder(2, [{ seq: 4 }, { seq: 2 }, { seq: 3 }, { seq: 6 }]);
 * // apply [3, 4], skipped [2], pending [6], gap { from: 5, to: 5 }, lastSeq 4
 * ```
 */
export function applyInOrder<E extends Sequenced>(lastSeq: number, incoming: readonly E[]): InOrderResult<E> {
  const sorted = [...incoming].sort((a, b) => a.seq - b.seq);
  const apply: E[] = [];
  const skipped: E[] = [];
  const pending: E[] = [];
  let last = lastSeq;
  let gap: { from: number; to: number } | null = null;
  for (const event of sorted) {
    if (gap !== null) {
      // Behind a hole: only keep one copy of each sequence.
      if (pending.length > 0 && pending[pending.length - 1]?.seq === event.seq) skipped.push(event);
      else pending.push(event);
    } else if (event.seq <= last) {
      skipped.push(event);
    } else if (event.seq === last + 1) {
      apply.push(event);
      last = event.seq;
    } else {
      gap = { from: last + 1, to: event.seq - 1 };
      pending.push(event);
    }
  }
  return { apply, skipped, pending, gap, lastSeq: last };
}
