/**
 * Creation-ordered task index per owner, so that `tasks/list` pages cost O(log n + page size), not
 * O(all tasks): entries are appended with a monotonically increasing sequence number, a page starts
 * with a binary search for the cursor's sequence, and deletions leave holes that are compacted once
 * they make up half of an owner's entries.
 *
 * @module
 */

interface Slot {
  readonly seq: number;
  readonly key: string;
  alive: boolean;
}

interface OwnerSlots {
  slots: Slot[];
  dead: number;
}

/** One page read from the index. */
export interface IndexPage {
  readonly keys: string[];
  /** Sequence of the last key returned; the next page starts after it. */
  readonly lastSeq: number;
  /** Whether live entries remain after this page. */
  readonly more: boolean;
}

/**
 * @example
 * ```ts
 * const index = new OwnerIndex();
 * index.add('owner', 1, 'key-1');
 * index.page('owner', 0, 20); // { keys: ['key-1'], lastSeq: 1, more: false }
 * ```
 */
export class OwnerIndex {
  readonly #owners = new Map<string, OwnerSlots>();

  /** Appends `key` for `owner`; `seq` must be larger than every sequence added before. */
  add(owner: string, seq: number, key: string): void {
    let o = this.#owners.get(owner);
    if (!o) {
      o = { slots: [], dead: 0 };
      this.#owners.set(owner, o);
    }
    o.slots.push({ seq, key, alive: true });
  }

  /** How many entries `owner` has. */
  count(owner: string): number {
    const o = this.#owners.get(owner);
    return o === undefined ? 0 : o.slots.length - o.dead;
  }

  /** Removes the entry with sequence `seq` of `owner`. */
  remove(owner: string, seq: number): void {
    const o = this.#owners.get(owner);
    if (!o) return;
    const i = firstAtOrAfter(o.slots, seq);
    const slot = o.slots[i];
    if (!slot || slot.seq !== seq || !slot.alive) return;
    slot.alive = false;
    o.dead += 1;
    if (o.dead === o.slots.length) this.#owners.delete(owner);
    else if (o.dead * 2 > o.slots.length) {
      o.slots = o.slots.filter((s) => s.alive);
      o.dead = 0;
    }
  }

  /** Up to `limit` live keys of `owner` created after sequence `afterSeq`, oldest first. */
  page(owner: string, afterSeq: number, limit: number): IndexPage {
    const o = this.#owners.get(owner);
    const keys: string[] = [];
    let lastSeq = afterSeq;
    if (!o) return { keys, lastSeq, more: false };
    let i = firstAtOrAfter(o.slots, afterSeq + 1);
    for (; i < o.slots.length && keys.length < limit; i++) {
      const slot = o.slots[i]!;
      if (!slot.alive) continue;
      keys.push(slot.key);
      lastSeq = slot.seq;
    }
    for (; i < o.slots.length; i++) if (o.slots[i]!.alive) return { keys, lastSeq, more: true };
    return { keys, lastSeq, more: false };
  }
}

/** Index of the first slot whose sequence is ≥ `seq` (slots are sorted by sequence). */
function firstAtOrAfter(slots: readonly Slot[], seq: number): number {
  let lo = 0;
  let hi = slots.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (slots[mid]!.seq < seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
