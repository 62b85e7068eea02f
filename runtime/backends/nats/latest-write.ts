/**
 * One write in flight per kind of "latest wins" move of a run (its progress, its status message):
 * a handler that reports in a tight loop would otherwise start one compare-and-swap per report on
 * the same record, each conflict a re-read and each write a feed event, and a cancel or an input
 * answer from another node could run out of attempts behind them. While one write is in flight,
 * later reports replace each other; the last one is written when it settles.
 *
 * @module
 */

/**
 * Writes the latest value given, one write at a time.
 *
 * @example
 * ```ts
 * const progress = new LatestWrite((event: TaskEvent) => applyToTask(space, key, event, { only }));
 * progress.write(taskEvents.progress({ progress: 1, total: 10 }, now()));
 * ```
 */
export class LatestWrite<T> {
  #inFlight = false;
  #pending: { value: T } | null = null;

  constructor(private readonly send: (value: T) => Promise<unknown>) {}

  /** Writes `value` now, or after the write in flight (replacing any value already waiting). */
  write(value: T): void {
    if (this.#inFlight) {
      this.#pending = { value };
      return;
    }
    this.#inFlight = true;
    void this.send(value)
      .catch(() => undefined)
      .finally(() => {
        this.#inFlight = false;
        const next = this.#pending;
        this.#pending = null;
        if (next) this.write(next.value);
      });
  }
}
