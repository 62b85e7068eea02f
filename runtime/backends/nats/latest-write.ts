/**
 * One write in flight per kind of "latest wins" move of a run (its progress, its status message):
 * a handler that reports in a tight loop would otherwise start one compare-and-swap per report on
 * the same record, each conflict a re-read and each write a feed event, and a cancel or an input
 * answer from another node could run out of attempts behind them. While one write is in flight,
 * later reports replace each other; the last one is written when it settles. A run's outcome
 * waits for them to be {@link LatestWrite.idle | idle}: written after the terminal write, its last
 * report would be refused, and the task would end showing the one before.
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
  /** Who waits for the writes to settle (see {@link LatestWrite.idle}). */
  #idle: (() => void)[] = [];

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
        else for (const settled of this.#idle.splice(0)) settled();
      });
  }

  /**
   * Resolves once the last value given is written (or its write failed): at once when nothing is
   * in flight. Values given meanwhile are waited for too.
   *
   * @example
   * ```ts
   * await progress.idle(); // the last report is on the record (or was refused)
   * ```
   */
  idle(): Promise<void> {
    if (!this.#inFlight) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }
}
