/**
 * A worker's slots: how many tasks it runs at once. A task waiting for a person holds none.
 *
 * @module
 */
import { onAbort } from './stop-signal.js';

/**
 * A counting semaphore: at most `size` tasks hold a slot.
 *
 * @example
 * ```ts
 * const slots = new Slots(64);
 * if (slots.tryAcquire()) { try { await run(); } finally { slots.release(); } }
 * await slots.whenFree(stop.signal); // then pull work
 * ```
 */
export class Slots {
  readonly size: number;
  #free: number;
  readonly #queue: (() => void)[] = [];
  constructor(size: number) {
    this.size = size;
    this.#free = size;
  }
  /** How many slots are free now. */
  get free(): number {
    return this.#free;
  }
  /** Takes a slot if one is free. */
  tryAcquire(): boolean {
    if (this.#free === 0) return false;
    this.#free--;
    return true;
  }
  /** Resolves once a slot is free (without taking it). */
  async whenFree(signal: AbortSignal): Promise<void> {
    while (this.#free === 0 && !signal.aborted) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          off();
          resolve();
        };
        const off = onAbort(signal, done);
        this.#queue.push(done);
      });
    }
  }
  /** Takes a slot, waiting for one to be free. */
  async acquire(signal: AbortSignal): Promise<void> {
    for (;;) {
      if (this.tryAcquire() || signal.aborted) return;
      await this.whenFree(signal);
    }
  }
  release(): void {
    this.#free++;
    for (const wake of this.#queue.splice(0)) wake();
  }
}
