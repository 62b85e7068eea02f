/**
 * Poll pacing: the interval a task suggests to its requester, and the polls that keep to it.
 *
 * The suggestion adapts to the task's age, because most work is short: a young task suggests
 * polling soon, and the suggestion grows with the task until it reaches the configured interval
 * (the task's `pollFrequency`, from the runtime's or the create's option). The rule:
 *
 *     suggested = terminal ? configured : min(configured, max(25, round(now - createdAt)))
 *
 * A requester that follows it polls at about 25, 50, 100, 200 … ms of age, so it sees a short
 * task end within about twice its duration, and a task older than the configured interval is
 * polled exactly as before, never harder. A terminal task has nothing left to wait for and
 * suggests the configured interval. Every dialect renders this value at the time of the read
 * (SEP-1686 `pollFrequency`, 2025-11-25 `pollInterval`, the extension's `pollIntervalMs`).
 *
 * The growing phase would add polls a requester's `pollsPerSecond` did not plan for, so polls
 * that keep to the suggestion are free: {@link PollPacing} remembers, per task, when it was last
 * polled and what it suggested then, and a poll no sooner than 0.9 × that suggestion is not
 * charged (the 10 % absorbs clock rounding and a reply rendered a moment after the read). The
 * poll right after one that saw a new status is free too, and the two after one that saw the end
 * ({@link graceAfter}); the audit judges suspicion by the same rule ({@link judgePoll}).
 *
 * @module
 */
import { isTerminalStatus, type TaskStatus } from '../../machines/index.js';

/** The shortest interval a task ever suggests, ms (or the configured one, when that is shorter). */
export const MIN_POLL_INTERVAL_MS = 25;

/** What {@link suggestedPollInterval} reads of a task (a `TaskView` is one). */
export interface PollTiming {
  readonly status: TaskStatus;
  /** The configured interval, ms. */
  readonly pollFrequency: number;
  /** Creation time, epoch ms. */
  readonly createdAt: number;
}

/**
 * The interval, in ms, that `task` suggests at time `now`.
 *
 * @param task - the task (its status, configured interval and creation time)
 * @param now - the time of the read, epoch ms, on the runtime's clock
 * @example
 * ```ts
 * suggestedPollInterval({ status: 'working', pollFrequency: 1000, createdAt: 0 }, 10);    // 25
 * suggestedPollInterval({ status: 'working', pollFrequency: 1000, createdAt: 0 }, 300);   // 300
 * suggestedPollInterval({ status: 'working', pollFrequency: 1000, createdAt: 0 }, 5_000); // 1000
 * suggestedPollInterval({ status: 'completed', pollFrequency: 1000, createdAt: 0 }, 10);  // 1000
 * ```
 */
export function suggestedPollInterval(task: PollTiming, now: number): number {
  const configured = task.pollFrequency;
  if (isTerminalStatus(task.status)) return configured;
  return Math.min(configured, Math.max(MIN_POLL_INTERVAL_MS, Math.round(now - task.createdAt)));
}

/** The share of the suggested interval a poll must wait to be free. */
export const KEPT_PACE_SHARE = 0.9;

/** Under this share of the suggested interval, a poll is fast: what the audit counts as suspect. */
export const FAST_PACE_SHARE = 0.5;

/** How a poll keeps to the pace its task suggested: `kept` (free), `early` (charged), `fast` (charged and suspect). */
export type PollPace = 'kept' | 'early' | 'fast';

/**
 * The one judge of poll pace: a poll arriving at `at`, after the previous answered poll of the
 * same task at `previousAt` that suggested `suggested` ms. The runtime charges every poll that is
 * not `kept`; the audit counts the `fast` ones.
 *
 * @example
 * ```ts
 * judgePollPace(0, 1_000, 950); // 'kept'
 * judgePollPace(0, 1_000, 600); // 'early'
 * judgePollPace(0, 1_000, 100); // 'fast'
 * ```
 */
export function judgePollPace(previousAt: number, suggested: number, at: number): PollPace {
  const waited = at - previousAt;
  if (waited >= KEPT_PACE_SHARE * suggested) return 'kept';
  return waited < FAST_PACE_SHARE * suggested ? 'fast' : 'early';
}

/** The most tasks whose last poll is remembered; the least recently polled are forgotten first. */
export const MAX_POLL_MARKS = 10_000;

/** What a judge remembers of a task's last answered poll (the runtime's limit and the audit alike). */
export interface PollMark {
  /** When the poll arrived, epoch ms. */
  at: number;
  /** What the task suggested in its answer, ms. */
  suggested: number;
  /** The status the poll saw. */
  status: TaskStatus;
  /** Polls still free whatever their pace: given when a poll saw a new status (see {@link graceAfter}). */
  grace: number;
}

/**
 * How many polls right after one that saw `status` as new are free whatever their pace. A
 * requester reacts to a change at once: one poll after a new working status, two after the end
 * (the `tasks/result` right after the `tasks/get` that saw it, and the closing `tasks/get` a
 * 2025-11-25 requester such as `TaskClient` sends after it). An ended task has nothing left to
 * pace, but a requester that keeps reading it fast is still paced after those two.
 *
 * @example
 * ```ts
 * graceAfter('working');   // 1
 * graceAfter('completed'); // 2
 * ```
 */
export function graceAfter(status: TaskStatus): number {
  return isTerminalStatus(status) ? 2 : 1;
}

