/**
 * Counters of suspicious patterns per requester (session + principal): failed look-ups (someone
 * guessing task ids) and polls faster than the suggested interval. Memory is bounded: at most
 * `maxTracked` requesters and polled tasks are kept, the least recently seen forgotten first, and
 * a requester is tracked only once it does something suspicious.
 *
 * @module
 */
import type { TaskOwner, TaskStatus } from '../../machines/index.js';
import { InvalidArgumentError } from '../errors.js';
import { ownerKeyOf, requesterOf, type RequesterRef } from '../task-identity.js';
import type { SecurityReport, SuspectRequester, SuspicionThresholds } from './audit.types.js';
import { judgePoll, nextPollMark, type PollMark } from '../core/poll-pacing.js';

/**
 * The defaults of {@link SuspicionThresholds}.
 *
 * @example
 * ```ts
 * createTaskRuntime({ audit: { suspicion: { failedLookups: DEFAULT_SUSPICION_THRESHOLDS.failedLookups / 2 } } });
 * ```
 */
export const DEFAULT_SUSPICION_THRESHOLDS: SuspicionThresholds = { windowMs: 60_000, failedLookups: 20, fastPolls: 20, maxTracked: 10_000, topRequesters: 10 };

/**
 * A threshold a requester just crossed.
 *
 * @example
 * ```ts
 * const flag: SuspicionFlag | null = counters.failedLookup(owner);
 * if (flag) logger.warn({ ...flag.requester, reason: flag.reason }, 'suspicious');
 * ```
 */
export interface SuspicionFlag {
  readonly reason: 'failed-lookups' | 'fast-polls';
  /** Who crossed it (see `requesterOf`). */
  readonly requester: RequesterRef;
  /** The count over the last window, estimated. */
  readonly count: number;
  readonly threshold: number;
  readonly windowMs: number;
}

/**
 * A count over a sliding window, estimated from the current fixed window and the previous one
 * weighted by how much of it still overlaps: constant memory, within a few percent of exact.
 */
interface Windowed {
  start: number;
  current: number;
  previous: number;
  /** Until when a flag for this count holds (one flag per window). */
  flaggedUntil: number;
}

interface Requester {
  readonly who: RequesterRef;
  failedLookups: number;
  fastPolls: number;
  limitRefusals: number;
  flags: number;
  lastSeen: number;
  readonly lookups: Windowed;
  readonly polls: Windowed;
}

function windowed(now: number): Windowed {
  return { start: now, current: 0, previous: 0, flaggedUntil: 0 };
}

/** Counts one act; returns the estimated count over the last window. */
function hit(w: Windowed, now: number, windowMs: number): number {
  const elapsed = now - w.start;
  if (elapsed >= windowMs) {
    const windows = Math.floor(elapsed / windowMs);
    w.previous = windows === 1 ? w.current : 0;
    w.current = 0;
    w.start += windows * windowMs;
  }
  w.current++;
  return w.current + w.previous * (1 - (now - w.start) / windowMs);
}

/** Moves `key` to the most recent end of `map` and forgets the oldest entries past `max`. */
function touch<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  while (map.size > max) map.delete(map.keys().next().value!);
}

/**
 * The suspicion counters of one runtime (one node).
 *
 * @example
 * ```ts
 * const counters = new SuspicionCounters({ failedLookups: 5 }, Date.now);
 * const flag = counters.failedLookup({ session: 's1', principal: null });
 * if (flag) console.warn('suspicious', flag);
 * ```
 */
export class SuspicionCounters {
  readonly thresholds: SuspicionThresholds;
  readonly #now: () => number;
  readonly #since: number;
  readonly #requesters = new Map<string, Requester>();
  readonly #polls = new Map<string, PollMark>();
  readonly #limits: Record<string, number> = {};
  #failedLookups = 0;
  #fastPolls = 0;
  #limitRefusals = 0;
  #flags = 0;

  /**
   * @param thresholds - over {@link DEFAULT_SUSPICION_THRESHOLDS}
   * @param now - clock, epoch ms
   * @throws InvalidArgumentError for a threshold that is not a positive number
   */
  constructor(thresholds: Partial<SuspicionThresholds> = {}, now: () => number = Date.now) {
    this.thresholds = { ...DEFAULT_SUSPICION_THRESHOLDS, ...thresholds };
    for (const [name, value] of Object.entries(this.thresholds)) {
      if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw new InvalidArgumentError(`suspicion threshold ${name} must be a positive number, got ${String(value)}`);
    }
    this.#now = now;
    this.#since = now();
  }

  /**
   * Counts a look-up of a task id the requester has no task under.
   *
   * @returns the flag when this look-up made the requester cross the threshold, else `null`
   */
  failedLookup(owner: TaskOwner): SuspicionFlag | null {
    this.#failedLookups++;
    const now = this.#now();
    const r = this.#requester(owner, now);
    r.failedLookups++;
    return this.#check(r, r.lookups, hit(r.lookups, now, this.thresholds.windowMs), 'failed-lookups', this.thresholds.failedLookups, now);
  }

