/**
 * What the task space keeps, as the retention limits read it on NATS: how many tasks a requester
 * has stored, and how many bytes the task space's buckets hold. A create uses the last readings
 * (counted up by the creates this node makes since) and renews a reading older than a second in
 * the background, so it makes no round trip, and runs at once (a poll right behind it finds the
 * task) except for the first create of a requester on a node. A requester spreading creates over
 * N nodes may get about a second of creates past a limit on each (the creation rate bounds that),
 * and a deleted or expired task frees its place within about a second.
 *
 * @module
 */

/** How old a reading may be, ms. */
export const KEPT_READING_MS = 1_000;
/** The most requesters whose count is remembered. */
const MAX_OWNERS = 10_000;

interface Reading {
  value: number;
  at: number;
}

/** The streams the readings come from (`RecordStore.countOf`, `RecordStore.storedBytes`). */
export interface KeptSource {
  countOf(ownerKey: string): Promise<number>;
  storedBytes(): Promise<number>;
}

/**
 * Readings of what is kept, for the core's `maxRetainedTasks` and `maxRetainedBytes`.
 *
 * @example
 * ```ts
 * const readings = new KeptReadings(space.store, Date.now);
 * const { tasks, bytes } = await readings.kept(ownerKey);
 * ```
 */
export class KeptReadings {
  readonly #owners = new Map<string, Reading>();
  #bytes: Reading | null = null;
  #reading: Promise<number> | null = null;
  readonly #ownerReads = new Map<string, Promise<number>>();

  constructor(
    private readonly source: KeptSource,
    private readonly now: () => number,
  ) {}

  /**
   * A requester's stored tasks and the task space's bytes, from the last readings: at once when
   * there are some (a reading older than a second is renewed in the background for the next
   * create), read first only for a requester (or bytes) this node never read.
   */
  kept(ownerKey: string, what: { readonly tasks: boolean; readonly bytes: boolean }): { tasks: number; bytes: number } | Promise<{ tasks: number; bytes: number }> {
    const owner = what.tasks ? this.#owners.get(ownerKey) : undefined;
    if ((!what.tasks || owner) && (!what.bytes || this.#bytes)) {
      if (owner && this.now() - owner.at >= KEPT_READING_MS) void this.#readTasks(ownerKey).catch(() => undefined);
      if (this.#bytes && this.now() - this.#bytes.at >= KEPT_READING_MS) void this.#readBytes().catch(() => undefined);
      return { tasks: owner?.value ?? 0, bytes: what.bytes ? this.#bytes!.value : 0 };
    }
    return Promise.all([what.tasks ? this.#readTasks(ownerKey) : 0, what.bytes ? this.#readBytes() : 0]).then(([tasks, bytes]) => ({ tasks, bytes }));
  }

  /** This node created a task of `ownerKey`: counted at once, before the next reading. */
  created(ownerKey: string): void {
    const reading = this.#owners.get(ownerKey);
    if (reading) reading.value++;
  }

  #readTasks(ownerKey: string): Promise<number> {
    let reading = this.#ownerReads.get(ownerKey);
    if (!reading) {
      const at = this.now();
      reading = this.source.countOf(ownerKey).then((value) => {
        if (this.#owners.size >= MAX_OWNERS && !this.#owners.has(ownerKey)) this.#owners.delete(this.#owners.keys().next().value!);
        this.#owners.set(ownerKey, { value, at });
        return value;
      });
      const done = (): void => void this.#ownerReads.delete(ownerKey);
      reading.then(done, done);
      this.#ownerReads.set(ownerKey, reading);
    }
    return reading;
  }

  #readBytes(): Promise<number> {
    // One reading at a time, shared by the creates that wait for it.
    if (!this.#reading) {
      const at = this.now();
      this.#reading = this.source.storedBytes().then((value) => {
        this.#bytes = { value, at };
        return value;
      });
      const done = (): void => void (this.#reading = null);
      this.#reading.then(done, done);
    }
    return this.#reading;
  }
}