/**
 * The pace of a poll arriving at `at`, given the task's mark (`undefined`: no poll of it is
 * remembered, a `first` poll, charged and never suspect). The one rule both the runtime's poll
 * limit (it charges every poll that is not `kept`) and the audit (it counts the `fast` ones) apply.
 * `seen`, the status the poll found, is known to the audit, which judges after the read; the limit
 * judges before it (a refused poll reads nothing) and so charges a poll that finds a new status early.
 *
 * @example
 * ```ts
 * judgePoll(undefined, 10);                                                        // 'first'
 * judgePoll({ at: 0, suggested: 1_000, status: 'completed', grace: 1 }, 1);        // 'kept'
 * judgePoll({ at: 0, suggested: 1_000, status: 'working', grace: 0 }, 100);        // 'fast'
 * judgePoll({ at: 0, suggested: 1_000, status: 'working', grace: 0 }, 100, 'completed'); // 'kept'
 * ```
 */
export function judgePoll(mark: PollMark | undefined, at: number, seen?: TaskStatus): PollPace | 'first' {
  if (mark === undefined) return 'first';
  // A poll that finds a new status was told of it (a status push) or was lucky: never too soon.
  if (mark.grace > 0 || (seen !== undefined && seen !== mark.status)) return 'kept';
  return judgePollPace(mark.at, mark.suggested, at);
}

/**
 * The mark after a poll that arrived at `at` and was answered with `status`, suggesting
 * `suggested` ms: a new status gives new grace, any other poll uses one up.
 *
 * @example
 * ```ts
 * const mark = nextPollMark(undefined, 0, 25, 'working'); // { at: 0, suggested: 25, status: 'working', grace: 1 }
 * ```
 */
export function nextPollMark(mark: PollMark | undefined, at: number, suggested: number, status: TaskStatus): PollMark {
  const grace = mark === undefined || mark.status !== status ? graceAfter(status) : Math.max(0, mark.grace - 1);
  return { at, suggested, status, grace };
}

/**
 * The last answered poll of each task, to tell which polls keep to the suggested pace. Memory is
 * bounded (never more than `2 × max` marks; the `max / 2` most recently polled tasks always
 * kept), the least recently polled forgotten first, and a
 * forgotten task's next poll is charged, as a first poll is. One per runtime, so per node on
 * NATS: a requester whose polls of a task land on several nodes pays for the first poll on each.
 *
 * Two generations of marks rather than one map in recency order: re-inserting a key to move it
 * to the back of a `Map` leaves a hole that later scans skip over, which made the eviction scan
 * the most expensive line of a task's life in the profile. New marks go to the young generation;
 * when it holds half the bound, it becomes the old one and the old one is dropped; a mark found
 * in the old generation moves back to the young one.
 *
 * @example
 * ```ts
 * const pacing = new PollPacing();
 * if (!pacing.kept(key, now())) limiter.admit(ownerKey, 'pollsPerSecond');
 * pacing.answered(key, at, suggestedPollInterval(view, now()));
 * ```
 */
export class PollPacing {
  /** Marks made or refreshed since the last rotation. */
  #young = new Map<string, PollMark>();
  /** The generation before: still read, dropped as a whole at the next rotation. */
  #old = new Map<string, PollMark>();
  readonly #generation: number;

  readonly #max: number;

  /** @param max - how many tasks to remember when each is polled once (polled again, a task is kept longer) */
  constructor(max = MAX_POLL_MARKS) {
    this.#max = max;
    this.#generation = Math.max(1, Math.floor(max / 2));
  }

  /**
   * Whether a poll of `key` arriving at `at` keeps to what the task suggested at its last answered
   * poll. A kept poll moves the mark at once (refined by `answered` after the read), so polls sent
   * together, the second before the first is answered, cannot all pass as kept.
   */
  kept(key: string, at: number): boolean {
    const mark = this.#find(key);
    if (mark === undefined || judgePoll(mark, at) !== 'kept') return false;
    // Moved (and its grace used) at once, in place: this runs on every poll. `answered` refines it.
    mark.at = at;
    if (mark.grace > 0) mark.grace--;
    return true;
  }

  /** Notes an answered poll: it arrived at `at`, saw `status`, and the task suggested `suggested` ms. */
  answered(key: string, at: number, suggested: number, status: TaskStatus): void {
    const mark = this.#find(key);
    if (mark) {
      // The grace was used by `kept` when the poll was free; a new status gives new grace.
      mark.at = at;
      mark.suggested = suggested;
      if (mark.status !== status) {
        mark.status = status;
        mark.grace = graceAfter(status);
      }
    } else {
      this.#young.set(key, nextPollMark(undefined, at, suggested, status));
      if (this.#young.size >= this.#generation) this.#rotate();
    }
  }

  /** Forgets a task (removed, or not found: its id may name another task next). */
  forget(key: string): void {
    this.#young.delete(key);
    this.#old.delete(key);
  }

  /** How many tasks are remembered. */
  get size(): number {
    return this.#young.size + this.#old.size;
  }

  /** The mark of `key`, moved to the young generation when found in the old one (it was polled again). */
  #find(key: string): PollMark | undefined {
    const young = this.#young.get(key);
    if (young !== undefined) return young;
    const old = this.#old.get(key);
    if (old === undefined) return undefined;
    // Polled again: kept through the next rotation. Only a flood of tasks all polled again and
    // again grows the young generation past its size, and never past the whole bound.
    this.#old.delete(key);
    this.#young.set(key, old);
    if (this.#young.size >= this.#max) this.#rotate();
    return old;
  }

  #rotate(): void {
    this.#old = this.#young;
    this.#young = new Map();
  }
}
