/**
 * Deadlines for the runtime (keepAlive expiry and later lease checks). XState does not persist or
 * re-arm delayed events, so deadlines live here, outside the machine. One binary min-heap and one
 * unref'd timer for all keys: scheduling is O(log n), and a pending deadline never keeps the
 * process alive.
 *
 * @module
 */

interface Entry {
  readonly at: number;
  readonly key: string;
}

/**
 * A set of keyed deadlines; rescheduling a key replaces its previous deadline.
 *
 * @example
 * ```ts
 * const s = new DeadlineScheduler((key) => console.log('due', key));
 * s.schedule('task-1', Date.now() + 1000);
 * s.dispose();
 * ```
 */
export class DeadlineScheduler {
  readonly #heap: Entry[] = [];
  readonly #due = new Map<string, number>();
  readonly #onDue: (key: string) => void;
  readonly #now: () => number;
  #timer: NodeJS.Timeout | null = null;
  #timerAt = Infinity;

  /**
   * @param onDue - called once per key whose deadline passed
   * @param now - clock, epoch ms
   */
  constructor(onDue: (key: string) => void, now: () => number = Date.now) {
    this.#onDue = onDue;
    this.#now = now;
  }

  /** Number of keys with a pending deadline. */
  get size(): number {
    return this.#due.size;
  }

  /** Sets (or replaces) the deadline of `key` at epoch ms `at`. */
  schedule(key: string, at: number): void {
    this.#due.set(key, at);
    this.#push({ at, key });
    this.#arm();
  }

  /** Forgets `key`'s deadline; stale heap entries are dropped lazily when they surface. */
  cancel(key: string): void {
    this.#due.delete(key);
  }

  /** Stops the timer and forgets every deadline. */
  dispose(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#timerAt = Infinity;
    this.#heap.length = 0;
    this.#due.clear();
  }

  #fire(): void {
    this.#timer = null;
    this.#timerAt = Infinity;
    const now = this.#now();
    while (this.#heap.length > 0 && this.#heap[0]!.at <= now) {
      const top = this.#pop();
      // Only the latest deadline of a key counts; older heap entries are stale.
      if (this.#due.get(top.key) === top.at) {
        this.#due.delete(top.key);
        this.#onDue(top.key);
      }
    }
    this.#arm();
  }

  #arm(): void {
    while (this.#heap.length > 0 && this.#due.get(this.#heap[0]!.key) !== this.#heap[0]!.at) this.#pop();
    const next = this.#heap[0];
    if (!next || next.at >= this.#timerAt) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timerAt = next.at;
    // setTimeout caps at 2^31-1 ms; a longer deadline simply re-arms when the timer fires.
    const delay = Math.min(Math.max(0, next.at - this.#now()), 2_147_483_647);
    this.#timer = setTimeout(() => this.#fire(), delay);
    this.#timer.unref();
  }

  #push(entry: Entry): void {
    const h = this.#heap;
    h.push(entry);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (h[parent]!.at <= h[i]!.at) break;
      [h[parent], h[i]] = [h[i]!, h[parent]!];
      i = parent;
    }
  }

  #pop(): Entry {
    const h = this.#heap;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && h[l]!.at < h[m]!.at) m = l;
        if (r < h.length && h[r]!.at < h[m]!.at) m = r;
        if (m === i) break;
        [h[m], h[i]] = [h[i]!, h[m]!];
        i = m;
      }
    }
    return top;
  }
}
