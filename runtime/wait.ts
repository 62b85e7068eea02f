/**
 * Waiting with a timeout and an `AbortSignal`, and a single cleanup: the shape every wait of the
 * runtime takes (STYLE: "anything that waits takes timeout and signal").
 *
 * @module
 */
import { TaskTimeoutError } from './errors.js';
import type { WaitOptions } from './task-runtime.types.js';

/**
 * Resolves when `subscribe`'s callback fires and `settle` returns a value; rejects on timeout
 * (`TaskTimeoutError`), on abort (the signal's reason), or when `settle` throws.
 *
 * @param subscribe - registers the wake-up callback and returns its removal
 * @param settle - turns a wake-up into the value (or throws)
 * @example
 * ```ts
 * await waitFor((wake) => { waiters.add(wake); return () => waiters.delete(wake); }, () => view(entry), { timeout: 1000 });
 * ```
 */
export function waitFor<T>(subscribe: (wake: () => void) => () => void, settle: () => T, options: WaitOptions = {}): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    // Assigned once subscribed; an abort before that needs nothing removed.
    let unsubscribe: (() => void) | undefined = undefined;
    const cleanup = (): void => {
      unsubscribe?.();
      if (timer) clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    };
    const onAbort = (): void => {
      cleanup();
      reject(options.signal?.reason instanceof Error ? options.signal.reason : new Error('Aborted'));
    };
    if (options.signal?.aborted) return onAbort();
    unsubscribe = subscribe(() => {
      cleanup();
      try {
        resolve(settle());
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
    if (options.timeout !== undefined) {
      const ms = options.timeout;
      timer = setTimeout(() => {
        cleanup();
        reject(new TaskTimeoutError(ms));
      }, ms);
    }
    options.signal?.addEventListener('abort', onAbort, { once: true });
  });
}