  /**
   * Notes a poll (`get`) of a task. It is fast when it follows the requester's previous poll of
   * the same task by less than half the interval the task suggested in its answer to that
   * previous poll (the suggestion grows with the task's age, so a requester that follows it is
   * never fast), unless it saw a new status (the requester was told of it: a SEP-1686 client
   * fetches at once on a status push) or is one of the free polls after a new status or the end
   * (a client that sees `completed` asks for the result at once, and a 2025-11-25 one reads the
   * status once more).
   * The rule is the runtime's own (`judgePoll`, `nextPollMark`): what it charges as kept is never fast here.
   *
   * @param status - the status this poll returned
   * @param suggested - the polling interval the task suggested in its answer to this poll, ms
   * @returns the flag when this poll made the requester cross the threshold, else `null`
   */
  poll(owner: TaskOwner, taskId: string, status: TaskStatus, suggested: number): SuspicionFlag | null {
    const now = this.#now();
    const key = `${ownerKeyOf(owner)}\u0000${taskId}`;
    const mark = this.#polls.get(key);
    const fast = judgePoll(mark, now, status) === 'fast';
    touch(this.#polls, key, nextPollMark(mark, now, suggested, status), this.thresholds.maxTracked);
    if (!fast) return null;
    this.#fastPolls++;
    const r = this.#requester(owner, now);
    r.fastPolls++;
    return this.#check(r, r.polls, hit(r.polls, now, this.thresholds.windowMs), 'fast-polls', this.thresholds.fastPolls, now);
  }

  /** Counts a request refused by a limit (`TaskLimitError`). */
  limitRefused(owner: TaskOwner, limit: string): void {
    this.#limitRefusals++;
    this.#limits[limit] = (this.#limits[limit] ?? 0) + 1;
    this.#requester(owner, this.#now()).limitRefusals++;
  }

  /** Forgets a task's poll mark (it was deleted: its id may be used again). */
  forgetTask(owner: TaskOwner, taskId: string): void {
    this.#polls.delete(`${ownerKeyOf(owner)}\u0000${taskId}`);
  }

  /**
   * The counts now, with the worst requesters first.
   *
   * @param node - the node name to report
   */
  report(node: string): SecurityReport {
    const now = this.#now();
    const { windowMs, failedLookups, fastPolls, topRequesters } = this.thresholds;
    let flagged = 0;
    const suspects: SuspectRequester[] = [];
    for (const [key, r] of this.#requesters) {
      // Idle for ten windows and never flagged: nothing an operator needs any more.
      if (r.flags === 0 && now - r.lastSeen > 10 * windowMs) {
        this.#requesters.delete(key);
        continue;
      }
      const isFlagged = r.lookups.flaggedUntil > now || r.polls.flaggedUntil > now;
      if (isFlagged) flagged++;
      if (r.failedLookups + r.fastPolls === 0) continue;
      suspects.push({
        session: r.who.session,
        principal: r.who.principal,
        peer: r.who.peer,
        failedLookups: r.failedLookups,
        fastPolls: r.fastPolls,
        limitRefusals: r.limitRefusals,
        flags: r.flags,
        flagged: isFlagged,
        lastSeen: r.lastSeen,
      });
    }
    suspects.sort((a, b) => b.failedLookups + b.fastPolls - (a.failedLookups + a.fastPolls) || b.lastSeen - a.lastSeen);
    return {
      enabled: true,
      node,
      since: this.#since,
      thresholds: { windowMs, failedLookups, fastPolls },
      totals: { failedLookups: this.#failedLookups, fastPolls: this.#fastPolls, limitRefusals: this.#limitRefusals, flags: this.#flags },
      limitRefusals: { ...this.#limits },
      flagged,
      tracked: this.#requesters.size,
      top: suspects.slice(0, topRequesters),
    };
  }

  #requester(owner: TaskOwner, now: number): Requester {
    // One line per requester: an authenticated one's sessions are one, anonymous callers one per address.
    const who = requesterOf(owner);
    const key = who.key;
    const r = this.#requesters.get(key) ?? {
      who,
      failedLookups: 0,
      fastPolls: 0,
      limitRefusals: 0,
      flags: 0,
      lastSeen: now,
      lookups: windowed(now),
      polls: windowed(now),
    };
    r.lastSeen = now;
    touch(this.#requesters, key, r, this.thresholds.maxTracked);
    return r;
  }

  #check(r: Requester, w: Windowed, count: number, reason: SuspicionFlag['reason'], threshold: number, now: number): SuspicionFlag | null {
    if (count <= threshold || w.flaggedUntil > now) return null;
    w.flaggedUntil = now + this.thresholds.windowMs;
    r.flags++;
    this.#flags++;
    return { reason, requester: r.who, count: Math.round(count), threshold, windowMs: this.thresholds.windowMs };
  }
}

/**
 * The report of a runtime created without audit: every count 0.
 *
 * @param node - the node name to report
 * @example
 * ```ts
 * const report = audit?.report() ?? disabledSecurityReport('local');
 * ```
 */
export function disabledSecurityReport(node: string): SecurityReport {
  const { windowMs, failedLookups, fastPolls } = DEFAULT_SUSPICION_THRESHOLDS;
  return {
    enabled: false,
    node,
    since: 0,
    thresholds: { windowMs, failedLookups, fastPolls },
    totals: { failedLookups: 0, fastPolls: 0, limitRefusals: 0, flags: 0 },
    limitRefusals: {},
    flagged: 0,
    tracked: 0,
    top: [],
  };
}
