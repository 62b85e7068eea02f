/**
 * Answer inline if fast: on the 2026-07-28 wire the server decides per request whether to answer
 * with a task or with the plain result. With an inline window, a task is created as always (so its
 * work runs where tasks run: on a NATS worker too) and the answer waits up to that long for the
 * task's outcome. One race decides the answer, once: the first of {outcome, deadline} wins and the
 * loser is dropped.
 *
 * @experimental the 2026-07-28 protocol is a draft.
 * @module
 */
import type { TaskOutcome } from '../../../runtime/index.js';

/**
 * Calls `fire` once after `ms`, unless the returned function is called first. The race's clock:
 * a test injects one it fires by hand, to make the deadline and the end coincide at will.
 *
 * @example
 * ```ts
 * const cancel = wallTimer(500, () => console.log('deadline'));
 * cancel();
 * ```
 */
export type InlineTimer = (ms: number, fire: () => void) => () => void;

/**
 * The real clock of {@link InlineTimer}.
 *
 * @example
 * ```ts
 * const cancel = wallTimer(500, () => console.log('deadline'));
 * ```
 */
export const wallTimer: InlineTimer = (ms, fire) => {
  const timer = setTimeout(fire, ms);
  return () => clearTimeout(timer);
};

/** Why a wait that lost the race is stopped; made once (a fresh abort reason per call costs a stack trace). */
const DECIDED = new Error('the inline answer was decided without this wait');

/**
 * Waits up to `withinMs` for a task's outcome. Resolves with the outcome when it arrives first, or
 * with `null` when the deadline comes first, the wait fails, or `signal` aborts (the requester
 * left): the answer is then the task, which the requester can poll to the same outcome.
 *
 * The decision is one flag set by whichever side settles first, in one synchronous step: the
 * deadline callback and the outcome's continuation never interleave, so an end that lands on the
 * deadline's tick is answered exactly once, by whichever of the two ran first. The loser's effect
 * is dropped: a late outcome is ignored (the task keeps it for `tasks/get`), a late deadline was
 * cancelled. A wait the deadline beat is aborted, so it stops watching the task.
 *
 * @param wait - the outcome's wait, given the signal that ends it once the race is decided
 * @param withinMs - the window; `0` or less answers `null` without waiting
 * @param options - `signal` ends the race early; `timer` is the clock (real by default)
 * @example
 * ```ts
 * const outcome = await raceOutcome((signal) => runtime.waitForOutcome(taskId, owner, { signal, countsAsPoll: false }), 500);
 * if (outcome === null) {
 *   // answer with the task
 * }
 * ```
 */
export function raceOutcome(wait: (signal: AbortSignal) => Promise<TaskOutcome>, withinMs: number, options: { readonly signal?: AbortSignal; readonly timer?: InlineTimer } = {}): Promise<TaskOutcome | null> {
  if (!(withinMs > 0) || options.signal?.aborted === true) return Promise.resolve(null);
  const stop = new AbortController();
  return new Promise((resolve) => {
    let decided = false;
    let cancelTimer: () => void = () => undefined;
    const onLeave = (): void => decide(null);
    function decide(answer: TaskOutcome | null): void {
      if (decided) return;
      decided = true;
      cancelTimer();
      options.signal?.removeEventListener('abort', onLeave);
      // An outcome that won ended its wait already: only a wait still pending is stopped.
      if (answer === null) stop.abort(DECIDED);
      resolve(answer);
    }
    cancelTimer = (options.timer ?? wallTimer)(withinMs, () => decide(null));
    options.signal?.addEventListener('abort', onLeave, { once: true });
    // A wait that fails (the store away, the task deleted at once) is no answer: the task is.
    wait(stop.signal).then(decide, () => decide(null));
  });
}
