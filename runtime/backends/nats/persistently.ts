/**
 * Writes whose outcome is already decided, carried through a NATS outage: one rule of how long
 * and on what to retry, for every such write of the NATS backend.
 *
 * @module
 */
import { isNatsTransient } from './transient.js';

/**
 * Runs a write until it succeeds, for writes whose outcome is already decided (a handler's
 * result, a queued run): while JetStream elects a new leader or a server restarts, requests fail
 * for a few seconds, and giving up would lose what the write carries. Stops, rethrowing the last
 * error, after `giveUpMs`, once `stillWanted` says no, or at once on an answer that waiting does
 * not change: anything {@link isNatsTransient} does not list (a program fault, a decided answer),
 * and a stream full by its limits.
 *
 * @param op - the write (must be safe to repeat)
 * @param options - how long to keep trying, and whether the write is still wanted
 * @example
 * ```ts
 * await persistently(() => space.store.putResult(key, result), { giveUpMs: 60_000 });
 * ```
 */
export async function persistently<T>(op: () => Promise<T>, options: { readonly giveUpMs: number; readonly stillWanted?: () => boolean }): Promise<T> {
  const deadline = Date.now() + options.giveUpMs;
  for (let delay = 100; ; delay = Math.min(delay * 2, 2_000)) {
    try {
      return await op();
    } catch (error) {
      if (Date.now() + delay > deadline || options.stillWanted?.() === false || !isNatsTransient(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
