/**
 * One abort listener per long-lived signal, however many loops wait on it. A node's stop signal
 * lives as long as the node, and every pull loop, lease watch and slot waiter used to add its own
 * listener to it (and `timers/promises` sleeps one more each): Node warns past ten, and a
 * listener left behind by a path that forgot to remove it would be kept for the node's life.
 * Here the signal gets a single listener, and waiters come and go in a set.
 *
 * @module
 */

interface Waiters {
  readonly set: Set<() => void>;
}

const bySignal = new WeakMap<AbortSignal, Waiters>();

/**
 * Calls `onStop` once when `signal` aborts (at once if it already has); returns a function that
 * forgets it. However many are registered, the signal carries one listener.
 *
 * @param signal - a long-lived signal (a node's stop)
 * @param onStop - what to do on abort
 * @returns forgets `onStop` (call it when the wait is over)
 * @example
 * ```ts
 * const off = onAbort(stop.signal, () => void batch.close());
 * try { for await (const m of batch) handle(m); } finally { off(); }
 * ```
 */
export function onAbort(signal: AbortSignal, onStop: () => void): () => void {
  if (signal.aborted) {
    onStop();
    return () => undefined;
  }
  let waiters = bySignal.get(signal);
  if (!waiters) {
    const set = new Set<() => void>();
    waiters = { set };
    bySignal.set(signal, waiters);
    signal.addEventListener(
      'abort',
      () => {
        const now = [...set];
        set.clear();
        for (const fn of now) fn();
      },
      { once: true },
    );
  }
  const entry = (): void => onStop();
  waiters.set.add(entry);
  const set = waiters.set;
  return () => void set.delete(entry);
}

/**
 * Waits `ms`, or less if `signal` aborts first (resolving, never rejecting).
 *
 * @example
 * ```ts
 * await pause(500, stop.signal);
 * ```
 */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      off();
      resolve();
    }, ms);
    const off = onAbort(signal, () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
